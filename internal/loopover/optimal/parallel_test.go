package optimal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// Parallel iterations share out the subtrees below the split: a lost or
// doubled work item would show as a longer answer, a missed one as a
// failed search. Walking distance on 3×5, the displacement bound on 5×5,
// the 4×4 solver's pattern database.
func TestSolveParallel(t *testing.T) {
	for _, c := range []struct{ rows, cols, walk int }{{3, 5, 16}, {5, 5, 13}, {4, 4, 24}} {
		s, err := New(c.rows, c.cols)
		if err != nil {
			t.Fatal(err)
		}
		gs, ok := s.(loopover.Parallel)
		if !ok {
			t.Fatalf("%dx%d: %T has no parallel search", c.rows, c.cols, s)
		}
		sp := spec(c.rows, c.cols)
		rng := rand.New(rand.NewPCG(7, uint64(c.walk)))
		for range 4 {
			st := puzzle.RandomWalk(sp, rng, c.walk)
			seq, err := gs.Solve(st.Cells, search.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{2, 3} {
				out, err := gs.SolveParallel(st.Cells, search.Budget{}, workers)
				if err != nil {
					t.Fatalf("%s, %d workers: %v", st, workers, err)
				}
				if len(out.Path) != len(seq.Path) || !out.Optimal || out.LowerBound != len(seq.Path) {
					t.Fatalf("%s, %d workers: %d moves, alone %d: %+v", st, workers, len(out.Path), len(seq.Path), out)
				}
				if err := puzzle.VerifyMoves(st, gs.Moves(out.Path), st.Goal()); err != nil {
					t.Fatalf("%s, %d workers: %v", st, workers, err)
				}
				t.Logf("%dx%d %d moves: %d nodes alone, %d on %d workers", c.rows, c.cols, len(out.Path), seq.Nodes, out.Nodes, workers)
			}
		}
	}
	// Budgets stop every worker with a proved lower bound.
	s, _ := New(5, 5)
	gs := s.(*loopover.Solver)
	st := puzzle.RandomWalk(spec(5, 5), rand.New(rand.NewPCG(8, 8)), 20)
	const budget = 20000
	out, err := gs.SolveParallel(st.Cells, search.Budget{MaxNodes: budget}, 2)
	if h, _ := gs.Heuristic(st.Cells); !errors.Is(err, search.ErrBudgetExceeded) || out.LowerBound < h ||
		out.Nodes < budget || out.Nodes > budget+2*search.CheckEvery {
		t.Fatalf("node budget: %+v %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := gs.SolveParallel(st.Cells, search.Budget{Ctx: ctx}, 2); !errors.Is(err, search.ErrBudgetExceeded) {
		t.Fatalf("cancelled: %v", err)
	}
}

// BenchmarkWalk5x5Threads solves ten 5×5 random walks of $LOOP_WALK
// moves (default 15) optimally on 1 and 2 threads; s/op is wall time,
// cpu-s/op user and system time.
//
//	go test -run '^$' -bench Walk5x5Threads -benchtime 1x -count 3 ./internal/loopover/optimal
func BenchmarkWalk5x5Threads(b *testing.B) {
	walk := 15
	if v, err := strconv.Atoi(os.Getenv("LOOP_WALK")); err == nil && v > 0 {
		walk = v
	}
	s, err := New(5, 5)
	if err != nil {
		b.Fatal(err)
	}
	gs := s.(*loopover.Solver)
	rng := rand.New(rand.NewPCG(2026, uint64(walk)))
	set := make([][]uint8, 10)
	for i := range set {
		set[i] = puzzle.RandomWalk(spec(5, 5), rng, walk).Cells
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			var nodes int64
			cpu0 := coretest.CPUTime()
			for b.Loop() {
				nodes = 0
				for _, c := range set {
					out, err := gs.SolveParallel(c, search.Budget{}, threads)
					if err != nil {
						b.Fatal(err)
					}
					nodes += out.Nodes
				}
			}
			b.ReportMetric((coretest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}
