// Package construct is a constructive Loopover solver for every board from
// 2×2 to 8×8: fast and always successful, though longer than optimal. It
// is the fallback that keeps any Loopover job from being refused for its
// size.
//
// Method. The board is solved as a growing solved rectangle. Each step
// completes one line along a side of the rectangle (the row below or
// above it, the column right or left of it: whichever is cheapest per
// piece when tried). The new line is assembled as pieces that float
// together along it, and every piece enters it through a column (row) that
// crosses no solved cell, so no move ever has to be undone. That works
// until the rectangle is (R−1)×(C−1). The remaining row and column (the
// "L") are then solved optimally in their own rotations from a table when
// R+C−1 ≤ 9; on larger boards the column is built the same way except for
// its last cell, and the row plus that cell are finished from a table of
// cheapest sequences of rotations and 3-cycles. When a side is even that
// last row is chosen of even length: its rotation is then an odd
// permutation and fixes parity for free.
//
// Several starting points are tried and the shortest answer kept. A board
// with many pieces at home is first searched for moves that undo its
// scramble (undo.go). The moves are merged and cancelled across commuting
// shifts (simplify.go), and every answer is replayed before it is
// returned.
package construct

import (
	"fmt"
	"sync"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

const maxCells = puzzle.MaxSide * puzzle.MaxSide

// lookWidth is how many of the cheapest insertions are weighed by what
// they leave for the next one.
const lookWidth = 8

// Solve returns moves that take cells (a Loopover board of rows×cols,
// pieces 1..rows·cols, goal ascending row-major) to the goal.
func Solve(rows, cols int, cells []uint8) (ms []puzzle.Move, err error) {
	st := puzzle.State{Spec: puzzle.Spec{Kind: puzzle.Loopover, Rows: rows, Cols: cols}, Cells: cells}
	// Solvable validates first: malformed input wraps ErrMalformed, an odd
	// permutation of an odd×odd board ErrUnsolvable.
	if err := puzzle.Solvable(st); err != nil {
		return nil, err
	}
	// A bug must cost one job, not the worker.
	defer func() {
		if r := recover(); r != nil {
			ms, err = nil, fmt.Errorf("%s: internal error: %v", st.Spec, r)
		}
	}()
	scr := scratchPool.Get().(*scratch)
	defer scratchPool.Put(scr)
	s0 := solver{rows: rows, cols: cols, scr: scr}
	s0.load(cells)
	best, bestLen, err := attempts(&s0, nil, scr.best[:0], 1<<30)
	if err != nil {
		return nil, err
	}
	if homeCount(&s0.cell, rows*cols)*4 >= rows*cols {
		if path, end, ok := s0.undo(); ok {
			s0.cell = end
			for c, p := range end[:rows*cols] {
				s0.pos[p] = uint8(c)
			}
			if cand, n, err := attempts(&s0, path, scr.cand[:0], bestLen); err != nil {
				return nil, err
			} else if n < bestLen {
				scr.cand = best
				best, bestLen = cand, n
			} else {
				scr.cand = cand
			}
		}
	}
	scr.best = best
	ms = simplify(rows, cols, best, scr, make([]puzzle.Move, 0, bestLen))
	// Never hand out a wrong answer: replay it.
	chk := st.Clone()
	if err := chk.ApplyMoves(ms); err != nil || !chk.IsGoal() {
		return nil, fmt.Errorf("%s: internal error: constructed moves do not reach the goal", st.Spec)
	}
	return ms, nil
}

// attempts solves the board of s0 from each start, each answer preceded
// by prefix, and returns the shortest answer (in best's storage) and its
// length once simplified. Attempts that grow longer than bestLen are
// abandoned; if all are, best comes back empty with length bestLen.
func attempts(s0 *solver, prefix, best []shift, bestLen int) ([]shift, int, error) {
	rows, cols, scr := s0.rows, s0.cols, s0.scr
	found := false
	for k := 0; k < nStarts(rows*cols); k++ {
		s := *s0
		s.out = append(scr.out[:0], prefix...)
		s.raw = rawLen(rows, cols, prefix)
		s.limit = bestLen + bestLen/32 + 2
		done, err := s.solve(startAt(k))
		if err != nil {
			return nil, 0, err
		}
		scr.out = s.out
		if !done {
			continue // already longer than the best: abandoned
		}
		if n := movesLen(rows, cols, s.out, scr); n < bestLen {
			best, bestLen, found = append(best[:0], s.out...), n, true
		}
	}
	if !found {
		best = best[:0]
	}
	return best, bestLen, nil
}

// start is where the first line goes: view row 0 of the view at (tv, oi,
// oj), w cells long.
type start struct {
	tv     bool
	oi, oj int
	w      int
}

// startAt is the k-th attempt: attempts differ in the first line's place,
// direction and length.
func startAt(k int) start {
	return start{tv: k%2 == 1, oi: k / 2 * 3, oj: k / 2 * 5, w: 2 + k/2%2}
}

// nStarts is the number of attempts: more on small boards, fewer on big
// ones, so that a solve stays around a quarter of a millisecond (each
// doubling of attempts saves about 3% of the moves).
func nStarts(cells int) int {
	switch {
	case cells <= 16:
		return 8
	case cells <= 30:
		return 6
	case cells <= 42:
		return 4
	case cells <= 56:
		return 3
	}
	return 2
}

// solver holds the board: cell[c] is the piece (0-based) in cell c,
// pos[p] the cell of piece p, so piece p belongs in cell p.
type solver struct {
	rows, cols int
	cell       [maxCells]uint8
	pos        [maxCells]uint8
	out        []shift
	dry        bool // lookahead copy: moves are made but not recorded
	quick      bool // no lookahead: a trial of which line to build next
	raw        int  // unit moves recorded so far
	limit      int  // give up past this many: another attempt is shorter
	scr        *scratch
}

// scratch holds buffers reused across attempts and calls.
type scratch struct {
	opts, next [puzzle.MaxSide * puzzle.MaxSide]insertion
	out, best  []shift
	cand       []shift
	worth      [maxCells][maxCells]int8
	nodes      []undoNode
	trial      [4][]shift
	runs       []run
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func (s *solver) load(cells []uint8) {
	for c, v := range cells {
		s.cell[c] = v - 1
		s.pos[v-1] = uint8(c)
	}
}

// shiftRow shifts row i by k: each cell takes the piece k cells to its
// right.
func (s *solver) shiftRow(i, k int) {
	n := s.cols
	if k = short(k, n); k == 0 {
		return
	}
	base := i * n
	var tmp [puzzle.MaxSide]uint8
	copy(tmp[:n], s.cell[base:base+n])
	src := mod(k, n)
	for j := 0; j < n; j++ {
		p := tmp[src]
		s.cell[base+j] = p
		s.pos[p] = uint8(base + j)
		if src++; src == n {
			src = 0
		}
	}
	if !s.dry {
		s.out = append(s.out, shift{line: int8(i), k: int8(k)})
		s.raw += dist(k, n)
	}
}

// shiftCol shifts column j by k: each cell takes the piece k cells below
// it.
func (s *solver) shiftCol(j, k int) {
	n, w := s.rows, s.cols
	if k = short(k, n); k == 0 {
		return
	}
	var tmp [puzzle.MaxSide]uint8
	for i := 0; i < n; i++ {
		tmp[i] = s.cell[i*w+j]
	}
	src := mod(k, n)
	for i := 0; i < n; i++ {
		p := tmp[src]
		c := i*w + j
		s.cell[c] = p
		s.pos[p] = uint8(c)
		if src++; src == n {
			src = 0
		}
	}
	if !s.dry {
		s.out = append(s.out, shift{col: true, line: int8(j), k: int8(k)})
		s.raw += dist(k, n)
	}
}

// view is the board seen translated, reflected and transposed, so that one
// routine builds any line along any side of the solved rectangle. View row
// i is board row oi±i (fi: minus), or with tv board column oi±i; view
// columns likewise with oj and fj.
type view struct {
	s      *solver
	tv     bool
	fi, fj bool
	oi, oj int
	nr, nc int
}

func (s *solver) view(tv, fi, fj bool, oi, oj int) view {
	v := view{s: s, tv: tv, fi: fi, fj: fj, nr: s.rows, nc: s.cols}
	if tv {
		v.nr, v.nc = s.cols, s.rows
	}
	v.oi, v.oj = mod(oi, v.nr), mod(oj, v.nc)
	return v
}

// transpose is the same view with rows and columns exchanged.
func (v view) transpose() view {
	return view{s: v.s, tv: !v.tv, fi: v.fj, fj: v.fi, oi: v.oj, oj: v.oi, nr: v.nc, nc: v.nr}
}

// lineOf maps a view row (column) to the board line before transposition;
// unline maps back.
func lineOf(x, o, n int, f bool) int {
	if f {
		return mod(o-x, n)
	}
	return mod(o+x, n)
}

func unline(y, o, n int, f bool) int {
	if f {
		return mod(o-y, n)
	}
	return mod(y-o, n)
}

// cellOf is the board cell of view cell (i, j).
func (v view) cellOf(i, j int) int {
	y, x := lineOf(i, v.oi, v.nr, v.fi), lineOf(j, v.oj, v.nc, v.fj)
	if v.tv {
		y, x = x, y
	}
	return y*v.s.cols + x
}

// viewOf is the view cell of board cell c.
func (v view) viewOf(c int) (int, int) {
	y, x := c/v.s.cols, c%v.s.cols
	if v.tv {
		y, x = x, y
	}
	return unline(y, v.oi, v.nr, v.fi), unline(x, v.oj, v.nc, v.fj)
}

func (v view) shiftRow(i, k int) {
	if v.fj {
		k = -k
	}
	if y := lineOf(i, v.oi, v.nr, v.fi); v.tv {
		v.s.shiftCol(y, k)
	} else {
		v.s.shiftRow(y, k)
	}
}

func (v view) shiftCol(j, k int) {
	if v.fi {
		k = -k
	}
	if x := lineOf(j, v.oj, v.nc, v.fj); v.tv {
		v.s.shiftRow(x, k)
	} else {
		v.s.shiftCol(x, k)
	}
}

// home is the piece whose goal is view cell (i, j).
func (v view) home(i, j int) uint8 { return uint8(v.cellOf(i, j)) }

// where is the view cell holding piece p.
func (v view) where(p uint8) (int, int) { return v.viewOf(int(v.s.pos[p])) }

// homeOf is the view cell of piece p's goal.
func (v view) homeOf(p uint8) (int, int) { return v.viewOf(int(p)) }

func (v view) at(i, j int) uint8 { return v.s.cell[v.cellOf(i, j)] }

// rect is the solved rectangle: rows top.., columns left.. (cyclically).
type rect struct{ top, left, h, w int }

// grow is one way to extend r by a line: the view in which r is rows
// [0, a) × columns [0, wr) and the line is row a.
func (s *solver) grow(r rect, dir int) (v view, a, wr int) {
	switch dir {
	case 0: // the row below
		return s.view(false, false, false, r.top, r.left), r.h, r.w
	case 1: // the row above
		return s.view(false, true, false, r.top+r.h-1, r.left), r.h, r.w
	case 2: // the column to the right
		return s.view(true, false, false, r.left, r.top), r.w, r.h
	}
	// the column to the left
	return s.view(true, true, false, r.left+r.w-1, r.top), r.w, r.h
}

func (r rect) grown(dir int) rect {
	switch dir {
	case 0:
		r.h++
	case 1:
		r.top--
		r.h++
	case 2:
		r.w++
	default:
		r.left--
		r.w++
	}
	return r
}

// solve runs one attempt; done is false when it was abandoned for
// exceeding s.limit (whose margin allows for simplification, which rarely
// saves more than 3% of the raw moves).
func (s *solver) solve(st start) (done bool, err error) {
	R, C := s.rows, s.cols
	v0 := s.view(st.tv, false, false, st.oi, st.oj)
	w0 := min(st.w, v0.nc-1)
	s.extend(v0, 0, w0, w0)
	r := rect{top: v0.oi, left: v0.oj, h: 1, w: w0}
	if st.tv {
		r = rect{top: v0.oj, left: v0.oi, h: w0, w: 1}
	}
	for r.h < R-1 || r.w < C-1 {
		// Try each side the rectangle can still grow on; keep the
		// cheapest per piece.
		best, bestCost, bestN := -1, 0, 1
		for dir := 0; dir < 4; dir++ {
			if dir < 2 && r.h == R-1 || dir >= 2 && r.w == C-1 {
				continue
			}
			t := *s
			t.quick = true
			t.out = s.scr.trial[dir][:0]
			v, a, wr := t.grow(r, dir)
			t.extend(v, a, wr, wr)
			s.scr.trial[dir] = t.out
			cost := rawLen(R, C, t.out)
			if best < 0 || cost*bestN < bestCost*wr {
				best, bestCost, bestN = dir, cost, wr
			}
		}
		v, a, wr := s.grow(r, best)
		s.extend(v, a, wr, wr)
		r = r.grown(best)
		if s.raw > s.limit {
			return false, nil
		}
	}
	base := s.view(false, false, false, r.top, r.left)
	if R+C-1 <= maxL {
		if base.nr > base.nc {
			base = base.transpose()
		}
		return true, s.finishL(base)
	}
	// The last line has even length whenever a side is even, so that its
	// rotation can fix an odd permutation. The cell above its end is left
	// as a buffer for cheap 3-cycles.
	fin, other := base, base.transpose()
	if C%2 == 1 && R%2 == 0 {
		fin, other = other, fin
	}
	n := fin.nc
	s.extend(other, n-1, fin.nr-2, fin.nr-1)
	return true, s.finish(fin, fin.nr-1)
}

// rawLen is the number of unit moves of shifts before simplification.
func rawLen(rows, cols int, sh []shift) int {
	n := 0
	for _, m := range sh {
		if m.col {
			n += dist(int(m.k), rows)
		} else {
			n += dist(int(m.k), cols)
		}
	}
	return n
}

// Insertion kinds.
const (
	inPlace = iota // the piece already sits in its slot
	through        // enters along a free column
	extract        // lies in the line: lifted out and dropped back into the slot
)

// insertion places the piece of target column t: kind, the free column f
// it goes through, the line's offset after it and its cost in moves.
type insertion struct {
	t, kind, f, off, cost int
}

// line is the state of a line being built: the target columns in placed
// hold their pieces, target column t sitting in column t+off. Placed
// pieces need not be contiguous: a hole is filled like any slot.
type line struct {
	a, w, wr, n, off int // wr: width of the solved rows above
	placed           uint8
}

func (l *line) done() bool { return l.n == l.w }

// options appends every way of placing one more piece of the line, in any
// order: a piece already in its slot costs nothing; a piece elsewhere in
// the line is lifted out along a free column and dropped back once the
// line has turned its slot under it (extract); any other comes along its
// row, if that row is free, to a free column, which the line turns its
// slot to, and up that column (through). The cost of the last piece
// includes turning the finished line home.
func (s *solver) options(v view, l *line, dst []insertion) []insertion {
	nc, nr := v.nc, v.nr
	a, w := l.a, l.w
	free := func(f int) bool { return a == 0 || f >= l.wr }
	empty := l.n == 0
	last := l.n == w-1
	add := func(c insertion) {
		if last {
			c.cost += dist(c.off, nc)
		}
		dst = append(dst, c)
	}
	consider := func(t int) {
		p := v.home(a, t)
		i, y := v.where(p)
		s0 := mod(t+l.off, nc)
		if i == a {
			if empty {
				add(insertion{t: t, kind: inPlace, off: y - t})
				return
			}
			if y == s0 {
				add(insertion{t: t, kind: inPlace, off: l.off})
				return
			}
			for f := 0; f < nc; f++ {
				if free(f) {
					add(insertion{t: t, kind: extract, f: f, off: f - t, cost: dist(f-y, nc) + 2 + dist(y-s0, nc)})
				}
			}
			return
		}
		vert := dist(a-i, nr)
		for f := 0; f < nc; f++ {
			if !free(f) {
				continue
			}
			c := vert
			if !empty {
				c += dist(f-s0, nc)
			}
			if y != f {
				if i < a {
					continue // solved row: p can only move along its free column
				}
				c += dist(f-y, nc)
			}
			add(insertion{t: t, kind: through, f: f, off: f - t, cost: c})
		}
	}
	for t := 0; t < w; t++ {
		if l.placed&(1<<t) == 0 {
			consider(t)
		}
	}
	return dst
}

// insert makes the moves of ins.
func (s *solver) insert(v view, l *line, ins insertion) {
	a, t, f := l.a, ins.t, ins.f
	p := v.home(a, t)
	switch ins.kind {
	case through:
		if l.n > 0 {
			v.shiftRow(a, t+l.off-f)
		}
		i, y := v.where(p)
		v.shiftRow(i, y-f)
		v.shiftCol(f, i-a)
	case extract:
		_, y := v.where(p)
		v.shiftRow(a, y-f)
		off := l.off - (y - f)
		v.shiftCol(f, 1)
		v.shiftRow(a, t+off-f)
		v.shiftCol(f, -1)
	}
	l.off = ins.off
	l.placed |= 1 << t
	l.n++
}

// extend builds view row a over view columns [0, w), given that the cells
// of rows [0, a) in columns [0, wr) are solved (w ≤ wr). The placed pieces
// float together along row a; a free column (one without a solved cell)
// takes the next piece into its slot once row a has turned the slot to
// it, so nothing solved is ever disturbed. Each insertion is chosen by its
// cost plus that of the cheapest insertion after it (among the lookWidth
// cheapest; trials of which line to build next take the cheapest).
func (s *solver) extend(v view, a, w, wr int) {
	l := line{a: a, w: w, wr: wr}
	buf1, buf2 := s.scr.opts[:0], s.scr.next[:0]
	for !l.done() {
		opts := s.options(v, &l, buf1)
		best, bestCost := 0, 1<<30
		if l.n == w-1 || s.quick {
			for k, o := range opts {
				if o.cost < opts[best].cost {
					best = k
				}
			}
		}
		// Weigh the cheapest options first, cost level by cost level (a
		// sort would cost more than it saves).
		lowest := 1 << 30
		for _, o := range opts {
			lowest = min(lowest, o.cost)
		}
		sims := 0
		for c := lowest; l.n < w-1 && c < bestCost && sims < lookWidth && !s.quick; c++ {
			for k, o := range opts {
				if o.cost != c || sims >= lookWidth {
					continue
				}
				sims++
				sim := *s
				sim.dry = true
				sv := v
				sv.s = &sim
				sl := l
				sim.insert(sv, &sl, o)
				next := 1 << 30
				for _, o2 := range sim.options(sv, &sl, buf2) {
					next = min(next, o2.cost)
				}
				if total := c + next; total < bestCost {
					best, bestCost = k, total
				}
			}
		}
		s.insert(v, &l, opts[best])
	}
	v.shiftRow(a, l.off)
}

// finish solves view row a, the last unsolved row, and the buffer cell
// above its last cell from the table of its length.
func (s *solver) finish(v view, a int) error {
	n := v.nc
	tab := lineTableFor(n)
	var arr [maxL]uint8
	point := func(p uint8) uint8 {
		i, j := v.homeOf(p)
		if i == a {
			return uint8(j)
		}
		return uint8(n) // the buffer
	}
	for iter := 0; ; iter++ {
		for j := 0; j < n; j++ {
			arr[j] = point(v.at(a, j))
		}
		arr[n] = point(v.at(a-1, n-1))
		r := rank(arr[:n+1])
		if r == 0 {
			return nil
		}
		m := tab.next[r]
		if m == noMacro || iter > 64 {
			return fmt.Errorf("loopover %dx%d: internal error: no table entry to finish the last row", s.rows, s.cols)
		}
		for _, st := range tab.macros[m].steps {
			if st.col {
				v.shiftCol(int(st.j), int(st.k))
			} else {
				v.shiftRow(a, int(st.k))
			}
		}
	}
}

// finishL solves the last row and column of v (all else solved) from the
// L table.
func (s *solver) finishL(v view) error {
	r, c := v.nr, v.nc
	n := r + c - 1
	tab := lTableFor(r, c)
	var arr [maxL]uint8
	for iter := 0; ; iter++ {
		for j := 0; j < c; j++ {
			hi, hj := v.homeOf(v.at(r-1, j))
			arr[j] = uint8(lPoint(r, c, hi, hj))
		}
		for i := 0; i < r-1; i++ {
			hi, hj := v.homeOf(v.at(i, c-1))
			arr[c+i] = uint8(lPoint(r, c, hi, hj))
		}
		rk := rank(arr[:n])
		if rk == 0 {
			return nil
		}
		g := tab.next[rk]
		if g == noMacro || iter > 4*maxL*maxL {
			return fmt.Errorf("loopover %dx%d: internal error: no table entry to finish the last row and column", s.rows, s.cols)
		}
		k := 1 - 2*int(g&1)
		if g < 2 {
			v.shiftRow(r-1, k)
		} else {
			v.shiftCol(c-1, k)
		}
	}
}
