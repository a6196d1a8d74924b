package sliding

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/search"
)

// Move codes of the sliding searcher: the direction the TILE moves, equal
// to puzzle.Dir (Up 0, Down 1, Left 2, Right 3).
const (
	tileUp uint8 = iota
	tileDown
	tileLeft
	tileRight
	noMove = 4 // before the first move; noMove^1 matches no direction
)

// Searcher is an IDA* solver for one sliding board shape. It is immutable
// after NewSearcher and safe to share between goroutines; every Solve call
// works in its own workspace.
//
// Per axis the bound is max(walking distance, inversion distance) where a
// walking-distance table is available, else max(Manhattan + exact linear
// conflict, inversion distance); the two axes add because every move is
// either vertical or horizontal. The sum is finally raised to the parity of
// the blank's distance to its goal cell, which every solution shares.
type Searcher struct {
	rows, cols, n int
	wdv, wdh      *WD     // nil: that axis uses Manhattan + linear conflict
	idv, idh      []uint8 // inversion count → bound, per axis
	goalRow       [65]uint8
	goalCol       [65]uint8
	hrank         [65]uint8 // tile → goal cell in column-major order
	// hskip[blank][0|1] lists the rows−1 cells a tile jumps over in
	// column-major order when it moves Left (0) or Right (1) into blank.
	hskip [64][2][7]uint8
	par   [64]uint8 // parity of the blank's grid distance to its goal cell
}

// NewSearcher prepares the tables for a board of rows × cols cells (2..8
// each).
func NewSearcher(rows, cols int) (*Searcher, error) {
	if cols < 2 || rows < 2 || cols > 8 || rows > 8 {
		return nil, fmt.Errorf("sliding search: %dx%d board unsupported", rows, cols)
	}
	s := &Searcher{rows: rows, cols: cols, n: rows * cols}
	s.wdv = SharedWD(rows, cols)
	s.wdh = SharedWD(cols, rows)
	maxInv := (s.n - 1) * (s.n - 2) / 2
	s.idv = make([]uint8, maxInv+1)
	s.idh = make([]uint8, maxInv+1)
	for i := 0; i <= maxInv; i++ {
		s.idv[i] = uint8(InversionBound(i, cols-1))
		s.idh[i] = uint8(InversionBound(i, rows-1))
	}
	for t := 1; t < s.n; t++ {
		s.goalRow[t] = uint8((t - 1) / cols)
		s.goalCol[t] = uint8((t - 1) % cols)
		s.hrank[t] = uint8(ColumnRank(t, rows, cols))
	}
	for b := 0; b < s.n; b++ {
		r, c := b/cols, b%cols
		s.par[b] = uint8((rows - 1 - r + cols - 1 - c) & 1)
		if c+1 < cols { // tile at (r, c+1) moves Left into (r, c)
			k := 0
			for rr := r + 1; rr < rows; rr++ {
				s.hskip[b][0][k] = uint8(rr*cols + c)
				k++
			}
			for rr := 0; rr < r; rr++ {
				s.hskip[b][0][k] = uint8(rr*cols + c + 1)
				k++
			}
		}
		if c > 0 { // tile at (r, c−1) moves Right into (r, c)
			k := 0
			for rr := r + 1; rr < rows; rr++ {
				s.hskip[b][1][k] = uint8(rr*cols + c - 1)
				k++
			}
			for rr := 0; rr < r; rr++ {
				s.hskip[b][1][k] = uint8(rr*cols + c)
				k++
			}
		}
	}
	return s, nil
}

// Name describes the heuristic, for Result.Solver.
func (s *Searcher) Name() string {
	axis := func(t *WD) string {
		if t != nil {
			return "wd"
		}
		return "md+lc"
	}
	return "ida*(" + axis(s.wdv) + "/" + axis(s.wdh) + "+id)"
}

// slidingWork is the per-solve workspace: nothing is allocated per node.
type slidingWork struct {
	*Searcher
	board  [64]uint8
	lcRow  [8]uint8 // current linear-conflict moves per row (md+lc axes)
	lcCol  [8]uint8
	path   []uint8
	bound  int
	next   int
	gate   search.Gate   // counts the nodes, stops the search
	weight search.Weight // fast mode: h is scaled by the weight
	root   root

	// A worker of a parallel iteration (shared nil when searching alone):
	// the nodes at depth split are work items (see search.Items); a worker
	// descends only into those it claimed.
	shared *search.Shared
	split  int // −1 alone
	items  search.Items
}

// Heuristic is the root lower bound of a board (tests check admissibility).
func (s *Searcher) Heuristic(cells []uint8) int {
	k := s.newWork(cells, search.Budget{})
	blank := k.blankIndex()
	wv, wh, _ := k.rootAxes()
	hv, hh := k.axisV(wv, k.invRoot()>>16), k.axisH(wh, k.invRoot()&0xffff)
	return k.adjust(hv+hh, blank)
}

func (s *Searcher) newWork(cells []uint8, b search.Budget) *slidingWork {
	k := &slidingWork{Searcher: s, gate: search.NewGate(b), weight: search.Unweighted, split: -1}
	copy(k.board[:], cells)
	return k
}

func (k *slidingWork) blankIndex() int {
	for i := 0; i < k.n; i++ {
		if k.board[i] == 0 {
			return i
		}
	}
	return -1
}

// rootAxes computes each axis's state: a WD pattern index, or the Manhattan
// + linear-conflict moves of that axis.
func (k *slidingWork) rootAxes() (wv, wh uint32, err error) {
	cells := k.board[:k.n]
	mdv, mdh := ManhattanAxes(k.rows, k.cols, cells)
	for r := 0; r < k.rows; r++ {
		k.lcRow[r] = uint8(RowConflict(k.cols, cells, r))
		mdv += int(k.lcRow[r])
	}
	for c := 0; c < k.cols; c++ {
		k.lcCol[c] = uint8(ColConflict(k.rows, k.cols, cells, c))
		mdh += int(k.lcCol[c])
	}
	wv, wh = uint32(mdv), uint32(mdh)
	if k.wdv != nil || k.wdh != nil {
		line, goal := make([]int, 0, k.n), make([]int, 0, k.n)
		col, gcol := make([]int, 0, k.n), make([]int, 0, k.n)
		br, bc := 0, 0
		for i, t := range cells {
			if t == 0 {
				br, bc = i/k.cols, i%k.cols
				continue
			}
			line, goal = append(line, i/k.cols), append(goal, int(k.goalRow[t]))
			col, gcol = append(col, i%k.cols), append(gcol, int(k.goalCol[t]))
		}
		if k.wdv != nil {
			if wv, err = k.wdv.Index(line, goal, br); err != nil {
				return 0, 0, err
			}
		}
		if k.wdh != nil {
			if wh, err = k.wdh.Index(col, gcol, bc); err != nil {
				return 0, 0, err
			}
		}
	}
	return wv, wh, nil
}

// invRoot packs the vertical inversion count in the high bits and the
// horizontal one in the low 16 bits, so one argument carries both.
func (k *slidingWork) invRoot() int {
	v, h := InversionAxes(k.rows, k.cols, k.board[:k.n])
	return v<<16 | h
}

func (k *slidingWork) axisV(wv uint32, iv int) int {
	a := int(wv)
	if k.wdv != nil {
		a = int(k.wdv.Dist[wv])
	}
	if b := int(k.idv[iv]); b > a {
		a = b
	}
	return a
}

func (k *slidingWork) axisH(wh uint32, ih int) int {
	a := int(wh)
	if k.wdh != nil {
		a = int(k.wdh.Dist[wh])
	}
	if b := int(k.idh[ih]); b > a {
		a = b
	}
	return a
}

// adjust raises h to the parity every solution from this blank shares.
func (k *slidingWork) adjust(h, blank int) int {
	return h + (h^int(k.par[blank]))&1
}

// Solve runs IDA* from cells (row-major, 0 = blank) to the goal. On
// success the search.Outcome's Path holds tile directions and Optimal is true. When
// the budget runs out it returns search.ErrBudgetExceeded with the lower bound
// proved so far.
func (s *Searcher) Solve(cells []uint8, b search.Budget) (search.Outcome, error) {
	return s.SolveParallel(cells, b, search.Unweighted, 1)
}

// SolveWeighted is the fast mode: IDA* on g + h·w/16 (e.g. 24 = 1.5×).
// Answers are not proved optimal. Weights below Unweighted count as
// Unweighted.
func (s *Searcher) SolveWeighted(cells []uint8, b search.Budget, w search.Weight) (search.Outcome, error) {
	return s.SolveParallel(cells, b, w, 1)
}

// SolveParallel is SolveWeighted on up to workers goroutines (workers ≤ 1:
// alone). Small iterations run alone; once one passes
// search.ParallelAbove nodes, the following ones share their subtrees
// among the workers (see internal/search). An optimal answer is as short
// as the one-worker answer but may be another path; Nodes counts every
// worker's nodes, and a MaxNodes budget is kept to within
// search.CheckEvery nodes per worker.
func (s *Searcher) SolveParallel(cells []uint8, b search.Budget, weight search.Weight, workers int) (search.Outcome, error) {
	weight = max(weight, search.Unweighted)
	if len(cells) != s.n {
		return search.Outcome{}, fmt.Errorf("sliding search: %d cells, want %d", len(cells), s.n)
	}
	k := s.newWork(cells, b)
	k.weight = weight
	blank := k.blankIndex()
	if blank < 0 {
		return search.Outcome{}, fmt.Errorf("sliding search: no blank")
	}
	wv, wh, err := k.rootAxes()
	if err != nil {
		return search.Outcome{}, fmt.Errorf("sliding search: %w", err)
	}
	inv := k.invRoot()
	hv, hh := k.axisV(wv, inv>>16), k.axisH(wh, inv&0xffff)
	k.root = root{blank, wv, wh, inv, hv, hh}
	return search.Deepen(k, search.Deepening{H0: k.adjust(hv+hh, blank), Weight: weight, Workers: workers})
}

// root is the start of every iteration's walk.
type root struct {
	blank  int
	wv, wh uint32
	inv    int
	hv, hh int
}

// Iterate is one iteration alone to it.Bound, as search.Deepen drives it.
func (k *slidingWork) Iterate(it search.Iteration) (search.Pass, int64) {
	k.bound = it.Bound
	k.path = search.PathFor(k.path, k.bound)
	return search.Alone(&k.gate, &k.next, k.path, k.dfsRoot)
}

func (k *slidingWork) dfsRoot() (int, bool) {
	r := &k.root
	return k.dfs(0, r.blank, noMove, r.wv, r.wh, r.inv, r.hv, r.hh)
}

// Walker is a copy of k's start to bound for one goroutine of a parallel
// iteration (or a walk of its top) at depth split.
func (k *slidingWork) Walker(bound int, sh *search.Shared, split int, walk bool) search.Walker {
	w := *k
	w.bound = bound
	w.gate = k.gate.Worker(sh)
	w.path = make([]uint8, bound+1)
	w.next = search.NoNext
	w.shared, w.split, w.items = sh, split, search.NewItems(sh, walk)
	return &w
}

// Walk searches a worker's share of the iteration (search.Walker).
func (k *slidingWork) Walk() search.Pass {
	d, ok := k.dfsRoot()
	return search.Pass{D: d, OK: ok, Stopped: !ok && k.shared.Out.Load(), Next: k.next, Path: k.path, Items: k.items.Met()}
}

// Nodes is how many nodes a worker has expanded (search.Walker).
func (k *slidingWork) Nodes() int64 { return k.gate.Nodes }

// f is the IDA* cost of a node at depth g with unadjusted bound h.
func (k *slidingWork) f(g, h, blank int) int {
	h = k.adjust(h, blank)
	if k.weight != search.Unweighted {
		h = k.weight.Scale(h)
	}
	return g + h
}

// dfs explores below a node at depth g. It returns the solution length and
// true when the goal is found within k.bound.
func (k *slidingWork) dfs(g, blank int, prev uint8, wv, wh uint32, inv, hv, hh int) (int, bool) {
	if g == k.split {
		mine, stop := k.items.Claim()
		if stop {
			k.gate.Stopped = true
		}
		if !mine {
			return 0, false
		}
	}
	if k.gate.Visit() {
		return 0, false
	}
	if hv+hh == 0 {
		return g, true
	}
	cols := k.cols
	// Tile below the blank moves Up: a vertical move.
	if prev != tileDown && blank+cols < k.n {
		src := blank + cols
		t := k.board[src]
		d := 0
		for x := blank + 1; x < src; x++ {
			if k.board[x] < t {
				d++
			} else {
				d--
			}
		}
		ninv := inv + d<<16
		var nwv uint32
		if k.wdv != nil {
			nwv = k.wdv.Link[(int(wv)*2+0)*k.rows+int(k.goalRow[t])]
		} else {
			nwv = k.mdVertical(wv, t, src, blank)
		}
		nhv := k.axisV(nwv, ninv>>16)
		if f := k.f(g+1, nhv+hh, src); f > k.bound {
			if f < k.next {
				k.next = f
			}
			if k.wdv == nil {
				k.undoVertical(t, src, blank)
			}
		} else {
			k.board[blank], k.board[src] = t, 0
			k.path[g] = tileUp
			if n, ok := k.dfs(g+1, src, tileUp, nwv, wh, ninv, nhv, hh); ok {
				return n, true
			}
			k.board[blank], k.board[src] = 0, t
			if k.wdv == nil {
				k.undoVertical(t, src, blank)
			}
			if k.gate.Stopped {
				return 0, false
			}
		}
	}
	// Tile above the blank moves Down.
	if prev != tileUp && blank >= cols {
		src := blank - cols
		t := k.board[src]
		d := 0
		for x := src + 1; x < blank; x++ {
			if k.board[x] > t {
				d++
			} else {
				d--
			}
		}
		ninv := inv + d<<16
		var nwv uint32
		if k.wdv != nil {
			nwv = k.wdv.Link[(int(wv)*2+1)*k.rows+int(k.goalRow[t])]
		} else {
			nwv = k.mdVertical(wv, t, src, blank)
		}
		nhv := k.axisV(nwv, ninv>>16)
		if f := k.f(g+1, nhv+hh, src); f > k.bound {
			if f < k.next {
				k.next = f
			}
			if k.wdv == nil {
				k.undoVertical(t, src, blank)
			}
		} else {
			k.board[blank], k.board[src] = t, 0
			k.path[g] = tileDown
			if n, ok := k.dfs(g+1, src, tileDown, nwv, wh, ninv, nhv, hh); ok {
				return n, true
			}
			k.board[blank], k.board[src] = 0, t
			if k.wdv == nil {
				k.undoVertical(t, src, blank)
			}
			if k.gate.Stopped {
				return 0, false
			}
		}
	}
	c := blank % cols
	// Tile right of the blank moves Left: a horizontal move.
	if prev != tileRight && c+1 < cols {
		src := blank + 1
		t := k.board[src]
		rt := k.hrank[t]
		d := 0
		skip := &k.hskip[blank][0]
		for i := 0; i < k.rows-1; i++ {
			if k.hrank[k.board[skip[i]]] < rt {
				d++
			} else {
				d--
			}
		}
		ninv := inv + d
		var nwh uint32
		if k.wdh != nil {
			nwh = k.wdh.Link[(int(wh)*2+0)*cols+int(k.goalCol[t])]
		} else {
			nwh = k.mdHorizontal(wh, t, src, blank)
		}
		nhh := k.axisH(nwh, ninv&0xffff)
		if f := k.f(g+1, hv+nhh, src); f > k.bound {
			if f < k.next {
				k.next = f
			}
			if k.wdh == nil {
				k.undoHorizontal(t, src, blank)
			}
		} else {
			k.board[blank], k.board[src] = t, 0
			k.path[g] = tileLeft
			if n, ok := k.dfs(g+1, src, tileLeft, wv, nwh, ninv, hv, nhh); ok {
				return n, true
			}
			k.board[blank], k.board[src] = 0, t
			if k.wdh == nil {
				k.undoHorizontal(t, src, blank)
			}
			if k.gate.Stopped {
				return 0, false
			}
		}
	}
	// Tile left of the blank moves Right.
	if prev != tileLeft && c > 0 {
		src := blank - 1
		t := k.board[src]
		rt := k.hrank[t]
		d := 0
		skip := &k.hskip[blank][1]
		for i := 0; i < k.rows-1; i++ {
			if k.hrank[k.board[skip[i]]] > rt {
				d++
			} else {
				d--
			}
		}
		ninv := inv + d
		var nwh uint32
		if k.wdh != nil {
			nwh = k.wdh.Link[(int(wh)*2+1)*cols+int(k.goalCol[t])]
		} else {
			nwh = k.mdHorizontal(wh, t, src, blank)
		}
		nhh := k.axisH(nwh, ninv&0xffff)
		if f := k.f(g+1, hv+nhh, src); f > k.bound {
			if f < k.next {
				k.next = f
			}
			if k.wdh == nil {
				k.undoHorizontal(t, src, blank)
			}
		} else {
			k.board[blank], k.board[src] = t, 0
			k.path[g] = tileRight
			if n, ok := k.dfs(g+1, src, tileRight, wv, nwh, ninv, hv, nhh); ok {
				return n, true
			}
			k.board[blank], k.board[src] = 0, t
			if k.wdh == nil {
				k.undoHorizontal(t, src, blank)
			}
			if k.gate.Stopped {
				return 0, false
			}
		}
	}
	return 0, false
}

// mdVertical returns the vertical Manhattan + row-conflict moves after tile
// t moves from src into blank (same column), updating the two rows'
// conflict counts. The board itself is left as it was.
func (k *slidingWork) mdVertical(base uint32, t uint8, src, blank int) uint32 {
	rs, rb := src/k.cols, blank/k.cols
	gr := int(k.goalRow[t])
	v := int(base)
	if absInt(rb-gr) < absInt(rs-gr) {
		v--
	} else {
		v++
	}
	v -= int(k.lcRow[rs]) + int(k.lcRow[rb])
	k.board[blank], k.board[src] = t, 0
	k.lcRow[rs] = uint8(RowConflict(k.cols, k.board[:k.n], rs))
	k.lcRow[rb] = uint8(RowConflict(k.cols, k.board[:k.n], rb))
	k.board[blank], k.board[src] = 0, t
	return uint32(v + int(k.lcRow[rs]) + int(k.lcRow[rb]))
}

// undoVertical restores the row conflicts after the move is taken back.
func (k *slidingWork) undoVertical(t uint8, src, blank int) {
	rs, rb := src/k.cols, blank/k.cols
	k.lcRow[rs] = uint8(RowConflict(k.cols, k.board[:k.n], rs))
	k.lcRow[rb] = uint8(RowConflict(k.cols, k.board[:k.n], rb))
}

func (k *slidingWork) mdHorizontal(base uint32, t uint8, src, blank int) uint32 {
	cs, cb := src%k.cols, blank%k.cols
	gc := int(k.goalCol[t])
	v := int(base)
	if absInt(cb-gc) < absInt(cs-gc) {
		v--
	} else {
		v++
	}
	v -= int(k.lcCol[cs]) + int(k.lcCol[cb])
	k.board[blank], k.board[src] = t, 0
	k.lcCol[cs] = uint8(ColConflict(k.rows, k.cols, k.board[:k.n], cs))
	k.lcCol[cb] = uint8(ColConflict(k.rows, k.cols, k.board[:k.n], cb))
	k.board[blank], k.board[src] = 0, t
	return uint32(v + int(k.lcCol[cs]) + int(k.lcCol[cb]))
}

func (k *slidingWork) undoHorizontal(t uint8, src, blank int) {
	cs, cb := src%k.cols, blank%k.cols
	k.lcCol[cs] = uint8(ColConflict(k.rows, k.cols, k.board[:k.n], cs))
	k.lcCol[cb] = uint8(ColConflict(k.rows, k.cols, k.board[:k.n], cb))
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
