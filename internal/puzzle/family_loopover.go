package puzzle

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
)

// loopoverFamily: Loopover boards. Pieces 1..N (letters A.. too), goal
// ascending row-major; "<n>R"/"<n>L" shift row n, "<n>D"/"<n>U" column n,
// by one cell with wrap-around.
type loopoverFamily struct{ facts }

var loopoverRules = loopoverFamily{facts{
	kind:    Loopover,
	name:    "loopover",
	maxSide: MaxSide,
	space:   PieceOrder,
	// pathParity: not in general; going round a line of odd length
	// returns to the same board in an odd number of moves.
	unique:     true,
	letterRuns: true,
	want:       "a piece number or letter",
	moveLen:    4,
}}

func (loopoverFamily) Arrangements(sp Spec) *big.Int { return arrangementsOf(sp.Cells()) }

func (loopoverFamily) CellRange(n int) (lo, hi int)  { return 1, n }
func (loopoverFamily) TileName(v int) string         { return "piece " + strconv.Itoa(v) }
func (loopoverFamily) IsRun(tok string) bool         { return allBytes(tok, isLetter) }
func (loopoverFamily) RowRun(tok string, _ int) bool { return allBytes(tok, isLetter) }
func (loopoverFamily) GoalOfState(s State) State     { return Goal(s.Spec) }
func (loopoverFamily) CheckGoal(s, goal State) error { return checkOneGoal(s, goal) }

func (loopoverFamily) WriteState(b *strings.Builder, s State) { writeNumbers(b, s) }

func (loopoverFamily) GoalOf(sp Spec) State {
	c := make([]uint8, cellCount(sp))
	for i := range c {
		c[i] = uint8(i + 1)
	}
	return State{Spec: sp, Cells: c}
}

func (loopoverFamily) IsGoal(c []uint8) bool {
	for i, v := range c {
		if v != uint8(i+1) {
			return false
		}
	}
	return true
}

// Solvable: a row shift is a cycle of Cols pieces, a column shift one of
// Rows pieces, and a cycle of odd length is an even permutation.
func (loopoverFamily) Solvable(s State) error {
	sp := s.Spec
	if sp.Rows%2 == 0 || sp.Cols%2 == 0 {
		return nil
	}
	if inv := inversions(s.Cells, false); inv%2 == 1 {
		return fmt.Errorf("%w: %dx%d loopover has odd-length rows and columns, so every move is an even permutation; this state is an odd permutation of the goal (%s)",
			ErrUnsolvable, sp.Rows, sp.Cols, plural(inv, "inversion"))
	}
	return nil
}

var errLoopoverToken = fmt.Errorf("want <n>R, <n>L (row n) or <n>U, <n>D (column n), optionally with a repeat count (2R3): %w", ErrMalformed)

func (loopoverFamily) AppendToken(sp Spec, ms []Move, tok string) ([]Move, error) {
	bad := errLoopoverToken
	line, i, ok := readNum(tok, 0)
	if !ok || i >= len(tok) {
		return ms, bad
	}
	d, ok := dirOf(tok[i])
	if !ok {
		return ms, bad
	}
	count, i, err := readCount(tok, i+1)
	if err != nil {
		return ms, err
	}
	if i != len(tok) {
		return ms, bad
	}
	what, lim := "row", sp.Rows
	if d == Up || d == Down {
		what, lim = "column", sp.Cols
	}
	if line < 1 || line > lim {
		return ms, fmt.Errorf("%s %d is off the board (1..%d): %w", what, line, lim, ErrMalformed)
	}
	return appendRepeat(ms, Move{Dir: d, Line: line - 1}, count)
}

func (loopoverFamily) AppendMove(dst []byte, m Move) []byte {
	dst = strconv.AppendInt(dst, int64(m.Line)+1, 10)
	return append(dst, m.Dir.Letter())
}

func (loopoverFamily) ApplyMove(sp Spec, c []uint8, m Move) error { return loopoverApply(sp, c, m) }

func (loopoverFamily) ApplyAll(sp Spec, c []uint8, ms []Move) (int, error) {
	for i, m := range ms {
		if err := loopoverApply(sp, c, m); err != nil {
			return i, err
		}
	}
	return 0, nil
}

func loopoverApply(sp Spec, c []uint8, m Move) error {
	w, h := sp.Cols, sp.Rows
	switch m.Dir {
	case Left, Right:
		if m.Line < 0 || m.Line >= h {
			return fmt.Errorf("row %d is off the board (1..%d): %w", m.Line+1, h, ErrIllegalMove)
		}
		row := c[m.Line*w : m.Line*w+w]
		if m.Dir == Left { // every cell takes its right neighbour's piece
			t := row[0]
			copy(row, row[1:])
			row[w-1] = t
		} else {
			t := row[w-1]
			copy(row[1:], row[:w-1])
			row[0] = t
		}
	case Up, Down:
		if m.Line < 0 || m.Line >= w {
			return fmt.Errorf("column %d is off the board (1..%d): %w", m.Line+1, w, ErrIllegalMove)
		}
		col := m.Line
		if m.Dir == Up { // every cell takes the piece below it
			t := c[col]
			for r := 0; r+1 < h; r++ {
				c[r*w+col] = c[(r+1)*w+col]
			}
			c[(h-1)*w+col] = t
		} else {
			t := c[(h-1)*w+col]
			for r := h - 1; r > 0; r-- {
				c[r*w+col] = c[(r-1)*w+col]
			}
			c[col] = t
		}
	default:
		return fmt.Errorf("unknown direction: %w", ErrIllegalMove)
	}
	return nil
}

// LegalMoves: every row L, R then every column U, D (on a line of two
// cells L and R are the same permutation; both are listed).
func (loopoverFamily) LegalMoves(s State) []Move {
	w, h := s.Spec.Cols, s.Spec.Rows
	ms := make([]Move, 0, 2*(h+w))
	for r := 0; r < h; r++ {
		ms = append(ms, Move{Dir: Left, Line: r}, Move{Dir: Right, Line: r})
	}
	for c := 0; c < w; c++ {
		ms = append(ms, Move{Dir: Up, Line: c}, Move{Dir: Down, Line: c})
	}
	return ms
}

// FixParity swaps the first two cells of an odd permutation when both
// sides are odd (only even permutations reachable); otherwise every
// permutation is.
func (loopoverFamily) FixParity(s State) {
	c, sp := s.Cells, s.Spec
	if sp.Rows%2 == 1 && sp.Cols%2 == 1 && inversions(c, false)%2 == 1 {
		c[0], c[1] = c[1], c[0]
	}
}

// Walk never shifts the line just shifted back (on a line of two cells
// left and right are one move, so that line is not shifted twice in a row).
func (loopoverFamily) Walk(s State, rng *rand.Rand, length int, ms []Move, record bool) []Move {
	w, h := s.Spec.Cols, s.Spec.Rows
	// The distinct generators: a two-cell line has one shift.
	var gen []Move
	for r := 0; r < h; r++ {
		if w > 2 {
			gen = append(gen, Move{Dir: Left, Line: r})
		}
		gen = append(gen, Move{Dir: Right, Line: r})
	}
	for col := 0; col < w; col++ {
		if h > 2 {
			gen = append(gen, Move{Dir: Up, Line: col})
		}
		gen = append(gen, Move{Dir: Down, Line: col})
	}
	excl := -1 // index in gen of the move undoing the previous one
	for k := 0; k < length; k++ {
		var i int
		if excl < 0 {
			i = rng.IntN(len(gen))
		} else {
			i = rng.IntN(len(gen) - 1)
			if i >= excl {
				i++
			}
		}
		m := gen[i]
		_ = loopoverApply(s.Spec, s.Cells, m) // generators are on the board
		if record {
			ms = append(ms, m)
		}
		excl = i
		lineLen := w
		if m.Dir == Up || m.Dir == Down {
			lineLen = h
		}
		if lineLen > 2 { // the opposite shift sits next to it in gen
			if m.Dir == Left || m.Dir == Up {
				excl = i + 1
			} else {
				excl = i - 1
			}
		}
	}
	return ms
}
