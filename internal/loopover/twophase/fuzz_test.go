package twophase

import (
	"errors"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// FuzzSolve feeds arbitrary cells to Solve: it must refuse what is not a
// solvable 5×5 board with the right sentinel and solve the rest.
func FuzzSolve(f *testing.F) {
	f.Add(puzzle.Goal(spec55).Cells)
	for _, st := range randomStates(3) {
		f.Add(st.Cells)
	}
	f.Add([]byte{1, 2, 3})
	s := fallback(f)
	f.Fuzz(func(t *testing.T, c []byte) {
		ms, lower, err := s.Solve(c, search.Budget{MaxNodes: 1})
		if err != nil {
			if !errors.Is(err, puzzle.ErrMalformed) && !errors.Is(err, puzzle.ErrUnsolvable) {
				t.Fatalf("%v: %v", c, err)
			}
			return
		}
		if lower > len(ms) {
			t.Fatalf("lower %d > answer %d", lower, len(ms))
		}
		coretest.Replay(t, puzzle.State{Spec: spec55, Cells: c}, ms)
	})
}
