package sliding

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
)

// Parallel iterations share out the subtrees below the split: a lost or
// doubled work item would show as a longer answer, a missed one as a
// failed search.
func TestSolveParallel(t *testing.T) {
	s, err := NewSearcher(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	ks := instances.Korf100()
	coretest.ParallelOptimal(t, s, 1, 6, 9, 61)
	// Budgets stop every worker with a proved lower bound.
	k := ks[0]
	const budget = 300000
	out, err := s.SolveParallel(k.Cells, search.Budget{MaxNodes: budget}, search.Unweighted, 2)
	if !errors.Is(err, search.ErrBudgetExceeded) || out.LowerBound < s.Heuristic(k.Cells) || out.LowerBound > k.Opt ||
		out.Nodes < budget || out.Nodes > budget+2*search.CheckEvery {
		t.Fatalf("node budget: %+v %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.SolveParallel(k.Cells, search.Budget{Ctx: ctx}, search.Unweighted, 2); !errors.Is(err, search.ErrBudgetExceeded) {
		t.Fatalf("cancelled: %v", err)
	}
	// Weighted search in parallel still returns a path that replays.
	out, err = s.SolveParallel(k.Cells, search.Budget{}, 20, 2)
	if err != nil || out.Optimal || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) {
		t.Fatalf("weighted: %+v %v", out, err)
	}
}

// BenchmarkKorfThreads solves the Korf instances listed in
// $SLIDING_KORF_IDS (default 1, 6, 9, 61, 65: the quick ones) with walking
// distance on 1 and 2 threads; s/op is wall time, cpu-s/op user and system
// time.
//
//	SLIDING_KORF_IDS=1,5,65 go test -run '^$' -bench KorfThreads -benchtime 3x -count 3 ./internal/sliding
func BenchmarkKorfThreads(b *testing.B) {
	s, err := NewSearcher(4, 4)
	if err != nil {
		b.Fatal(err)
	}
	ids := []int{1, 6, 9, 61, 65}
	if v := os.Getenv("SLIDING_KORF_IDS"); v != "" {
		ids = nil
		for _, f := range strings.Split(v, ",") {
			id, err := strconv.Atoi(f)
			if err != nil || id < 1 || id > 100 {
				b.Fatalf("SLIDING_KORF_IDS=%q", v)
			}
			ids = append(ids, id)
		}
	}
	ks := instances.Korf100()
	for _, threads := range []int{1, 2} {
		b.Run("threads="+strconv.Itoa(threads), func(b *testing.B) {
			var nodes int64
			cpu0 := coretest.CPUTime()
			for b.Loop() {
				nodes = 0
				for _, id := range ids {
					k := ks[id-1]
					out, err := s.SolveParallel(k.Cells, search.Budget{}, search.Unweighted, threads)
					if err != nil || len(out.Path) != k.Opt || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) {
						b.Fatalf("#%d: %d moves (optimum %d), %v", id, len(out.Path), k.Opt, err)
					}
					nodes += out.Nodes
				}
			}
			b.ReportMetric((coretest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}
