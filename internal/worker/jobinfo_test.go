package worker_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

// OnJob is told each job a worker takes up (lane, rows, delivery) with
// the progress counter its solves' budgets carry, and every row says on
// which delivery it was made.
func TestOnJobAndAttempts(t *testing.T) {
	e := newEnv(t, fastConfig())
	var mu sync.Mutex
	var infos []worker.JobInfo
	var seen []*atomic.Int64
	ended := 0
	calls := 0
	e.start(t, worker.Options{Workers: 1,
		OnJob: func(j worker.JobInfo) func() {
			mu.Lock()
			defer mu.Unlock()
			infos = append(infos, j)
			return func() { mu.Lock(); ended++; mu.Unlock() }
		},
		Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
			mu.Lock()
			calls++
			first := calls == 1
			seen = append(seen, opt.Budget.Progress)
			mu.Unlock()
			if first {
				panic("first delivery fails") // handed back: the second delivery answers
			}
			return echo(ctx, spec, text, opt)
		}})
	e.publish(t, mkJob(9, 4, "a"))
	got := e.results(t, 1)
	if r := got[0].Results[0]; r.Attempts != 2 || r.Status != result.StatusSolved {
		t.Errorf("row %+v: want solved on attempt 2", r)
	}
	eventually(t, "both deliveries settled", func() bool { mu.Lock(); defer mu.Unlock(); return ended == 2 })
	mu.Lock()
	defer mu.Unlock()
	if len(infos) != 2 {
		t.Fatalf("OnJob told %d times, want 2: %+v", len(infos), infos)
	}
	for i, j := range infos {
		if j.Delivery != uint64(i+1) || j.Lane != "quick" || j.Batch != 9 || j.FirstSeq != 4 || j.States != 1 ||
			j.Puzzle != "sliding:3x3" || j.Subtree || j.Progress == nil || j.Published.IsZero() {
			t.Errorf("delivery %d: %+v", i+1, j)
		}
		if seen[i] != j.Progress {
			t.Errorf("delivery %d: the solve's budget carries another progress counter", i+1)
		}
	}
}
