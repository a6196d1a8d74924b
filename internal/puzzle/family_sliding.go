package puzzle

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
)

// slidingFamily: sliding-tile boards. Cells 0..N−1 with 0 the blank; goal
// 1..N−1 then the blank; moves U D L R name the direction the TILE moves
// into the blank.
type slidingFamily struct{ facts }

var slidingRules = slidingFamily{facts{
	kind:       Sliding,
	name:       "sliding",
	maxSide:    MaxSide,
	space:      BlankAndTiles,
	pathParity: true, // the blank changes colour on a chessboard at every move
	unique:     true,
	want:       "a number",
	moveLen:    2,
}}

func (slidingFamily) Arrangements(sp Spec) *big.Int { return arrangementsOf(sp.Cells()) }

func (slidingFamily) CellRange(n int) (lo, hi int)           { return 0, n - 1 }
func (slidingFamily) IsRun(string) bool                      { return false }
func (slidingFamily) RowRun(tok string, _ int) bool          { return false }
func (slidingFamily) GoalOfState(s State) State              { return Goal(s.Spec) }
func (slidingFamily) WriteState(b *strings.Builder, s State) { writeNumbers(b, s) }

func (slidingFamily) TileName(v int) string {
	if v == 0 {
		return "the blank (0)"
	}
	return "tile " + strconv.Itoa(v)
}

func (slidingFamily) GoalOf(sp Spec) State {
	n := cellCount(sp)
	c := make([]uint8, n)
	for i := 0; i+1 < n; i++ {
		c[i] = uint8(i + 1)
	}
	return State{Spec: sp, Cells: c}
}

func (slidingFamily) IsGoal(c []uint8) bool {
	n := len(c)
	for i := 0; i+1 < n; i++ {
		if c[i] != uint8(i+1) {
			return false
		}
	}
	return c[n-1] == 0
}

func (slidingFamily) CheckGoal(s, goal State) error { return checkOneGoal(s, goal) }

// Solvable: see Solvable for the parity rule of each width.
func (slidingFamily) Solvable(s State) error {
	sp := s.Spec
	inv := SlidingInversions(s)
	if sp.Cols%2 == 1 {
		if inv%2 == 0 {
			return nil
		}
		return fmt.Errorf("%w: %dx%d sliding (odd width) needs an even number of inversions (tile pairs out of order in row-major order, blank ignored); this state has %s",
			ErrUnsolvable, sp.Rows, sp.Cols, plural(inv, "inversion"))
	}
	fromBottom := sp.Rows - BlankIndex(s)/sp.Cols
	if (inv+fromBottom)%2 == 1 {
		return nil
	}
	return fmt.Errorf("%w: %dx%d sliding needs inversions + blank row from bottom (bottom row = 1) to be odd; this state has %s and the blank on row %d from the bottom",
		ErrUnsolvable, sp.Rows, sp.Cols, plural(inv, "inversion"), fromBottom)
}

var errSlidingToken = fmt.Errorf("want U, D, L or R (the direction the tile moves), optionally with a repeat count (R3): %w", ErrMalformed)

// AppendToken reads U, D, L, R with optional counts, letters run together
// ("RRD", "R2D").
func (slidingFamily) AppendToken(_ Spec, ms []Move, tok string) ([]Move, error) {
	for i := 0; i < len(tok); {
		d, ok := dirOf(tok[i])
		if !ok {
			return ms, errSlidingToken
		}
		count, next, err := readCount(tok, i+1)
		if err != nil {
			return ms, err
		}
		if ms, err = appendRepeat(ms, Move{Dir: d}, count); err != nil {
			return ms, err
		}
		i = next
	}
	return ms, nil
}

func (slidingFamily) AppendMove(dst []byte, m Move) []byte { return append(dst, m.Dir.Letter()) }

func (slidingFamily) ApplyMove(sp Spec, c []uint8, m Move) error { return slidingApply(sp, c, m) }

// ApplyAll finds the blank and divides it into row and column once, then
// follows it move by move, instead of slidingApply's scan for the blank and
// two divides per move (most of replaying an answer). A move it cannot
// make goes to slidingApply, which says why.
func (slidingFamily) ApplyAll(sp Spec, c []uint8, ms []Move) (int, error) {
	w, h := sp.Cols, sp.Rows
	b := blankIndex(c)
	if b < 0 || w < 1 {
		for i, m := range ms {
			if err := slidingApply(sp, c, m); err != nil {
				return i, err
			}
		}
		return 0, nil
	}
	r, col := b/w, b%w
	for i, m := range ms {
		src := b
		switch m.Dir {
		case Up: // the tile below the blank moves up
			if r+1 < h {
				src, r = b+w, r+1
			}
		case Down:
			if r > 0 {
				src, r = b-w, r-1
			}
		case Left: // the tile right of the blank moves left
			if col+1 < w {
				src, col = b+1, col+1
			}
		case Right:
			if col > 0 {
				src, col = b-1, col-1
			}
		}
		if src == b {
			return i, slidingApply(sp, c, m)
		}
		c[b], c[src] = c[src], 0
		b = src
	}
	return 0, nil
}

func slidingApply(sp Spec, c []uint8, m Move) error {
	w, h := sp.Cols, sp.Rows
	b := blankIndex(c)
	if b < 0 {
		return fmt.Errorf("%s state has no blank: %w", sp, ErrMalformed)
	}
	r, col := b/w, b%w
	src := -1
	var why string
	switch m.Dir {
	case Up: // the tile below the blank moves up
		src, why = b+w, "no tile below the blank"
		if r+1 >= h {
			src = -1
		}
	case Down:
		src, why = b-w, "no tile above the blank"
		if r == 0 {
			src = -1
		}
	case Left: // the tile right of the blank moves left
		src, why = b+1, "no tile right of the blank"
		if col+1 >= w {
			src = -1
		}
	case Right:
		src, why = b-1, "no tile left of the blank"
		if col == 0 {
			src = -1
		}
	default:
		why = "unknown direction"
	}
	if src < 0 {
		return fmt.Errorf("%s (blank at row %d, column %d): %w", why, r+1, col+1, ErrIllegalMove)
	}
	c[b], c[src] = c[src], 0
	return nil
}

// LegalMoves: up to 4, in the order U D L R.
func (slidingFamily) LegalMoves(s State) []Move {
	w, h := s.Spec.Cols, s.Spec.Rows
	b := BlankIndex(s)
	if b < 0 {
		return nil
	}
	var ms []Move
	r, c := b/w, b%w
	if r+1 < h {
		ms = append(ms, Move{Dir: Up})
	}
	if r > 0 {
		ms = append(ms, Move{Dir: Down})
	}
	if c+1 < w {
		ms = append(ms, Move{Dir: Left})
	}
	if c > 0 {
		ms = append(ms, Move{Dir: Right})
	}
	return ms
}

// FixParity swaps the tiles in the first two non-blank cells of an
// unsolvable board (see Random).
func (slidingFamily) FixParity(s State) {
	c, sp := s.Cells, s.Spec
	inv := inversions(c, true)
	bad := inv%2 == 1
	if sp.Cols%2 == 0 {
		fromBottom := sp.Rows - BlankIndex(s)/sp.Cols
		bad = (inv+fromBottom)%2 == 0
	}
	if bad {
		a := 0
		if c[a] == 0 {
			a++
		}
		b := a + 1
		if c[b] == 0 {
			b++
		}
		c[a], c[b] = c[b], c[a]
	}
}

// Walk never moves the tile just moved straight back.
func (slidingFamily) Walk(s State, rng *rand.Rand, length int, ms []Move, record bool) []Move {
	w, h := s.Spec.Cols, s.Spec.Rows
	c := s.Cells
	b := len(c) - 1
	prev := Dir(255)
	for k := 0; k < length; k++ {
		var cand [4]Dir
		n := 0
		r, col := b/w, b%w
		add := func(d Dir, ok bool) {
			if ok && d != prev.Opposite() {
				cand[n] = d
				n++
			}
		}
		add(Up, r+1 < h)
		add(Down, r > 0)
		add(Left, col+1 < w)
		add(Right, col > 0)
		d := cand[rng.IntN(n)] // a corner still has two moves: n ≥ 1
		src := b
		switch d {
		case Up:
			src = b + w
		case Down:
			src = b - w
		case Left:
			src = b + 1
		case Right:
			src = b - 1
		}
		c[b], c[src] = c[src], 0
		b, prev = src, d
		if record {
			ms = append(ms, Move{Dir: d})
		}
	}
	return ms
}
