package twophase

import (
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

var (
	wdOnce   sync.Once
	wdSolver *Solver
)

// fallback is the solver without the big table, built once per test run.
func fallback(tb testing.TB) *Solver {
	wdOnce.Do(func() {
		var err error
		if wdSolver, err = New(nil); err != nil {
			panic(err)
		}
	})
	return wdSolver
}

// randomStates is the fixed benchmark set: n uniform solvable boards.
func randomStates(n int) []puzzle.State {
	rng := rand.New(rand.NewPCG(5, 5))
	out := make([]puzzle.State, n)
	for i := range out {
		out[i] = puzzle.Random(spec55, rng)
	}
	return out
}

func TestSolveRandom(t *testing.T) {
	s := fallback(t)
	n := 12
	if testing.Short() {
		n = 4
	}
	for i, st := range randomStates(n) {
		bud := search.Budget{Deadline: time.Now().Add(100 * time.Millisecond)}
		if i%3 == 0 {
			bud = search.Budget{MaxNodes: 1} // only the first answer
		}
		ms, lower, err := s.Solve(st.Cells, bud)
		if err != nil {
			t.Fatal(err)
		}
		coretest.Replay(t, st, ms)
		if lower > len(ms) || lower < 1 {
			t.Fatalf("lower bound %d, answer %d", lower, len(ms))
		}
	}
}

func TestSolveEasy(t *testing.T) {
	s := fallback(t)
	goal := puzzle.Goal(spec55)
	ms, lower, err := s.Solve(goal.Cells, search.Budget{})
	if err != nil || len(ms) != 0 || lower != 0 {
		t.Fatalf("goal: %v %d %v", ms, lower, err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 30; i++ {
		k := 1 + i%6
		st, walk := puzzle.RandomWalkMoves(spec55, rng, k)
		ms, lower, err := s.Solve(st.Cells, search.Budget{Deadline: time.Now().Add(50 * time.Millisecond)})
		if err != nil {
			t.Fatal(err)
		}
		coretest.Replay(t, st, ms)
		if len(ms) > len(walk) || lower > len(ms) {
			t.Fatalf("walk of %d: answer %d, lower %d", len(walk), len(ms), lower)
		}
	}
}

func TestSolveRejects(t *testing.T) {
	s := fallback(t)
	goal := puzzle.Goal(spec55).Cells
	odd := slices.Clone(goal)
	odd[0], odd[1] = odd[1], odd[0]
	if _, _, err := s.Solve(odd, search.Budget{}); !errors.Is(err, puzzle.ErrUnsolvable) {
		t.Fatalf("odd permutation: %v", err)
	}
	dup := slices.Clone(goal)
	dup[3] = dup[4]
	for _, bad := range [][]uint8{nil, goal[:24], dup, append(slices.Clone(goal), 26)} {
		if _, _, err := s.Solve(bad, search.Budget{}); !errors.Is(err, puzzle.ErrMalformed) {
			t.Fatalf("%v: %v", bad, err)
		}
	}
	zero := slices.Clone(goal)
	zero[0] = 0
	if _, _, err := s.Solve(zero, search.Budget{}); !errors.Is(err, puzzle.ErrMalformed) {
		t.Fatalf("%v: %v", zero, err)
	}
}

func benchRandom(b *testing.B, s *Solver, budget time.Duration) {
	states := randomStates(100)
	var total, worst time.Duration
	var moves, lower int
	for b.Loop() {
		total, worst, moves, lower = 0, 0, 0, 0
		for _, st := range states {
			t0 := time.Now()
			ms, lo, err := s.Solve(st.Cells, search.Budget{Deadline: t0.Add(budget)})
			el := time.Since(t0)
			if err != nil {
				b.Fatal(err)
			}
			coretest.Replay(b, st, ms)
			total += el
			worst = max(worst, el)
			moves += len(ms)
			lower += lo
		}
	}
	n := float64(len(states))
	b.ReportMetric(float64(moves)/n, "moves/state")
	b.ReportMetric(float64(lower)/n, "lower/state")
	b.ReportMetric(total.Seconds()*1000/n, "ms/state")
	b.ReportMetric(worst.Seconds()*1000, "worst-ms")
}

// BenchmarkRandom5x5 solves a fixed set of 100 random boards with the
// callers' default budget of 300 ms ($TESSERA_TWOPHASE_MS overrides it),
// with the big phase-1 table (from $TESSERA_SOLVER_TABLES_DIR, else skipped)
// and with the built-in fallback.
func BenchmarkRandom5x5(b *testing.B) {
	budget := DefaultTime
	if v, err := strconv.Atoi(os.Getenv("TESSERA_TWOPHASE_MS")); err == nil && v > 0 {
		budget = time.Duration(v) * time.Millisecond
	}
	b.Run("table", func(b *testing.B) {
		s, err := New(openPhase1(b))
		if err != nil {
			b.Fatal(err)
		}
		benchRandom(b, s, budget)
	})
	b.Run("fallback", func(b *testing.B) { benchRandom(b, fallback(b), budget) })
}

// BenchmarkNew is the start-up cost without the big table: every small
// table is built.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(nil); err != nil {
			b.Fatal(err)
		}
	}
}
