// Package coretest holds what the solving core's tests share: replaying an
// answer to its goal, a parallel search's Korf instances, and the process's CPU time for benchmarks on a
// shared machine. It imports only the vocabulary and the standard library
// (internal/archtest checks), so a core package's tests pull in no I/O,
// server or table code through it.
package coretest

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// Check replays moves on a copy of st and says why they do not take it to
// its goal (an illegal move, or where they end), or nil.
func Check(st puzzle.State, moves []puzzle.Move) error {
	c := st.Clone()
	if err := c.ApplyMoves(moves); err != nil {
		return fmt.Errorf("%s %v: %w", st.Spec, st.Cells, err)
	}
	if !c.IsGoal() {
		return fmt.Errorf("%s %v: %d moves (%s) end at %v, not the goal",
			st.Spec, st.Cells, len(moves), puzzle.FormatMoves(st.Spec, moves), c.Cells)
	}
	return nil
}

// Replay fails tb unless moves take st to its goal.
func Replay(tb testing.TB, st puzzle.State, moves []puzzle.Move) {
	tb.Helper()
	if err := Check(st, moves); err != nil {
		tb.Fatal(err)
	}
}

// SlidePath applies a sliding search's path (tile directions numbered as
// puzzle.Dir: up, down, left, right) to a copy of a board of width w and
// returns it. It trusts the path: the searches' own tests check what it
// returns against the goal.
func SlidePath(w int, cells []uint8, path []uint8) []uint8 {
	b := slices.Clone(cells)
	blank := slices.Index(b, 0)
	for _, d := range path {
		var src int
		switch puzzle.Dir(d) {
		case puzzle.Up: // the tile below the blank moves up
			src = blank + w
		case puzzle.Down:
			src = blank - w
		case puzzle.Left:
			src = blank + 1
		case puzzle.Right:
			src = blank - 1
		}
		b[blank], b[src] = b[src], 0
		blank = src
	}
	return b
}

// CPUTime is the process's user and system time: less disturbed than wall
// time by other jobs on a shared machine.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// SlidingSolved reports whether a sliding board is its goal: tiles 1..N−1
// in order, the blank last.
func SlidingSolved(b []uint8) bool {
	for i := 0; i < len(b)-1; i++ {
		if b[i] != uint8(i+1) {
			return false
		}
	}
	return b[len(b)-1] == 0
}

// ParallelSolver is a 4x4 sliding search that can run one tree on several
// workers.
type ParallelSolver interface {
	Solve(cells []uint8, b search.Budget) (search.Outcome, error)
	SolveParallel(cells []uint8, b search.Budget, w search.Weight, workers int) (search.Outcome, error)
}

// ParallelOptimal fails t unless s, on 2 and 3 workers, solves each of
// Korf's instances ids optimally, with the proved bound and an answer
// that reaches the goal; it logs the nodes beside the one-worker search's.
func ParallelOptimal(t *testing.T, s ParallelSolver, ids ...int) {
	t.Helper()
	ks := instances.Korf100()
	for _, id := range ids {
		k := ks[id-1]
		seq, err := s.Solve(k.Cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 3} {
			out, err := s.SolveParallel(k.Cells, search.Budget{}, search.Unweighted, workers)
			if err != nil {
				t.Fatalf("#%d, %d workers: %v", k.ID, workers, err)
			}
			if len(out.Path) != k.Opt || !out.Optimal || out.LowerBound != k.Opt || !SlidingSolved(SlidePath(4, k.Cells, out.Path)) {
				t.Fatalf("#%d, %d workers: %d moves (optimum %d), %+v", k.ID, workers, len(out.Path), k.Opt, out)
			}
			t.Logf("#%d: %d nodes alone, %d on %d workers", k.ID, seq.Nodes, out.Nodes, workers)
		}
	}
}

// Pinned fails t unless the n searches that run performs (run(i) returns
// the i-th one's name and outcome) read as want, line by line: node
// counts, lengths, bounds and errors recorded once, so a change that
// alters which nodes a search expands shows even when every answer stays
// optimal.
func Pinned(t *testing.T, want []string, n int, run func(i int) (name string, out search.Outcome, err error)) {
	t.Helper()
	if n != len(want) {
		t.Fatalf("%d searches, %d pinned", n, len(want))
	}
	for i := range n {
		name, out, err := run(i)
		got := fmt.Sprintf("%s: nodes %d moves %d lower %d optimal %v err %v", name, out.Nodes, len(out.Path), out.LowerBound, out.Optimal, err)
		if got != want[i] {
			t.Errorf("got  %s\nwant %s", got, want[i])
		}
	}
}

// Ball is every Loopover state of sp's shape within depth moves of the
// goal, with its distance, by BFS over whole boards (the puzzle's own
// moves, independent of any solver's move codes).
func Ball(sp puzzle.Spec, depth int) map[string]int {
	goal := puzzle.State{Spec: sp, Cells: make([]uint8, sp.Cells())}
	for i := range goal.Cells {
		goal.Cells[i] = uint8(i + 1)
	}
	dist := map[string]int{string(goal.Cells): 0}
	frontier := [][]uint8{goal.Cells}
	moves := puzzle.LegalMoves(goal)
	for d := 1; d <= depth; d++ {
		var next [][]uint8
		for _, c := range frontier {
			for _, m := range moves {
				st := puzzle.State{Spec: sp, Cells: slices.Clone(c)}
				if err := st.Apply(m); err != nil {
					panic(err)
				}
				if _, ok := dist[string(st.Cells)]; !ok {
					dist[string(st.Cells)] = d
					next = append(next, st.Cells)
				}
			}
		}
		frontier = next
	}
	return dist
}
