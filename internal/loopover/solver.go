package loopover

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// Solver is optimal IDA* for any board shape with the sum of the two
// axes' walking-distance bounds or, where those tables do not fit, of
// their enhanced Manhattan distances. It is immutable and safe for
// concurrent use. internal/loopover/optimal chooses it by shape; the 4×4
// and 5×5 searches (ida44, ida55) build on it.
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
}

// lineShift is what one move changes: the cells of its line, in the order
// of the perpendicular lines whose codes change, and for each the cell its
// new piece comes from.
type lineShift struct {
	n         int
	cell, src [MaxSide]uint8
}

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
		// building one halves a 4×4 solver's start, which the first
		// state of a process waits for.
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
	addLines(AxisRow, rows, cols, func(r, c int) int { return r*cols + c })
	addLines(AxisCol, cols, rows, func(c, r int) int { return r*cols + c })
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

// Bound is the bound of b's two axes with the parity its permutation
// forces on the move counts.
func (s *Solver) Bound(b *Board) int { return s.hval(b.HR, b.HC, b.Par) }

// Move is what move code m does: its axis (AxisRow, AxisCol), its line and
// its direction (0 positive: right or down; 1 negative).
func (s *Solver) Move(m uint8) (axis, line, dir uint8) { return s.axis[m], s.line[m], s.dir[m] }

// MaxRun is how many unit shifts of one line one way a path of the search
// makes in a row at most, per axis and direction.
func (s *Solver) MaxRun(axis, dir uint8) int { return s.maxRun[axis][dir] }

// Tables are the walking-distance tables of the rows (bounding column
// shifts) and of the columns (bounding row shifts); nil with EMD.
func (s *Solver) Tables() (rows, cols *WD) { return s.rows, s.cols }

// Root reads puzzle cells (1..n) into a board, checking they are a
// permutation.
func (s *Solver) Root(cells []uint8) (Board, error) {
	var b Board
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
		b.Cells[i] = uint8(p/s.c<<3 | p%s.c)
	}
	if s.emdR != nil {
		var ar, ac [MaxSide]int
		for i, p := range b.Cells[:s.n] {
			ar[(int(p>>3)-i/s.c+s.r)%s.r]++
			ac[(int(p&ColMask)-i%s.c+s.c)%s.c]++
		}
		xr, xc := s.emdR.Index(ar[:s.r]), s.emdC.Index(ac[:s.c])
		b.RC[0], b.CC[0] = uint32(xr), uint32(xc)
		b.HR, b.HC = int(s.emdR.Dist[xr]), int(s.emdC.Dist[xc])
		b.Par = permParity(perm[:s.n])
		return b, nil
	}
	s.walking(&b)
	b.Par = permParity(perm[:s.n])
	return b, nil
}

// walking sets b's line codes and walking-distance bounds from its cells.
func (s *Solver) walking(b *Board) {
	var lab [MaxSide]uint8
	for r := 0; r < s.r; r++ {
		for c := 0; c < s.c; c++ {
			lab[c] = b.Cells[r*s.c+c] >> 3
		}
		b.RC[r] = uint32(s.rows.LineCode(lab[:s.c]))
	}
	for c := 0; c < s.c; c++ {
		for r := 0; r < s.r; r++ {
			lab[r] = b.Cells[r*s.c+c] & ColMask
		}
		b.CC[c] = uint32(s.cols.LineCode(lab[:s.r]))
	}
	b.HR = int(s.rows.Dist[s.rows.index(&b.RC)])
	b.HC = int(s.cols.Dist[s.cols.index(&b.CC)])
}

// Heuristic is the admissible bound the search uses for cells (1..n).
func (s *Solver) Heuristic(cells []uint8) (int, error) {
	b, err := s.Root(cells)
	if err != nil {
		return 0, err
	}
	return s.Bound(&b), nil
}

// Moves converts a path of move codes to puzzle moves.
func (s *Solver) Moves(path []uint8) []puzzle.Move {
	out := make([]puzzle.Move, len(path))
	for i, m := range path {
		mv := puzzle.Move{Line: int(s.line[m])}
		switch {
		case s.axis[m] == AxisRow && s.dir[m] == 0:
			mv.Dir = puzzle.Right
		case s.axis[m] == AxisRow:
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
