package pdb

import (
	"fmt"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/tessera-solver/tessera/internal/prefetch"
	"github.com/tessera-solver/tessera/internal/search"
)

// Solver is IDA* for one board over a Set: the bound is the additive sum
// of the set's tables, and on square boards the maximum of that and the
// sum for the board reflected about the main diagonal. It is immutable
// and safe for concurrent use; every Solve works in its own workspace.
//
// Per node the search touches one entry per side (direct, reflected) per
// child: only the moved tile's pattern changes, and its rank is updated
// from the parent's rank with table-driven steps instead of being
// recomputed (perm.Partial.Rank would cost k popcounts and multiplies per
// child; a step is a few table reads). The steps are made of the pattern's
// perm multipliers, so the ranks are perm's. All children's entries are loaded before any is descended
// into, so their cache misses overlap. Move sequences that a shorter or
// lexicographically smaller equivalent sequence replaces are pruned by a
// finite-state machine (see fsm.go). On tables too large for the caches
// the larger iterations run in lanes (see lanes.go): one depth-first
// search's prefetches come too late to hide its own misses.
//
// Move codes of the Outcome's Path are those of internal/search: the
// direction the TILE moves (Up 0, Down 1, Left 2, Right 3).
type Solver struct {
	set     *Set
	reflect bool
	pats    []pattern
	goal    [32]uint8
	nb      int  // cells strictly between the two cells of a vertical move: cols−1
	wide    bool // nb > 4
	// prefetch is set when the tables are too large for the caches: below
	// that, prefetching costs more than the misses it saves.
	prefetch bool
	// interleave is set with prefetch: an iteration of a search alone
	// runs its subtrees in lanes (iterateLanes), which hides the misses.
	interleave bool
	// scratch pools the lane iterations' memory (laneScratch) across
	// searches.
	scratch sync.Pool

	// data[j] is table j; data[len(pats)] is a one-entry table of 0 for
	// tiles no pattern holds (their rank stays 0), so the search needs no
	// branch for them, nor for a side that is not looked up.
	data [patSlots][]byte
	// Per side s (0 the board, 1 its reflection) and tile t of the board:
	// the pattern that holds t on that side, and the rank steps when t
	// moves. A horizontal move changes only t's digit, by one; a vertical
	// move to the higher cell adds cols to t's digit, then each pattern
	// tile it jumps over (the cols−1 cells between) corrects it: cross[s][t][u] is
	// −mul(t) for a tile u before t in rank order (one more tile below t)
	// and +mul(u) for a tile after t (t no longer below u), else 0.
	pat   [2][32]uint8
	horiz [2][32]uint32
	vert  [2][32]uint32
	cross [2][32][32]uint32
	moves [MaxCells][4]move
	legal [MaxCells]uint8 // bit d set: direction d is possible with the blank on the cell
	fsm   *fsm

	// dual, when set, replaces the search below the start and raises the
	// start's bound: the tests' dual search (dual_search_test.go), which
	// expands fewer nodes for more time per node. Nil, the regular search
	// runs.
	dual dualHook
}

// dualHook is the search a test sets on Solver.dual.
type dualHook interface {
	// bound is the start's bound (k at the start) with the dual lookups.
	bound(k *idaWork) int
	// dfsRoot searches k's current iteration from the start.
	dfsRoot(k *idaWork) (int, bool)
}

// move is a tile's move into the blank's cell: src is the tile's cell.
// On side vs the move is vertical (the other side sees it horizontal);
// neg[s] is all ones when the tile goes to a lower cell on side s (the
// rank step is subtracted); between are the board cells whose tiles the
// vertical side's step jumps over.
type move struct {
	src     uint8
	vs      uint8
	neg     [2]uint32
	between [12]uint8
}

// pattern is one table in the layout the start of a search reads.
type pattern struct {
	data   []byte
	k      int
	tiles  [MaxCells]uint8
	rtiles [MaxCells]uint8
}

// maxPatterns is how many tables a Solver combines.
const maxPatterns = 8

// prefetchAbove is the size of the largest table from which the search
// prefetches entries: the 6-6-3 set (5.8 MB tables) stays in the caches,
// prefetching pays on 15-pdb-78 (a 519 MB table) and costs on
// 24-pdb-6666's 127 MB tables (docs/BENCHMARKS.md): moves of the tiles
// late in rank order step by a few entries, so their lines are often
// cached already and the prefetches only take issue slots.
const prefetchAbove = 256 << 20

// patSlots sizes the per-pattern arrays of the search (the tables and a
// spare for tiles no pattern holds) so that an index masked by 15 needs
// no bounds check.
const patSlots = 16

// NewSolver prepares IDA* over s; reflect asks for the reflected lookup
// (ignored on boards that are not square).
func NewSolver(s *Set, reflect bool) (*Solver, error) {
	if len(s.pdbs) > maxPatterns {
		return nil, fmt.Errorf("pdb search: %d tables, at most %d", len(s.pdbs), maxPatterns)
	}
	g := s.g
	cols, n := g.cols, g.n
	sv := &Solver{set: s, reflect: reflect && s.square, nb: cols - 1, wide: cols > 5}
	none := uint8(len(s.pdbs))
	sv.data[none] = []byte{0}
	var idx [32]uint8 // position of each tile in its pattern's rank order
	for j, p := range s.pdbs {
		if p.size > 1<<32 {
			return nil, fmt.Errorf("pdb search: table of %d entries, ranks must fit 32 bits", p.size)
		}
		pt := pattern{data: p.data, k: p.k}
		copy(pt.tiles[:], p.tiles)
		if s.square {
			copy(pt.rtiles[:], s.rtiles[j])
		}
		sv.pats = append(sv.pats, pt)
		sv.data[j] = p.data
		for i, t := range p.tiles {
			idx[t] = uint8(i)
		}
	}
	for i := 0; i < n-1; i++ {
		sv.goal[i] = uint8(i + 1)
	}
	var largest uint64
	for _, p := range s.pdbs {
		largest = max(largest, p.size)
	}
	sv.prefetch = largest > prefetchAbove
	sv.interleave = sv.prefetch
	// The rank steps of each side. On side 1 the board's tile t is the
	// reflection's tile relabel[t].
	for side := 0; side < 2; side++ {
		label := func(t int) int { return t }
		if side == 1 {
			if !sv.reflect {
				for t := range sv.pat[1] {
					sv.pat[1][t] = none
				}
				break
			}
			label = func(t int) int { return int(s.relabel[t]) }
		}
		for t := 0; t < 32; t++ {
			sv.pat[side][t] = none
			if t == 0 || t >= n || s.of[label(t)] < 0 {
				continue
			}
			lt := label(t)
			j := s.of[lt]
			p := s.pdbs[j]
			mi := uint32(p.mul[idx[lt]])
			sv.pat[side][t] = uint8(j)
			sv.horiz[side][t] = mi
			sv.vert[side][t] = uint32(cols) * mi
			for u := 1; u < n; u++ {
				lu := label(u)
				if u == t || s.of[lu] != j {
					continue
				}
				if idx[lu] < idx[lt] {
					sv.cross[side][t][u] = -mi
				} else {
					sv.cross[side][t][u] = uint32(p.mul[idx[lu]])
				}
			}
		}
	}
	tr := func(c int) int { return c%cols*cols + c/cols } // square boards only
	for b := 0; b < n; b++ {
		for d := tileUp; d <= tileRight; d++ {
			var src int
			switch d {
			case tileUp: // the tile below the blank moves up
				src = b + cols
				if src >= n {
					continue
				}
			case tileDown:
				src = b - cols
				if b < cols {
					continue
				}
			case tileLeft:
				src = b + 1
				if b%cols == cols-1 {
					continue
				}
			case tileRight:
				src = b - 1
				if b%cols == 0 {
					continue
				}
			}
			m := move{src: uint8(src)}
			for i := range m.between {
				m.between[i] = 31 // never a cell: always empty
			}
			if b < src {
				m.neg[0] = ^uint32(0)
			}
			lo, hi := min(b, src), max(b, src)
			if d == tileLeft || d == tileRight {
				m.vs = 1
				if s.square {
					if tr(b) < tr(src) {
						m.neg[1] = ^uint32(0)
					}
					lo, hi = min(tr(b), tr(src)), max(tr(b), tr(src))
					for i := range cols - 1 {
						m.between[i] = uint8(tr(lo + 1 + i))
					}
				}
			} else {
				if s.square && tr(b) < tr(src) {
					m.neg[1] = ^uint32(0)
				}
				for i := range cols - 1 {
					m.between[i] = uint8(lo + 1 + i)
				}
			}
			_ = hi
			sv.moves[b][d] = m
			sv.legal[b] |= 1 << d
		}
	}
	sv.fsm = duplicateFSM()
	return sv, nil
}

// Name describes the heuristic, for a Result's solver field.
func (sv *Solver) Name() string {
	name := "ida*(pdb"
	for _, p := range sv.set.pdbs {
		name += fmt.Sprintf("-%d", p.k)
	}
	if sv.reflect {
		name += "+reflect"
	}
	return name + ")"
}

const (
	tileUp uint8 = iota
	tileDown
	tileLeft
	tileRight
	noMove = 4
)

type idaWork struct {
	*Solver
	board  [32]uint8           // cell → tile
	pos    Positions           // tile → cell, at the start only
	rank   [2][patSlots]uint32 // each pattern's rank, per side
	hv     [2][patSlots]uint8  // each pattern's entry, per side
	sum    [2]int              // the start's sums of entries, per side
	path   []uint8
	bound  int
	next   int
	gate   search.Gate   // counts the nodes, stops the search
	weight search.Weight // search.Unweighted is plain IDA*

	// A worker of a parallel iteration (par nil when searching alone):
	// the nodes at depth split are work items (see search.Items); a worker
	// descends only into those it claimed.
	par   *search.Shared
	split int // −1 alone
	items search.Items
	// collect, when set, receives the work items a walk meets.
	collect *laneScratch
	// scratch is the memory of this search's iterations in lanes (nil
	// until the first), returned to the Solver's pool when it ends.
	scratch *laneScratch
}

// rankDirect and rankReflected rank pattern j at the start of a search
// (the search then steps the ranks by move, with steps made of the same
// perm multipliers).
func (k *idaWork) rankDirect(j int) uint64 {
	p := &k.pats[j]
	var ps [MaxCells]uint8
	for i := 0; i < p.k; i++ {
		ps[i] = k.pos[p.tiles[i]&31]
	}
	return k.set.pdbs[j].rank(&ps)
}

func (k *idaWork) rankReflected(j int) uint64 {
	p := &k.pats[j]
	tr := &k.set.transpose
	var ps [MaxCells]uint8
	for i := 0; i < p.k; i++ {
		ps[i] = tr[k.pos[p.rtiles[i]&31]&31]
	}
	return k.set.pdbs[j].rank(&ps)
}

// rankAll sets the ranks, entries and sums of entries of every pattern
// and side from pos.
func (k *idaWork) rankAll() {
	k.sum = [2]int{}
	for j := range k.pats {
		k.rank[0][j] = uint32(k.rankDirect(j))
		k.hv[0][j] = k.data[j][k.rank[0][j]]
		k.sum[0] += int(k.hv[0][j])
		if k.reflect {
			k.rank[1][j] = uint32(k.rankReflected(j))
			k.hv[1][j] = k.data[j][k.rank[1][j]]
			k.sum[1] += int(k.hv[1][j])
		}
	}
}

// Solve runs IDA* from cells (row-major, 0 the blank) to the goal. When
// the budget runs out it returns search.ErrBudgetExceeded with the lower
// bound proved so far.
func (sv *Solver) Solve(cells []uint8, b search.Budget) (search.Outcome, error) {
	return sv.SolveParallel(cells, b, search.Unweighted, 1)
}

// SolveWeighted is IDA* on g + h·w/16: with w > 16 it trades length
// for far fewer nodes (not proved optimal; the lower bound is the start's
// heuristic). Weights below search.Unweighted count as Unweighted.
func (sv *Solver) SolveWeighted(cells []uint8, b search.Budget, w search.Weight) (search.Outcome, error) {
	return sv.SolveParallel(cells, b, w, 1)
}

// parAbove is search.ParallelAbove (a variable so that tests split small
// searches).
var parAbove int64 = search.ParallelAbove

// SolveParallel is SolveWeighted on up to workers goroutines (one core
// each; workers ≤ 1 searches alone). Small iterations run alone; once an iteration takes more than
// parAbove nodes, the following ones share their subtrees among the
// workers. On tables that are prefetched, an unweighted search's
// iterations past laneAbove nodes run their subtrees in interleaved lanes
// instead (iterateLanes), on every worker. An optimal answer is as short
// as Solve's alone but may be a different path; Nodes counts every
// worker's nodes, and a MaxNodes budget is enforced to within a few tens
// of thousands of nodes per worker.
func (sv *Solver) SolveParallel(cells []uint8, b search.Budget, w search.Weight, workers int) (search.Outcome, error) {
	k, h0, err := sv.start(cells, b, w)
	if err != nil {
		return search.Outcome{}, err
	}
	defer k.release()
	return search.Deepen(k, search.Deepening{H0: h0, Weight: k.weight, Workers: workers, ParallelAbove: parAbove, Keeps: k.lanes})
}

// lanes reports whether the iteration after one of last nodes runs in
// lanes (iterateLanes), on every worker: on prefetched tables, unweighted.
func (k *idaWork) lanes(last int64) bool {
	return k.interleave && k.weight == search.Unweighted && last > laneAbove
}

// Iterate is one iteration to it.Bound as search.Deepen drives it: alone,
// or in lanes once the iterations are large enough.
func (k *idaWork) Iterate(it search.Iteration) (search.Pass, int64) {
	k.bound = it.Bound
	if k.lanes(it.Last) {
		return k.iterateLanes(it)
	}
	k.path = search.PathFor(k.path, k.bound)
	return search.Alone(&k.gate, &k.next, k.path, k.dfsRoot)
}

func (k *idaWork) dfsRoot() (int, bool) {
	if k.dual != nil {
		return k.dual.dfsRoot(k)
	}
	return k.dfs(0, int(k.pos[0]), 0, k.sum[0], k.sum[1], nil)
}

// start prepares a search of cells: the workspace with the start's ranks,
// entries and sums of entries per side, and the bound of the start.
func (sv *Solver) start(cells []uint8, b search.Budget, w search.Weight) (k *idaWork, h0 int, err error) {
	n := sv.set.g.n
	if len(cells) != n {
		return nil, 0, fmt.Errorf("pdb search: %d cells, want %d", len(cells), n)
	}
	k = &idaWork{Solver: sv, gate: search.NewGate(b), weight: max(w, search.Unweighted), split: -1}
	var seen uint32
	for i, t := range cells {
		if int(t) >= n || seen&(1<<t) != 0 {
			return nil, 0, fmt.Errorf("pdb search: %v is not a board of %d cells", cells, n)
		}
		seen |= 1 << t
		k.board[i] = t
		k.pos[t] = uint8(i)
	}
	k.rankAll()
	h0 = max(k.sum[0], k.sum[1])
	if sv.dual != nil && h0 < Unreached {
		h0 = max(h0, sv.dual.bound(k))
	}
	if h0 >= Unreached {
		return nil, 0, fmt.Errorf("pdb search: %v cannot reach the goal", cells)
	}
	return k, h0, nil
}

// Walker is a copy of k's start to bound for one goroutine of a parallel
// iteration (or a walk of its top) at depth split.
func (k *idaWork) Walker(bound int, sh *search.Shared, split int, walk bool) search.Walker {
	w := *k
	w.bound = bound
	w.gate = k.gate.Worker(sh)
	w.path = make([]uint8, bound+1)
	w.next = search.NoNext
	w.par, w.split, w.items = sh, split, search.NewItems(sh, walk)
	w.collect = nil
	return &w
}

// Walk searches a worker's share of the iteration (search.Walker).
func (k *idaWork) Walk() search.Pass {
	d, ok := k.dfsRoot()
	return search.Pass{D: d, OK: ok, Stopped: !ok && k.par.Out.Load(), Next: k.next, Path: k.path, Items: k.items.Met()}
}

// Nodes is how many nodes a worker has expanded (search.Walker).
func (k *idaWork) Nodes() int64 { return k.gate.Nodes }

// topWalk is a walk of an iteration that stops at the split: the work
// items it met and, when it was the whole iteration (done), its outcome.
type topWalk struct {
	items   int64
	done    bool
	d       int
	ok      bool
	stopped bool
	next    int
	path    []uint8
}

// walkTop walks the current iteration down to depth split, counting the
// nodes there (work items) without expanding them; before is the nodes
// the search spent so far, which the walk's are added to.
func (k *idaWork) walkTop(split int, before *int64, collect *laneScratch) topWalk {
	var par search.Shared
	par.Nodes.Store(*before)
	// Never drawing an item, the walk only numbers them.
	w := k.Walker(k.bound, &par, split, true).(*idaWork)
	w.collect = collect
	d, ok := w.dfsRoot()
	*before += w.gate.Nodes
	stopped := !ok && par.Out.Load()
	items := w.items.Met()
	return topWalk{items: items, done: ok || stopped || items == 0, d: d, ok: ok, stopped: stopped, next: w.next, path: w.path}
}

// f is the cost bound of a node at depth g with heuristic h.
func (k *idaWork) f(g, h int) int {
	if k.weight == search.Unweighted {
		return g + h
	}
	return g + k.weight.Scale(h)
}

func (k *idaWork) isGoal() bool { return k.board == k.goal }

// claim numbers a work item of a parallel iteration and reports whether
// this worker explores it (search.Items.Claim); it stops the worker when
// another has found the goal or run out. A walk that collects items
// (collect set) keeps the item's node: the board, ranks and entries, the
// path to it and the arguments of its dfs.
func (k *idaWork) claim(blank int, st int32, s0, s1 int) bool {
	if c := k.collect; c != nil {
		// The items' paths share one buffer: a path is never written
		// after, so one appended past a grown buffer stays valid.
		n := len(c.paths)
		c.paths = append(c.paths, k.path[:k.split]...)
		c.items = append(c.items, laneItem{board: k.board, rank: k.rank, hv: k.hv,
			path: c.paths[n:len(c.paths):len(c.paths)], blank: blank, st: st, s0: s0, s1: s1})
	}
	mine, stop := k.items.Claim()
	if stop {
		k.gate.Stopped = true
	}
	return mine
}

// steps are the rank changes, per side, when tile t makes move m.
func (sv *Solver) steps(board *[32]uint8, m *move, t uint8) (d0, d1 uint32) {
	// The vertical side's step: cols, corrected for the tiles jumped
	// (cells past the cols−1 between are the always empty cell 31).
	t &= 31
	vs := m.vs & 1
	cr := &sv.cross[vs][t]
	a := sv.vert[vs][t] + cr[board[m.between[0]&31]&31] + cr[board[m.between[1]&31]&31] +
		cr[board[m.between[2]&31]&31] + cr[board[m.between[3]&31]&31]
	if sv.wide {
		a += sv.wideSteps(board, m, t)
	}
	// sel is all ones when the board's side is the horizontal one.
	sel := -uint32(vs)
	return (a&^sel | sv.horiz[0][t]&sel) ^ m.neg[0] - m.neg[0], (a&sel | sv.horiz[1][t]&^sel) ^ m.neg[1] - m.neg[1]
}

// wideSteps is the rest of the vertical step on boards wider than 5.
//
//go:noinline
func (sv *Solver) wideSteps(board *[32]uint8, m *move, t uint8) uint32 {
	var a uint32
	cr := &sv.cross[m.vs&1][t&31]
	for _, x := range m.between[4:sv.nb] {
		a += cr[board[x&31]&31]
	}
	return a
}

// kidRanks are the ranks of a node's successors, per direction and side
// (the moved tile's pattern), as prefetchKids computed them: the node's
// search reads them instead of stepping the ranks again.
type kidRanks [4][2]uint32

// prefetchKids prefetches the entries of the successors of the current
// board with the blank on cell blank, in state st of the pruning machine,
// and leaves their ranks in kr.
func (k *idaWork) prefetchKids(blank int, st int32, kr *kidRanks) {
	sv := k.Solver
	blank &= 31
	var pf [8]uintptr
	n := 0
	mask := sv.legal[blank] & sv.fsm.allow[st]
	for mask != 0 {
		d := bits.TrailingZeros8(mask)
		mask &= mask - 1
		m := &sv.moves[blank][d&3]
		t := k.board[m.src&31] & 31
		// The steps, as in steps (written out: this is the inner loop of
		// the searches that prefetch).
		vs := m.vs & 1
		cr := &sv.cross[vs][t]
		a := sv.vert[vs][t] + cr[k.board[m.between[0]&31]&31] + cr[k.board[m.between[1]&31]&31] +
			cr[k.board[m.between[2]&31]&31] + cr[k.board[m.between[3]&31]&31]
		if sv.wide {
			a += sv.wideSteps(&k.board, m, t)
		}
		sel := -uint32(vs)
		j0, j1 := sv.pat[0][t]&15, sv.pat[1][t]&15
		r0 := k.rank[0][j0] + ((a&^sel | sv.horiz[0][t]&sel) ^ m.neg[0] - m.neg[0])
		r1 := k.rank[1][j1] + ((a&sel | sv.horiz[1][t]&^sel) ^ m.neg[1] - m.neg[1])
		kr[d&3] = [2]uint32{r0, r1}
		pf[n&7] = uintptr(unsafe.Pointer(unsafe.SliceData(sv.data[j0]))) + uintptr(r0)
		pf[(n+1)&7] = uintptr(unsafe.Pointer(unsafe.SliceData(sv.data[j1]))) + uintptr(r1)
		n += 2
	}
	prefetch.Lines(&pf[0], n)
}

// child is a successor within the bound, evaluated before any child is
// descended into.
type child struct {
	r      [2]uint32 // ranks of the moved tile's patterns, per side
	s0, s1 int       // sums of entries, per side
	f      int
	dir, t uint8 // direction, moving tile
	src    uint8 // the moved tile's cell
	j      [2]uint8
	v      [2]uint8 // entries of the moved tile's patterns, per side
}

// dfs explores below a node at depth g whose blank is on cell blank, in
// state st of the pruning machine, with sums s0 (board) and s1
// (reflection) of the tables' entries. kr, when not nil, holds the
// successors' ranks (the parent computed them when prefetching).
func (k *idaWork) dfs(g, blank int, st int32, s0, s1 int, kr *kidRanks) (int, bool) {
	if g == k.split && !k.claim(blank, st, s0, s1) {
		return 0, false
	}
	if k.gate.Visit() {
		return 0, false
	}
	if max(s0, s1) == 0 && k.isGoal() {
		return g, true
	}
	sv := k.Solver
	blank &= 31
	var cs [4]child
	nc := 0
	mask := sv.legal[blank] & sv.fsm.allow[st]
	for mask != 0 {
		d := uint8(bits.TrailingZeros8(mask))
		mask &= mask - 1
		m := &sv.moves[blank][d&3]
		t := k.board[m.src&31] & 31
		j0, j1 := sv.pat[0][t]&15, sv.pat[1][t]&15
		var r0, r1 uint32
		if kr != nil {
			r0, r1 = kr[d&3][0], kr[d&3][1]
		} else {
			// The vertical side's step: cols, corrected for the tiles
			// jumped (cells past the cols−1 between are the always empty
			// cell 31); the same as steps, written out: it is the
			// search's inner loop.
			vs := m.vs & 1
			cr := &sv.cross[vs][t]
			a := sv.vert[vs][t] + cr[k.board[m.between[0]&31]&31] + cr[k.board[m.between[1]&31]&31] +
				cr[k.board[m.between[2]&31]&31] + cr[k.board[m.between[3]&31]&31]
			if sv.wide {
				a += sv.wideSteps(&k.board, m, t)
			}
			// sel is all ones when the board's side is the horizontal one.
			sel := -uint32(vs)
			r0 = k.rank[0][j0] + ((a&^sel | sv.horiz[0][t]&sel) ^ m.neg[0] - m.neg[0])
			r1 = k.rank[1][j1] + ((a&sel | sv.horiz[1][t]&^sel) ^ m.neg[1] - m.neg[1])
		}
		v0 := sv.data[j0][r0]
		c0 := s0 - int(k.hv[0][j0]) + int(v0)
		// A child the board's side alone prunes needs its reflection only
		// to lower the next bound: f ≥ this side's f, so when that is no
		// lower than the next bound so far, the second load (often a
		// miss) is skipped and the search is unchanged.
		if f := k.f(g+1, c0); f > k.bound && f >= k.next {
			continue
		}
		v1 := sv.data[j1][r1]
		c1 := s1 - int(k.hv[1][j1]) + int(v1)
		f := k.f(g+1, max(c0, c1))
		if f > k.bound {
			k.next = min(k.next, f)
			continue
		}
		cs[nc] = child{r: [2]uint32{r0, r1}, s0: c0, s1: c1, f: f, dir: d, t: t, j: [2]uint8{j0, j1}, v: [2]uint8{v0, v1}}
		nc++
	}
	// Most promising first: only the last iteration's count depends on
	// the order, and it shrinks.
	for i := 1; i < nc; i++ {
		for j := i; j > 0 && cs[j].f < cs[j-1].f; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	var krs [4]kidRanks
	if sv.prefetch {
		// Prefetch the entries of every child's successors now: the
		// misses overlap, and those of the children after the first are
		// over before their turn comes.
		for i := range nc {
			c := &cs[i]
			src := int(sv.moves[blank][c.dir&3].src) & 31
			j0, j1 := c.j[0]&15, c.j[1]&15
			k.board[blank], k.board[src] = c.t, 0
			r0, r1 := k.rank[0][j0], k.rank[1][j1]
			k.rank[0][j0], k.rank[1][j1] = c.r[0], c.r[1]
			k.prefetchKids(src, sv.fsm.next[st][c.dir&3], &krs[i&3])
			k.board[blank], k.board[src] = 0, c.t
			k.rank[0][j0], k.rank[1][j1] = r0, r1
		}
	}
	for i := range nc {
		c := &cs[i]
		src := int(sv.moves[blank][c.dir&3].src)
		j0, j1 := c.j[0]&15, c.j[1]&15
		k.board[blank], k.board[src&31] = c.t, 0
		r0, r1, v0, v1 := k.rank[0][j0], k.rank[1][j1], k.hv[0][j0], k.hv[1][j1]
		k.rank[0][j0], k.rank[1][j1], k.hv[0][j0], k.hv[1][j1] = c.r[0], c.r[1], c.v[0], c.v[1]
		k.path[g] = c.dir
		var kr *kidRanks
		if sv.prefetch {
			kr = &krs[i&3]
		}
		if d, ok := k.dfs(g+1, src, sv.fsm.next[st][c.dir&3], c.s0, c.s1, kr); ok {
			return d, true
		}
		k.board[blank], k.board[src&31] = 0, c.t
		k.rank[0][j0], k.rank[1][j1], k.hv[0][j0], k.hv[1][j1] = r0, r1, v0, v1
		if k.gate.Stopped {
			return 0, false
		}
	}
	return 0, false
}
