package pdb

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding"
)

// A split iteration (docs/ARCHITECTURE.md "Split search"): one
// IDA* iteration cut into subtrees that other processes search. The top
// of the tree, down to the split depth, is walked here with the same
// move pruning and the same bound as the unsplit search (it is the walk
// of the parallel and lane iterations, collecting its work items); each
// subtree is named by the moves from the root to its node, so a message
// can carry it and any process can rebuild the node from the state.
//
// Nodes add up exactly: the walk counts the nodes above the split depth,
// each subtree counts its own node and those below, and their sum is the
// unsplit iteration's count whenever no goal is met (with a goal, the
// subtrees searched after the one holding it are extra). The least f
// above the bound is the least of the walk's and the subtrees'.

// Frontier walks the top of the iteration to bound from cells, trying
// depths from from (at least 1) upwards until the frontier holds at
// least want subtrees, the depth reaches the bound, or the walk was the
// whole iteration. b bounds the walks.
func (sv *Solver) Frontier(cells []uint8, bound, from int, want int64, b search.Budget) (search.Frontier, error) {
	k, _, err := sv.start(cells, b, search.Unweighted)
	if err != nil {
		return search.Frontier{}, err
	}
	k.bound = bound
	var walked int64
	var sc laneScratch
	depth := max(from, 1)
	for {
		sc.items, sc.paths = sc.items[:0], sc.paths[:0]
		before := walked
		top := k.walkTop(depth, &walked, &sc)
		items := sc.items
		if top.done {
			p := search.Pass{D: top.d, OK: top.ok, Stopped: top.stopped, Next: top.next}
			if top.ok {
				p.Path = append([]uint8(nil), top.path[:top.d]...)
			}
			return search.Frontier{Depth: depth, Above: walked - before, Walked: walked, Next: top.next, Done: true, Pass: p}, nil
		}
		if top.items >= want || depth >= bound {
			f := search.Frontier{Depth: depth, Above: walked - before, Walked: walked, Next: top.next, Subtrees: make([][]uint8, len(items))}
			for i := range items {
				f.Subtrees[i] = items[i].path
			}
			return f, nil
		}
		depth++
	}
}

var _ search.Splitter = (*Solver)(nil)

// Root is the admissible bound of cells (search.Splitter).
func (sv *Solver) Root(cells []uint8) (int, error) {
	_, h0, err := sv.start(cells, search.Budget{}, search.Unweighted)
	return h0, err
}

// Moves are the puzzle moves of a path of move codes (search.Splitter).
func (sv *Solver) Moves(path []uint8) []puzzle.Move {
	return sliding.PathAnswer(search.Outcome{Path: path}, "").Moves
}

// SearchSubtree searches, to bound, the subtree of the iteration from
// cells whose node the moves of prefix reach, as the unsplit search
// would below that node (same pruning machine state, same order).
func (sv *Solver) SearchSubtree(cells []uint8, prefix []uint8, bound int, b search.Budget) (search.Subtree, error) {
	k, _, err := sv.start(cells, b, search.Unweighted)
	if err != nil {
		return search.Subtree{}, err
	}
	k.bound = bound
	k.path = make([]uint8, bound+1)
	n, err := k.descend(prefix)
	if err != nil {
		return search.Subtree{}, err
	}
	k.next = search.NoNext
	d, ok := k.dfs(len(prefix), n.blank, n.st, n.s0, n.s1, nil)
	out := search.Subtree{Nodes: k.gate.Nodes, Next: k.next, OK: ok, Stopped: !ok && k.gate.Stopped}
	if ok {
		out.Path = append([]uint8(nil), k.path[:d]...)
	}
	return out, nil
}

// Expand walks the subtree below prefix (as SearchSubtree would search
// it) down to depth, a deeper split of that one subtree: the walk counts
// the prefix's node and those above depth, each prefix it returns is
// searched as a subtree of its own, and together they expand exactly the
// subtree's nodes (search.Splitter).
func (sv *Solver) Expand(cells []uint8, prefix []uint8, bound, depth int, b search.Budget) (search.Frontier, error) {
	k, _, err := sv.start(cells, b, search.Unweighted)
	if err != nil {
		return search.Frontier{}, err
	}
	if depth <= len(prefix) {
		return search.Frontier{}, fmt.Errorf("%w: expand %d moves to depth %d", search.ErrPrefix, len(prefix), depth)
	}
	k.bound = bound
	var par search.Shared
	w := k.Walker(bound, &par, depth, true).(*idaWork)
	var sc laneScratch
	w.collect = &sc
	n, err := w.descend(prefix)
	if err != nil {
		return search.Frontier{}, err
	}
	d, ok := w.dfs(len(prefix), n.blank, n.st, n.s0, n.s1, nil)
	items := sc.items
	f := search.Frontier{Depth: depth, Above: w.gate.Nodes, Walked: w.gate.Nodes, Next: w.next}
	if stopped := !ok && par.Out.Load(); ok || stopped || len(items) == 0 {
		f.Done, f.Pass = true, search.Pass{D: d, OK: ok, Stopped: stopped, Next: w.next}
		if ok {
			f.Pass.Path = append([]uint8(nil), w.path[:d]...)
		}
		return f, nil
	}
	f.Subtrees = make([][]uint8, len(items))
	for i := range items {
		f.Subtrees[i] = items[i].path
	}
	return f, nil
}

// node is a search node's place: the blank, the pruning machine's state
// and the two sides' sums of entries.
type node struct {
	blank  int
	st     int32
	s0, s1 int
}

// descend makes the moves of prefix from k's start, as the search would
// (legal, allowed by the pruning machine, within the bound at every
// step), leaving k's board, ranks, entries and path at its node.
func (k *idaWork) descend(prefix []uint8) (node, error) {
	sv := k.Solver
	if len(prefix) > k.bound {
		return node{}, fmt.Errorf("%w: %d moves past bound %d", search.ErrPrefix, len(prefix), k.bound)
	}
	n := node{blank: int(k.pos[0]), s0: k.sum[0], s1: k.sum[1]}
	for g, d := range prefix {
		if d > tileRight || sv.legal[n.blank&31]&sv.fsm.allow[n.st]&(1<<d) == 0 {
			return node{}, fmt.Errorf("%w: move %d at depth %d", search.ErrPrefix, d, g)
		}
		m := &sv.moves[n.blank&31][d&3]
		t := k.board[m.src&31] & 31
		d0, d1 := sv.steps(&k.board, m, t)
		j0, j1 := sv.pat[0][t]&15, sv.pat[1][t]&15
		k.rank[0][j0] += d0
		k.rank[1][j1] += d1
		v0, v1 := sv.data[j0][k.rank[0][j0]], sv.data[j1][k.rank[1][j1]]
		n.s0 += int(v0) - int(k.hv[0][j0])
		n.s1 += int(v1) - int(k.hv[1][j1])
		k.hv[0][j0], k.hv[1][j1] = v0, v1
		k.board[n.blank&31], k.board[m.src&31] = uint8(t), 0
		n.blank = int(m.src)
		n.st = sv.fsm.next[n.st][d&3]
		k.path[g] = d
		if g+1+max(n.s0, n.s1) > k.bound {
			return node{}, fmt.Errorf("%w: f %d past bound %d at depth %d", search.ErrPrefix, g+1+max(n.s0, n.s1), k.bound, g+1)
		}
	}
	return n, nil
}
