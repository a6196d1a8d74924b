package optimal

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

func spec(r, c int) puzzle.Spec { return puzzle.Spec{Kind: puzzle.Loopover, Rows: r, Cols: c} }

func randomState(sp puzzle.Spec, rng *rand.Rand) []uint8 {
	n := sp.Cells()
	c := make([]uint8, n)
	for i := range c {
		c[i] = uint8(i + 1)
	}
	rng.Shuffle(n, func(i, j int) { c[i], c[j] = c[j], c[i] })
	if sp.Rows%2 == 1 && sp.Cols%2 == 1 && puzzle.Solvable(puzzle.State{Spec: sp, Cells: c}) != nil {
		c[0], c[1] = c[1], c[0]
	}
	return c
}

func TestMalformed(t *testing.T) {
	s, err := New(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]uint8{{1, 2, 3}, {1, 1, 3, 4, 5, 6, 7, 8, 9}, {0, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 5, 6, 7, 8, 10}} {
		if _, err := s.Solve(c, search.Budget{}); !errors.Is(err, puzzle.ErrMalformed) {
			t.Errorf("%v: %v, want malformed", c, err)
		}
	}
	if _, err := New(8, 8); err == nil {
		t.Error("8x8 walking-distance tables should be refused as too large")
	}
}
