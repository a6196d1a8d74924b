package pdb

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding"
)

// A split iteration (issue 27, docs/ARCHITECTURE.md "Split search"): one
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
	if len(prefix) > bound {
		return search.Subtree{}, fmt.Errorf("%w: %d moves past bound %d", search.ErrPrefix, len(prefix), bound)
	}
	k.bound = bound
	k.path = make([]uint8, bound+1)
	blank, st, s0, s1 := int(k.pos[0]), int32(0), k.sum[0], k.sum[1]
	for g, d := range prefix {
		if d > tileRight || sv.legal[blank&31]&sv.fsm.allow[st]&(1<<d) == 0 {
			return search.Subtree{}, fmt.Errorf("%w: move %d at depth %d", search.ErrPrefix, d, g)
		}
		m := &sv.moves[blank&31][d&3]
		t := k.board[m.src&31] & 31
		d0, d1 := sv.steps(&k.board, m, t)
		j0, j1 := sv.pat[0][t]&15, sv.pat[1][t]&15
		k.rank[0][j0] += d0
		k.rank[1][j1] += d1
		v0, v1 := sv.data[j0][k.rank[0][j0]], sv.data[j1][k.rank[1][j1]]
		s0 += int(v0) - int(k.hv[0][j0])
		s1 += int(v1) - int(k.hv[1][j1])
		k.hv[0][j0], k.hv[1][j1] = v0, v1
		k.board[blank&31], k.board[m.src&31] = uint8(t), 0
		blank = int(m.src)
		st = sv.fsm.next[st][d&3]
		k.path[g] = d
		if g+1+max(s0, s1) > bound {
			return search.Subtree{}, fmt.Errorf("%w: f %d past bound %d at depth %d", search.ErrPrefix, g+1+max(s0, s1), bound, g+1)
		}
	}
	k.next = search.NoNext
	d, ok := k.dfs(len(prefix), blank, st, s0, s1, nil)
	out := search.Subtree{Nodes: k.gate.Nodes, Next: k.next, OK: ok, Stopped: !ok && k.gate.Stopped}
	if ok {
		out.Path = append([]uint8(nil), k.path[:d]...)
	}
	return out, nil
}
