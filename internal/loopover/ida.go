// Package loopover solves Loopover boards optimally: IDA* with
// walking-distance or enhanced-Manhattan bounds for any shape (Solver),
// and a specialised 4×4 search with a pattern database (Solver44), on
// boards with allocation-free moves; NewOptimal chooses by shape. It is
// pure: no I/O.
package loopover

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// MaxSide is the longest side of a board; MaxCells its cells.
const (
	MaxSide  = puzzle.MaxSide
	MaxCells = MaxSide * MaxSide
)

// Move codes: 2r+0 shifts row r right, 2r+1 left; 2R+2c+0 shifts column c
// down, 2R+2c+1 up. Positive shifts (right, down) have even codes.
const (
	axisRow = 0
	axisCol = 1
)

// parity rules: which count of moves has a fixed parity.
const (
	parNone  = iota // both sides odd: every move is an even permutation
	parTotal        // both even: every move is odd, so the distance has the permutation's parity
	parRows         // even rows, odd columns: row shifts are odd, column shifts even
	parCols         // odd rows, even columns: column shifts are odd
)

// Solver is optimal IDA* for any board shape with the sum of the two
// axes' walking-distance bounds or, where those tables do not fit, of
// their enhanced Manhattan distances. It is immutable and safe for
// concurrent use. NewOptimal chooses it or, for 4×4, Solver44.
type Solver struct {
	r, c, n int
	rows    *WD // lines = rows, labels = goal rows: bounds column shifts
	cols    *WD // lines = columns, labels = goal columns: bounds row shifts
	// Where walking distance does not fit: the displacement tables of the
	// two axes (rows, bounding column shifts; columns, bounding row shifts),
	// whose single index rides in the first code of the line codes.
	emdR, emdC *EMD
	parity     int
	nm         int
	axis       [4 * MaxSide]uint8
	line       [4 * MaxSide]uint8
	dir        [4 * MaxSide]uint8 // 0 positive, 1 negative
	maxRun     [2][2]int          // per axis and direction: unit shifts worth making in a row
	movPar     [2]int             // per axis: the permutation parity of one shift
	mv         [4 * MaxSide]lineShift
	// pat, where set, is the 5×5 search's pattern bound (dfs55), maxed
	// with the walking distance.
	pat *pat55
}

// lineShift is what one move changes: the cells of its line, in the order
// of the perpendicular lines whose codes change, and for each the cell its
// new piece comes from.
type lineShift struct {
	n         int
	cell, src [MaxSide]uint8
}

// A search board holds pieces as goalRow<<3 | goalCol, so both labels
// are a shift or a mask away.
const colMask = 7

// NewWDSolver is the search over rows×cols with walking-distance bounds
// (tables in memory, milliseconds for 4×4, about half a second for 3×5);
// boards whose tables would be too large are refused with an error.
func NewWDSolver(rows, cols int) (*Solver, error) { return newSolver(rows, cols, false) }

// NewEMDSolver is the search over rows×cols with the enhanced Manhattan
// distance: weaker than walking distance, but its tables fit boards
// whose walking-distance tables do not (5×5: 126^4 patterns).
func NewEMDSolver(rows, cols int) (*Solver, error) { return newSolver(rows, cols, true) }

// NewWDSolverWith is the walking-distance search over rows×cols with
// tables the caller built or mapped (BuildWDTable, NewWDFrom): rowsWD has
// rows lines of cols cells, colsWD cols lines of rows; a square board's one
// table serves both.
func NewWDSolverWith(rows, cols int, rowsWD, colsWD *WD) (*Solver, error) {
	if rowsWD == nil || colsWD == nil || rowsWD.Lines != rows || rowsWD.PerLine != cols || colsWD.Lines != cols || colsWD.PerLine != rows {
		return nil, fmt.Errorf("loopover %dx%d: walking-distance tables of another shape: %w", rows, cols, puzzle.ErrMalformed)
	}
	s, err := newSolverShape(rows, cols)
	if err != nil {
		return nil, err
	}
	s.rows, s.cols = rowsWD, colsWD
	return s, nil
}

// newSolver is NewEMDSolver if emd, else NewWDSolver (the tests check
// both bounds on boards with full BFS tables).
func newSolver(rows, cols int, emd bool) (*Solver, error) {
	s, err := newSolverShape(rows, cols)
	if err != nil {
		return nil, err
	}
	if !emd {
		if s.rows, err = NewWD(rows, cols); err != nil {
			return nil, fmt.Errorf("loopover %dx%d: %w", rows, cols, err)
		}
		// A square board's two tables are the same (and read-only):
		// building one halves a 4×4 solver's start (about 20 ms), which
		// the first state of a process waits for.
		if rows == cols {
			s.cols = s.rows
		} else if s.cols, err = NewWD(cols, rows); err != nil {
			return nil, fmt.Errorf("loopover %dx%d: %w", rows, cols, err)
		}
	} else {
		if s.emdR, err = NewEMD(rows, cols); err != nil {
			return nil, fmt.Errorf("loopover %dx%d: %w", rows, cols, err)
		}
		if s.emdC, err = NewEMD(cols, rows); err != nil {
			return nil, fmt.Errorf("loopover %dx%d: %w", rows, cols, err)
		}
	}
	return s, nil
}

// newSolverShape is a solver of rows×cols without its bound tables: the
// parity rule and the move lists.
func newSolverShape(rows, cols int) (*Solver, error) {
	if rows < 2 || cols < 2 || rows > MaxSide || cols > MaxSide {
		return nil, fmt.Errorf("loopover %dx%d: sides must be 2..%d: %w", rows, cols, MaxSide, puzzle.ErrMalformed)
	}
	s := &Solver{r: rows, c: cols, n: rows * cols}
	switch {
	case rows%2 == 0 && cols%2 == 0:
		s.parity = parTotal
	case cols%2 == 0:
		s.parity = parRows
	case rows%2 == 0:
		s.parity = parCols
	}
	s.movPar = [2]int{(cols - 1) & 1, (rows - 1) & 1}
	// A line of length L never needs more than L/2 shifts one way; an even
	// line's half turn is made positive only, and a 2-cell line has only
	// the one shift.
	s.maxRun = [2][2]int{{cols / 2, (cols - 1) / 2}, {rows / 2, (rows - 1) / 2}}
	// Moves of each line, both ways: position i of a line takes the piece
	// of i−1 (right, down) or i+1 (left, up); cell maps (line, position)
	// to the board.
	addLines := func(axis uint8, lines, n int, cell func(line, i int) int) {
		for l := 0; l < lines; l++ {
			for d := 0; d < 2; d++ {
				s.axis[s.nm], s.line[s.nm], s.dir[s.nm] = axis, uint8(l), uint8(d)
				mv := &s.mv[s.nm]
				mv.n = n
				for i := 0; i < n; i++ {
					from := (i + n - 1) % n
					if d == 1 {
						from = (i + 1) % n
					}
					mv.cell[i], mv.src[i] = uint8(cell(l, i)), uint8(cell(l, from))
				}
				s.nm++
			}
		}
	}
	addLines(axisRow, rows, cols, func(r, c int) int { return r*cols + c })
	addLines(axisCol, cols, rows, func(c, r int) int { return r*cols + c })
	return s, nil
}

// Prepare does nothing: the constructor built every table. It is there
// for Optimal.
func (s *Solver) Prepare() {}

// Name describes the heuristic, for a Result's solver field.
func (s *Solver) Name() string {
	if s.emdR != nil {
		return "ida*(loopover-emd)"
	}
	if s.pat != nil {
		return fmt.Sprintf("ida*(loopover-wd+p%d)", s.pat.k)
	}
	return "ida*(loopover-wd)"
}

// hval combines the two bounds with the parity the board's permutation
// forces on the move counts.
func (s *Solver) hval(hr, hc, par int) int {
	switch s.parity {
	case parTotal:
		h := hr + hc
		return h + (h^par)&1
	case parRows:
		hc += (hc ^ par) & 1
	case parCols:
		hr += (hr ^ par) & 1
	}
	return hr + hc
}

// board is a search's position: pieces as goalRow<<3 | goalCol and the
// walking-distance codes of every row and column.
type board struct {
	cells  [MaxCells]uint8
	rc, cc [MaxSide]uint32 // with EMD: the axis's index in [0]
	hr, hc int
	par    int
}

// root reads puzzle cells (1..n) into a board, checking they are a
// permutation.
func (s *Solver) root(cells []uint8) (board, error) {
	var b board
	if len(cells) != s.n {
		return b, fmt.Errorf("loopover %dx%d: %d cells, want %d: %w", s.r, s.c, len(cells), s.n, puzzle.ErrMalformed)
	}
	var seen [MaxCells + 1]bool
	var perm [MaxCells]uint8
	for i, v := range cells {
		if v < 1 || int(v) > s.n || seen[v] {
			return b, fmt.Errorf("loopover %dx%d: cells are not a permutation of 1..%d: %w", s.r, s.c, s.n, puzzle.ErrMalformed)
		}
		seen[v] = true
		p := int(v - 1)
		perm[i] = uint8(p)
		b.cells[i] = uint8(p/s.c<<3 | p%s.c)
	}
	if s.emdR != nil {
		var ar, ac [MaxSide]int
		for i, p := range b.cells[:s.n] {
			ar[(int(p>>3)-i/s.c+s.r)%s.r]++
			ac[(int(p&colMask)-i%s.c+s.c)%s.c]++
		}
		xr, xc := s.emdR.Index(ar[:s.r]), s.emdC.Index(ac[:s.c])
		b.rc[0], b.cc[0] = uint32(xr), uint32(xc)
		b.hr, b.hc = int(s.emdR.Dist[xr]), int(s.emdC.Dist[xc])
		b.par = permParity(perm[:s.n])
		return b, nil
	}
	s.walking(&b)
	b.par = permParity(perm[:s.n])
	return b, nil
}

// walking sets b's line codes and walking-distance bounds from its cells.
func (s *Solver) walking(b *board) {
	var lab [MaxSide]uint8
	for r := 0; r < s.r; r++ {
		for c := 0; c < s.c; c++ {
			lab[c] = b.cells[r*s.c+c] >> 3
		}
		b.rc[r] = uint32(s.rows.LineCode(lab[:s.c]))
	}
	for c := 0; c < s.c; c++ {
		for r := 0; r < s.r; r++ {
			lab[r] = b.cells[r*s.c+c] & colMask
		}
		b.cc[c] = uint32(s.cols.LineCode(lab[:s.r]))
	}
	b.hr = int(s.rows.Dist[s.rows.index(&b.rc)])
	b.hc = int(s.cols.Dist[s.cols.index(&b.cc)])
}

// permParity is 0 for an even permutation, 1 for odd.
func permParity(p []uint8) int {
	var seen [MaxCells]bool
	par := 0
	for i := range p {
		if seen[i] {
			continue
		}
		for j := i; !seen[j]; j = int(p[j]) {
			seen[j] = true
			par ^= 1
		}
		par ^= 1 // a cycle of length k is k−1 transpositions
	}
	return par
}

// Heuristic is the admissible bound the search uses for cells (1..n).
func (s *Solver) Heuristic(cells []uint8) (int, error) {
	b, err := s.root(cells)
	if err != nil {
		return 0, err
	}
	h := s.hval(b.hr, b.hc, b.par)
	if s.pat != nil {
		h = max(h, s.pat.bound(&s.pat.root55(&b).pos))
	}
	return h, nil
}

type work struct {
	*Solver
	b     board
	path  []uint8
	bound int
	next  int
	gate  search.Gate // counts the nodes, stops the search

	// A worker of a parallel iteration (shared nil when searching alone):
	// the nodes at depth split are work items (see search.Items); a worker
	// descends only into those it claimed.
	shared *search.Shared
	split  int // −1 alone
	items  search.Items

	k55 []kids55             // dfs55's children per depth
	n55 [][4 * side55]node55 // and their pattern states, with a pattern bound
}

// claim numbers a work item of a parallel iteration and reports whether
// this worker explores it; it stops the worker when another has found
// the goal or run out.
func (w *work) claim() bool {
	mine, stop := w.items.Claim()
	if stop {
		w.gate.Stopped = true
	}
	return mine
}

// Solve runs IDA* from cells (1..n row-major) to the goal. Path holds
// move codes (see Moves). When the budget runs out it returns
// search.ErrBudgetExceeded with the lower bound proved so far. The caller
// checks solvability: on an unreachable board the search runs until its
// budget ends it.
func (s *Solver) Solve(cells []uint8, bud search.Budget) (search.Outcome, error) {
	return s.SolveParallel(cells, bud, 1)
}

// SolveParallel is Solve on up to workers goroutines (workers ≤ 1: alone).
// Small iterations run alone; once one passes search.ParallelAbove nodes,
// the following ones share their subtrees among the workers (see
// internal/search). The answer is as short as the one-worker answer but
// may be another path; Nodes counts every worker's nodes.
func (s *Solver) SolveParallel(cells []uint8, bud search.Budget, workers int) (search.Outcome, error) {
	b, err := s.root(cells)
	if err != nil {
		return search.Outcome{}, err
	}
	w := &work{Solver: s, b: b, gate: search.NewGate(bud), split: -1}
	iter := func(w *work) (int, bool) { return w.dfs(0, b.rc, b.cc, b.hr, b.hc, b.par, 0xff, 0) }
	h0 := s.hval(b.hr, b.hc, b.par)
	if s.uses55() {
		var rc, cc codes55
		for i := range rc {
			rc[i], cc[i] = uint16(b.rc[i]), uint16(b.cc[i])
		}
		var nd *node55
		if s.pat != nil {
			nd = s.pat.root55(&b)
			h0 = max(h0, s.pat.bound(&nd.pos))
		}
		iter = func(w *work) (int, bool) { return w.dfs55(0, rc, cc, b.hr, b.hc, 0xff, 0, nd) }
	}
	t := tree[*work]{walker[*work]{w, w, iter}, func(c *work) (*work, *work) { return c, c }}
	return search.Deepen(t, search.Deepening{H0: h0, Workers: workers})
}

// tree is a search as search.Deepen drives it: iter searches from the
// root with w, whose general part is base (w itself, or the work a 4×4
// search embeds); fork makes a worker's W around a copy of base.
type tree[W any] struct {
	walker[W]
	fork func(c *work) (W, *work)
}

// Iterate is one iteration alone to it.Bound.
func (t tree[W]) Iterate(it search.Iteration) (search.Pass, int64) {
	b := t.base
	b.bound = it.Bound
	b.grow()
	return search.Alone(&b.gate, &b.next, b.path, func() (int, bool) { return t.iter(t.w) })
}

// Walker is a copy of the start to bound for one goroutine of a
// parallel iteration, or for a walk of its top, at depth split.
func (t tree[W]) Walker(bound int, sh *search.Shared, split int, walk bool) search.Walker {
	c := *t.base
	c.bound = bound
	c.gate = t.base.gate.Worker(sh)
	c.path, c.k55, c.n55 = nil, nil, nil // its own, not the root's
	c.grow()
	c.next = search.NoNext
	c.shared, c.split, c.items = sh, split, search.NewItems(sh, walk)
	w, base := t.fork(&c)
	return walker[W]{w, base, t.iter}
}

// grow sizes the path, and dfs55's per-depth children, for w.bound.
func (w *work) grow() {
	w.path = search.PathFor(w.path, w.bound)
	if w.uses55() && len(w.k55) < w.bound+1 {
		w.k55 = make([]kids55, w.bound+1)
		if w.pat != nil {
			w.n55 = make([][4 * side55]node55, w.bound+1)
		}
	}
}

// walker is a worker as search.IterateParallel drives it: iter searches
// from the root with w, whose general part is base.
type walker[W any] struct {
	w    W
	base *work
	iter func(W) (int, bool)
}

func (x walker[W]) Walk() search.Pass {
	d, ok := x.iter(x.w)
	b := x.base
	return search.Pass{D: d, OK: ok, Stopped: !ok && b.shared.Out.Load(), Next: b.next, Path: b.path, Items: b.items.Met()}
}

func (x walker[W]) Nodes() int64 { return x.base.gate.Nodes }

// dfs explores below a node at depth g. last is the previous move code
// (0xff at the root) and run how many unit shifts of last's line in last's
// direction end the path.
func (w *work) dfs(g int, rc, cc [MaxSide]uint32, hr, hc, par int, last uint8, run int) (int, bool) {
	if g == w.split && !w.claim() {
		return 0, false
	}
	if w.gate.Visit() {
		return 0, false
	}
	if hr+hc == 0 {
		return g, true // every row holds its own pieces and every column too: solved
	}
	s := w.Solver
	lastAxis, lastLine, lastDir := uint8(2), uint8(0), uint8(0)
	if last != 0xff {
		lastAxis, lastLine, lastDir = s.axis[last], s.line[last], s.dir[last]
	}
	cells := &w.b.cells
	// Children within the bound are collected first and expanded those
	// whose bound dropped first: the last iteration stops at the first
	// solution, and it lies below a dropping bound far more often.
	var kids [4 * MaxSide]child
	nk, down := 0, 0
	for m := 0; m < s.nm; m++ {
		ax, ln, dr := s.axis[m], s.line[m], s.dir[m]
		nrun := 1
		if ax == lastAxis {
			if ln < lastLine {
				continue // shifts of different lines commute: take them in line order
			}
			if ln == lastLine {
				if dr != lastDir {
					continue
				}
				nrun = run + 1
			}
		}
		if nrun > s.maxRun[ax][dr] {
			continue
		}
		npar := par ^ s.movPar[ax]
		// The shift changes one code per perpendicular line: the piece
		// leaving cell k for its neighbour and the one arriving from src.
		mv := &s.mv[m]
		codes, shift, mask, old := &cc, uint8(0), uint8(colMask), hc
		if ax == axisCol {
			codes, shift, mask, old = &rc, 3, 0xff, hr
		}
		k := &kids[nk]
		var nh int
		if s.emdR != nil {
			// Every piece of the line moves one cell: its displacement
			// class d (goal line − line, cyclically) becomes d∓1.
			e := s.emdC
			if ax == axisCol {
				e = s.emdR
			}
			delta, L, x := &e.Down, e.Lines, int(codes[0])
			if dr == 1 {
				delta = &e.Up
			}
			for i := 0; i < mv.n; i++ {
				d := int((cells[mv.cell[i]]>>shift)&mask) - i
				if d < 0 {
					d += L
				}
				x += delta[d]
			}
			k.codes[0] = uint32(x)
			nh = int(e.Dist[x])
		} else {
			t := s.cols
			if ax == axisCol {
				t = s.rows
			}
			// The last perpendicular line's code is not computed (the
			// child's stays zero): the index leaves it out (the last
			// line holds what the others do not) and a line's next code
			// follows from its own, so no bound ever reads it.
			L, x := t.Lines, 0
			for i := 0; i < mv.n-1; i++ {
				out := (cells[mv.cell[i]] >> shift) & mask
				in := (cells[mv.src[i]] >> shift) & mask
				nc := t.Trans[(int(codes[i])*L+int(out))*L+int(in)]
				k.codes[i] = uint32(nc)
				x += int(nc) * t.mul[i]
			}
			// The table read waits for the second pass, so that the
			// children's reads (cache misses in a big table) overlap.
			k.x, k.m, k.run, k.par, k.old = uint32(x), uint8(m), uint8(nrun), uint8(npar), uint8(old)
			nk++
			continue
		}
		var f int
		if ax == axisRow {
			f = g + 1 + s.hval(hr, nh, npar)
		} else {
			f = g + 1 + s.hval(nh, hc, npar)
		}
		if f > w.bound {
			if f < w.next {
				w.next = f
			}
			continue
		}
		k.m, k.h, k.run, k.par = uint8(m), uint8(nh), uint8(nrun), uint8(npar)
		if nh < old {
			kids[nk], kids[down] = kids[down], kids[nk]
			down++
		}
		nk++
	}
	if s.emdR == nil {
		nk = w.bound2(&kids, nk, g, hr, hc)
	}
	for i := 0; i < nk; i++ {
		k := &kids[i]
		m := int(k.m)
		w.shift(m)
		w.path[g] = k.m
		var d int
		var ok bool
		if s.axis[m] == axisRow {
			d, ok = w.dfs(g+1, rc, k.codes, hr, int(k.h), int(k.par), k.m, int(k.run))
		} else {
			d, ok = w.dfs(g+1, k.codes, cc, int(k.h), hc, int(k.par), k.m, int(k.run))
		}
		if ok {
			return d, true
		}
		w.shift(m ^ 1) // the opposite shift undoes it
		if w.gate.Stopped {
			return 0, false
		}
	}
	return 0, false
}

// child is a move within the bound and the position it leads to.
type child struct {
	codes          [MaxSide]uint32 // the changed axis's line codes (EMD: its index)
	x              uint32          // walking distance: the changed axis's index
	m, h, run, par uint8
	old            uint8 // the changed axis's bound at the parent
}

// bound2 is the walking-distance search's second pass over the nk
// candidate children: it reads their bounds, keeps those within the
// bound (the ones whose bound dropped first) and returns how many.
func (w *work) bound2(kids *[4 * MaxSide]child, nk, g, hr, hc int) int {
	s := w.Solver
	n, down := 0, 0
	for i := 0; i < nk; i++ {
		k := kids[i]
		var f int
		if s.axis[k.m] == axisRow {
			k.h = s.cols.Dist[k.x]
			f = g + 1 + s.hval(hr, int(k.h), int(k.par))
		} else {
			k.h = s.rows.Dist[k.x]
			f = g + 1 + s.hval(int(k.h), hc, int(k.par))
		}
		if f > w.bound {
			if f < w.next {
				w.next = f
			}
			continue
		}
		kids[n] = k
		if k.h < k.old {
			kids[n], kids[down] = kids[down], kids[n]
			down++
		}
		n++
	}
	return n
}

// shift applies move code m to the search board.
func (w *work) shift(m int) {
	s := w.Solver
	cells := &w.b.cells
	C := s.c
	ln := int(s.line[m])
	if s.axis[m] == axisRow {
		row := cells[ln*C : ln*C+C]
		if s.dir[m] == 0 { // right
			t := row[C-1]
			copy(row[1:], row[:C-1])
			row[0] = t
		} else {
			t := row[0]
			copy(row, row[1:])
			row[C-1] = t
		}
		return
	}
	R := s.r
	if s.dir[m] == 0 { // down
		t := cells[(R-1)*C+ln]
		for r := R - 1; r > 0; r-- {
			cells[r*C+ln] = cells[(r-1)*C+ln]
		}
		cells[ln] = t
	} else {
		t := cells[ln]
		for r := 0; r+1 < R; r++ {
			cells[r*C+ln] = cells[(r+1)*C+ln]
		}
		cells[(R-1)*C+ln] = t
	}
}

// Moves converts a path of move codes to puzzle moves.
func (s *Solver) Moves(path []uint8) []puzzle.Move {
	out := make([]puzzle.Move, len(path))
	for i, m := range path {
		mv := puzzle.Move{Line: int(s.line[m])}
		switch {
		case s.axis[m] == axisRow && s.dir[m] == 0:
			mv.Dir = puzzle.Right
		case s.axis[m] == axisRow:
			mv.Dir = puzzle.Left
		case s.dir[m] == 0:
			mv.Dir = puzzle.Down
		default:
			mv.Dir = puzzle.Up
		}
		out[i] = mv
	}
	return out
}
