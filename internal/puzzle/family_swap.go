package puzzle

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
)

// swapFamily: 0/1 swap boards. Cells 0 or 1; the goal puts the ones in the
// first cells row-major (or is any board with as many ones); "<r>,<c>R"
// swaps a cell with its right neighbour, "<r>,<c>D" with the one below.
type swapFamily struct{ facts }

var swapRules = swapFamily{facts{
	kind:      Swap,
	name:      "swap",
	maxSide:   MaxSwapSide,
	takesGoal: true, // any board with as many ones
	// space: none; the exact distance is a matching, at any size.
	// pathParity: swaps do keep it (each moves a one to a neighbouring
	// cell, changing the ones' summed row + column by one), but the
	// producer's walk lengthening has only ever applied it to sliding
	// boards; claiming it here would change the swap scrambles it makes.
	involution: true,
	want:       "0 or 1",
	moveLen:    4,
}}

// Arrangements: the boards of Goal's N/2 ones.
func (swapFamily) Arrangements(sp Spec) *big.Int {
	n := int64(sp.Cells())
	return new(big.Int).Binomial(n, n/2)
}

func (swapFamily) CellRange(int) (lo, hi int) { return 0, 1 }
func (swapFamily) TileName(v int) string      { return loopoverRules.TileName(v) }
func (swapFamily) IsRun(tok string) bool      { return allBytes(tok, isDigit) }

// RowRun: a row of exactly Cols characters is a digit string even with a
// stray character in it, so the error can point at that character.
func (swapFamily) RowRun(tok string, cols int) bool {
	return allBytes(tok, isDigit) || len(tok) == cols
}

// WriteState writes rows as digit strings ("1101").
func (swapFamily) WriteState(b *strings.Builder, s State) {
	cols := s.Spec.Cols
	b.Grow(len(s.Cells) + s.Spec.Rows)
	for i, v := range s.Cells {
		if i > 0 && i%cols == 0 {
			b.WriteByte('/')
		}
		if v <= 9 {
			b.WriteByte('0' + v)
		} else {
			b.WriteByte('?')
		}
	}
}

func (swapFamily) GoalOf(sp Spec) State      { return SwapGoal(sp, cellCount(sp)/2) }
func (swapFamily) GoalOfState(s State) State { return SwapGoal(s.Spec, countOnes(s.Cells)) }

// IsGoal: ones then zeros, so no cell may exceed its predecessor.
func (swapFamily) IsGoal(c []uint8) bool {
	prev := uint8(1)
	for _, v := range c {
		if v > prev {
			return false
		}
		prev = v
	}
	return true
}

// CheckGoal accepts any 0/1 board with as many ones: every such pattern is
// reachable.
func (swapFamily) CheckGoal(s, goal State) error {
	if err := goal.Validate(); err != nil {
		return fmt.Errorf("goal: %w", err)
	}
	if a, b := countOnes(s.Cells), countOnes(goal.Cells); a != b {
		return fmt.Errorf("goal has %d ones but the board has %d; a swap keeps the number of ones: %w", b, a, ErrMalformed)
	}
	return nil
}

// Solvable: every board reaches the goal with the same number of ones.
func (swapFamily) Solvable(State) error { return nil }

var errSwapToken = fmt.Errorf("want <row>,<col>R or <row>,<col>D, optionally with a repeat count (1,2R2): %w", ErrMalformed)

func (swapFamily) AppendToken(sp Spec, ms []Move, tok string) ([]Move, error) {
	bad := errSwapToken
	r, i, ok := readNum(tok, 0)
	if !ok || i >= len(tok) || tok[i] != ',' {
		return ms, bad
	}
	c, i, ok := readNum(tok, i+1)
	if !ok || i >= len(tok) {
		return ms, bad
	}
	d, ok := dirOf(tok[i])
	if !ok || (d != Right && d != Down) {
		return ms, bad
	}
	count, i, err := readCount(tok, i+1)
	if err != nil {
		return ms, err
	}
	if i != len(tok) {
		return ms, bad
	}
	if r < 1 || r > sp.Rows || c < 1 || c > sp.Cols {
		return ms, fmt.Errorf("cell (%d,%d) is off the %dx%d board: %w", r, c, sp.Rows, sp.Cols, ErrMalformed)
	}
	if d == Right && c == sp.Cols {
		return ms, fmt.Errorf("cell (%d,%d) is in the last column and has no right neighbour: %w", r, c, ErrMalformed)
	}
	if d == Down && r == sp.Rows {
		return ms, fmt.Errorf("cell (%d,%d) is in the last row and has no neighbour below: %w", r, c, ErrMalformed)
	}
	return appendRepeat(ms, Move{Dir: d, Line: r - 1, Col: c - 1}, count)
}

func (swapFamily) AppendMove(dst []byte, m Move) []byte {
	dst = strconv.AppendInt(dst, int64(m.Line)+1, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(m.Col)+1, 10)
	return append(dst, m.Dir.Letter())
}

func (swapFamily) ApplyMove(sp Spec, c []uint8, m Move) error { return swapApply(sp, c, m) }

func (swapFamily) ApplyAll(sp Spec, c []uint8, ms []Move) (int, error) {
	for i, m := range ms {
		if err := swapApply(sp, c, m); err != nil {
			return i, err
		}
	}
	return 0, nil
}

func swapApply(sp Spec, c []uint8, m Move) error {
	w, h := sp.Cols, sp.Rows
	r, col := m.Line, m.Col
	if r < 0 || r >= h || col < 0 || col >= w {
		return fmt.Errorf("cell (%d,%d) is off the %dx%d board: %w", r+1, col+1, h, w, ErrIllegalMove)
	}
	i := r*w + col
	switch m.Dir {
	case Right:
		if col+1 >= w {
			return fmt.Errorf("cell (%d,%d) has no right neighbour: %w", r+1, col+1, ErrIllegalMove)
		}
		c[i], c[i+1] = c[i+1], c[i]
	case Down:
		if r+1 >= h {
			return fmt.Errorf("cell (%d,%d) has no neighbour below: %w", r+1, col+1, ErrIllegalMove)
		}
		c[i], c[i+w] = c[i+w], c[i]
	default:
		return fmt.Errorf("swap moves are R or D: %w", ErrIllegalMove)
	}
	return nil
}

// LegalMoves: every adjacent pair whose cells differ, row-major, R before D.
func (swapFamily) LegalMoves(s State) []Move {
	w, h := s.Spec.Cols, s.Spec.Rows
	var ms []Move
	for i, v := range s.Cells {
		r, c := i/w, i%w
		if c+1 < w && s.Cells[i+1] != v {
			ms = append(ms, Move{Dir: Right, Line: r, Col: c})
		}
		if r+1 < h && s.Cells[i+w] != v {
			ms = append(ms, Move{Dir: Down, Line: r, Col: c})
		}
	}
	return ms
}

// FixParity: every arrangement of the ones is solvable.
func (swapFamily) FixParity(State) {}

// Walk never repeats the swap just made and only swaps cells that differ.
func (swapFamily) Walk(s State, rng *rand.Rand, length int, ms []Move, record bool) []Move {
	return swapWalk(s, rng, length, ms, record)
}

// swapWalk walks a swap board in place. The swaps that change the board
// are the edges between a one and a zero; it keeps them in an indexed set
// updated locally after each swap, so a step costs O(1) even on 1000x1000
// boards. Edge e = 2·cell + (0 right, 1 down).
func swapWalk(s State, rng *rand.Rand, length int, ms []Move, record bool) []Move {
	c := s.Cells
	w, n := s.Spec.Cols, len(c)
	pos := make([]int32, 2*n) // 1 + index in set, 0 when absent
	set := make([]int32, 0, 64)
	differs := func(e int) bool {
		i := e >> 1
		if e&1 == 0 {
			return i%w+1 < w && c[i] != c[i+1]
		}
		return i+w < n && c[i] != c[i+w]
	}
	update := func(e int) {
		if e < 0 || e >= 2*n {
			return
		}
		in, want := pos[e] != 0, differs(e)
		switch {
		case want && !in:
			set = append(set, int32(e))
			pos[e] = int32(len(set))
		case !want && in:
			k := pos[e] - 1
			last := set[len(set)-1]
			set[k] = last
			pos[last] = k + 1
			set = set[:len(set)-1]
			pos[e] = 0
		}
	}
	for e := 0; e < 2*n; e++ {
		update(e)
	}
	prev := -1
	for k := 0; k < length; k++ {
		var e int
		switch {
		case len(set) == 0:
			return ms // all ones or all zeros: nothing moves
		case prev >= 0 && pos[prev] != 0 && len(set) > 1:
			// Uniform over the set minus prev.
			j := rng.IntN(len(set) - 1)
			if j >= int(pos[prev]-1) {
				j++
			}
			e = int(set[j])
		default:
			// A grid with both sides ≥ 2 is 2-edge-connected, so the one/zero
			// boundary has ≥ 2 edges and this only runs without a prev.
			e = int(set[rng.IntN(len(set))])
		}
		i, j := e>>1, e>>1+1
		m := Move{Dir: Right, Line: i / w, Col: i % w}
		if e&1 == 1 {
			j = i + w
			m.Dir = Down
		}
		c[i], c[j] = c[j], c[i]
		for _, x := range [2]int{i, j} {
			update(2 * x)
			update(2*x + 1)
			if x%w > 0 {
				update(2 * (x - 1))
			}
			update(2*(x-w) + 1)
		}
		prev = e
		if record {
			ms = append(ms, m)
		}
	}
	return ms
}
