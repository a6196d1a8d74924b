package coretest

import (
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// Check accepts the moves that undo a walk and names the ones that do not.
func TestCheck(t *testing.T) {
	sp := puzzle.Spec{Kind: puzzle.Loopover, Rows: 3, Cols: 4}
	st, ms := puzzle.RandomWalkMoves(sp, rand.New(rand.NewPCG(1, 2)), 12)
	undo := puzzle.InvertMoves(sp, ms)
	if err := Check(st, undo); err != nil {
		t.Fatal(err)
	}
	if st.IsGoal() {
		t.Fatal("the walk ended at the goal: pick another seed")
	}
	if err := Check(st, nil); err == nil {
		t.Error("no moves from a scrambled board: want an error")
	}
	if err := Check(st, []puzzle.Move{{Dir: puzzle.Left, Line: 7}}); err == nil {
		t.Error("a row off the board: want an error")
	}
}

// SlidePath moves tiles as puzzle.State.Apply does, and SlidingSolved
// knows the goal from a board one move away.
func TestSlidePathMatchesApply(t *testing.T) {
	sp := puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 4}
	st, ms := puzzle.RandomWalkMoves(sp, rand.New(rand.NewPCG(3, 4)), 30)
	undo := puzzle.InvertMoves(sp, ms)
	path := make([]uint8, len(undo))
	for i, m := range undo {
		path[i] = uint8(m.Dir)
	}
	got := SlidePath(sp.Cols, st.Cells, path)
	if !SlidingSolved(got) {
		t.Fatalf("SlidePath ends at %v, not the goal", got)
	}
	if SlidingSolved(SlidePath(sp.Cols, st.Cells, path[:len(path)-1])) {
		t.Error("SlidingSolved accepts a board one move from the goal")
	}
}
