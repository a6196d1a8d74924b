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

// A split search's nodes are counted by the process that expanded them
// (OnSplitNodes): over both processes at least the row's total (which
// counts each answered subtree once), and the process that did not lay
// out the state searched some of its subtrees.
func TestSplitNodesCountedWhereSearched(t *testing.T) {
	e := newEnv(t, fastConfig())
	sv := solver555(t)
	var nodes [2]atomic.Int64
	for p := range 2 {
		e.start(t, worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split, SubtreeNodes: 1024,
			OnSplitNodes: func(puzzle string, n int64) {
				if puzzle != "sliding:4x4" || n <= 0 {
					t.Errorf("split nodes %d of %s", n, puzzle)
				}
				nodes[p].Add(n)
			}})
	}
	states, opt := korfStates(1, 2)
	for i, s := range states {
		e.publish(t, splitJob(41, int64(i), s))
	}
	var rowNodes int64
	for _, rs := range e.results(t, len(states)) {
		r := rs.Results[0]
		checkSplitRow(t, r, opt[r.State], sv)
		rowNodes += r.Nodes
	}
	a, b := nodes[0].Load(), nodes[1].Load()
	t.Logf("rows %d nodes; counted %d and %d on the two processes", rowNodes, a, b)
	if a+b < rowNodes || a == 0 || b == 0 {
		t.Fatalf("nodes counted %d + %d, rows' total %d: want every process's share, at least the rows'", a, b, rowNodes)
	}
}
