package worker_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

// untilStopped "solves" a state named "slow" until its context ends, as a
// search does at its checkpoints, and answers budget_exceeded with the
// nodes it spent; every other state is echoed at once.
func untilStopped(started chan<- string) worker.SolveFunc {
	return func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		if !strings.HasPrefix(text, "slow") {
			return echo(ctx, spec, text, opt)
		}
		started <- text
		<-ctx.Done()
		return result.Result{Puzzle: spec.String(), State: text, Status: result.StatusBudgetExceeded, Nodes: 12345, LowerBound: 40}
	}
}

// A cancel stops a running solve through its context: the state ends as
// a cancelled row with the nodes it spent, the job's states not reached
// end as cancelled rows too, and the worker takes the next job at once.
func TestCancelStopsRunningSolve(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	started := make(chan string, 4)
	e.start(t, worker.Options{Workers: 1, Solve: untilStopped(started)})
	e.publish(t, mkJob(41, 0, "slow-a", "b", "c"))
	select {
	case <-started:
	case <-time.After(waitFor):
		t.Fatal("the solve did not start")
	}
	at := time.Now()
	if err := queue.CancelBatch(e.ctx, e.js, e.cfg, 41, at); err != nil {
		t.Fatal(err)
	}
	r := e.results(t, 1)[0]
	took := time.Since(at)
	if took > 2*time.Second {
		t.Errorf("the cancelled job's rows came %v after the cancel, want within 2 s", took)
	}
	for i, x := range r.Results {
		if x.Status != result.StatusCancelled || !strings.Contains(x.Error, "batch 41 was cancelled") || x.Attempts != 1 {
			t.Errorf("row %d: %+v, want cancelled", i, x)
		}
	}
	if x := r.Results[0]; x.Nodes != 12345 || x.LowerBound != 40 || !strings.Contains(x.Error, "12345 nodes") {
		t.Errorf("the running state's row lost what it spent: %+v", x)
	}
	// The worker is free again: another batch's job is solved.
	e.publish(t, mkJob(42, 0, "d"))
	if r := e.results(t, 1)[0]; r.BatchID != 42 || r.Results[0].Status != result.StatusSolved {
		t.Fatalf("next job: %+v", r)
	}
	// A job of the batch queued after the cancel is answered unsolved.
	e.publish(t, mkJob(41, 3, "e"))
	if r := e.results(t, 1)[0]; r.Results[0].Status != result.StatusCancelled {
		t.Fatalf("queued job of a cancelled batch: %+v", r.Results[0])
	}
	eventually(t, "jobs acked", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
}

// A paused batch's jobs are parked, not solved and not handed back, so a
// pause spends none of their deliveries; unpausing returns them and each
// is solved exactly once. Other batches go on meanwhile.
func TestPauseParksJobs(t *testing.T) {
	cfg := fastConfig() // three deliveries, 300 ms apart: a Nak per look would exhaust them in a second
	e := newEnv(t, cfg)
	var solves atomic.Int64
	e.start(t, worker.Options{Workers: 2, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		solves.Add(1)
		return echo(ctx, spec, text, opt)
	}})
	if err := queue.PauseBatch(e.ctx, e.js, e.cfg, 51, time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the watch reaches the workers in milliseconds
	for i := range 5 {
		e.publish(t, mkJob(51, int64(i), "p"))
	}
	e.publish(t, mkJob(52, 0, "q"))
	if r := e.results(t, 1)[0]; r.BatchID != 52 {
		t.Fatalf("the first results are of batch %d, want the unpaused 52", r.BatchID)
	}
	eventually(t, "five jobs parked", func() bool {
		return e.streamMsgs(t, queue.ParkedStream) == 5 && e.streamMsgs(t, queue.JobsStream) == 0
	})
	// Longer than every delivery the jobs had would take.
	time.Sleep(3 * cfg.AckWait)
	if n := solves.Load(); n != 1 {
		t.Fatalf("%d solves while batch 51 was paused, want only batch 52's", n)
	}
	if n := e.streamMsgs(t, queue.DeadStream); n != 0 {
		t.Fatalf("%d messages in %s: a parked job spent its deliveries", n, queue.DeadStream)
	}
	if err := queue.UnpauseBatch(e.ctx, e.js, e.cfg, 51); err != nil {
		t.Fatal(err)
	}
	if n, err := queue.Unpark(e.ctx, e.js, 51); err != nil || n != 5 {
		t.Fatalf("Unpark = %d, %v; want 5", n, err)
	}
	seen := map[int64]int{}
	for _, r := range e.results(t, 5) {
		seen[r.FirstSeq]++
		if r.BatchID != 51 || r.Results[0].Status != result.StatusSolved {
			t.Errorf("after unpause: %+v", r)
		}
	}
	if len(seen) != 5 {
		t.Errorf("results by first seq %v: want each of 0..4 once", seen)
	}
	if n := solves.Load(); n != 6 {
		t.Errorf("%d solves, want 6", n)
	}
	eventually(t, "streams drained", func() bool {
		return e.streamMsgs(t, queue.ParkedStream) == 0 && e.streamMsgs(t, queue.JobsStream) == 0
	})
}

// Parked jobs of a batch whose unpause did not return them (the command
// died half way) are returned by the workers' own look.
func TestUnparkedBySweep(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	e.start(t, worker.Options{Workers: 1, Solve: echo})
	if err := queue.PauseBatch(e.ctx, e.js, e.cfg, 61, time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	e.publish(t, mkJob(61, 0, "a"))
	eventually(t, "the job parked", func() bool { return e.streamMsgs(t, queue.ParkedStream) == 1 })
	if err := queue.UnpauseBatch(e.ctx, e.js, e.cfg, 61); err != nil {
		t.Fatal(err)
	}
	if r := e.results(t, 1)[0]; r.BatchID != 61 || r.Results[0].Status != result.StatusSolved {
		t.Fatalf("%+v", r)
	}
}

// Results that NATS refuses (here: TESSERA_RESULTS at its message limit,
// as a full store refuses them) are held, with the job, until NATS takes
// them: the job spends no delivery, no state ends failed, and the workers
// pull nothing more meanwhile.
func TestRefusedResultsAreHeld(t *testing.T) {
	cfg := fastConfig()
	e := newEnv(t, cfg)
	st, err := e.js.Stream(e.ctx, queue.ResultsStream)
	if err != nil {
		t.Fatal(err)
	}
	limit := func(n int64) {
		t.Helper()
		sc := st.CachedInfo().Config
		sc.MaxMsgs, sc.Discard = n, jetstream.DiscardNew
		if _, err := e.js.UpdateStream(e.ctx, sc); err != nil {
			t.Fatal(err)
		}
	}
	limit(1)
	var solves atomic.Int64
	e.start(t, worker.Options{Workers: 2, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		solves.Add(1)
		return echo(ctx, spec, text, opt)
	}})
	for i := range 4 {
		e.publish(t, mkJob(71, int64(i), "s"))
	}
	// One results message fits; the next worker holds its answer, and
	// the others stop pulling.
	time.Sleep(3 * cfg.AckWait * time.Duration(cfg.MaxDeliver))
	if n := solves.Load(); n > 3 {
		t.Errorf("%d solves while NATS refused the results: the workers kept pulling", n)
	}
	if n := e.streamMsgs(t, queue.DeadStream); n != 0 {
		t.Fatalf("%d dead letters: a refused publish spent the job's deliveries", n)
	}
	limit(-1)
	var got []job.Results
	got = append(got, e.results(t, 4)...)
	for _, r := range got {
		if r.Results[0].Status != result.StatusSolved {
			t.Errorf("job %s: %+v", r.JobID, r.Results[0])
		}
	}
	eventually(t, "jobs acked", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
}

// Within a lane a worker takes high-priority jobs first and low last, but
// one pull in ten looks at normal first and one in ten at low first, so
// the lower levels move even under a flood of higher work.
func TestPriorityOrder(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	for _, p := range []job.Priority{job.PriorityLow, job.PriorityNormal, job.PriorityHigh} {
		for i := range 20 {
			j := mkJob(80, int64(i), string(p))
			j.ID, j.Priority = fmt.Sprintf("80-%s-%d", p, i), p
			e.publish(t, j)
		}
	}
	var mu sync.Mutex
	var order []string
	e.start(t, worker.Options{Workers: 1, QuickWorkers: -1, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		mu.Lock()
		order = append(order, text)
		mu.Unlock()
		return echo(ctx, spec, text, opt)
	}})
	e.results(t, 60)
	mu.Lock()
	defer mu.Unlock()
	count := func(in []string, p job.Priority) int {
		n := 0
		for _, s := range in {
			if s == string(p) {
				n++
			}
		}
		return n
	}
	if h := count(order[:20], job.PriorityHigh); h < 16 {
		t.Errorf("%d high-priority jobs among the first 20 taken, want at least 16: %v", h, order)
	}
	if l := count(order[:10], job.PriorityLow); l != 1 {
		t.Errorf("%d low-priority jobs among the first 10 taken, want its share of 1: %v", l, order)
	}
	if n := count(order[:10], job.PriorityNormal); n != 1 {
		t.Errorf("%d normal-priority jobs among the first 10 taken, want its share of 1: %v", n, order)
	}
}

// A cancel of a paused batch answers its parked jobs as cancelled once
// they are put back (as `results cancel` does: cancel, unpause, unpark).
func TestCancelPausedBatch(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	e.start(t, worker.Options{Workers: 1, Solve: echo})
	if err := queue.PauseBatch(e.ctx, e.js, e.cfg, 91, time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	e.publish(t, mkJob(91, 0, "a", "b"))
	e.publish(t, mkJob(91, 2, "c"))
	eventually(t, "the jobs parked", func() bool { return e.streamMsgs(t, queue.ParkedStream) == 2 })
	if err := queue.CancelBatch(e.ctx, e.js, e.cfg, 91, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := queue.UnpauseBatch(e.ctx, e.js, e.cfg, 91); err != nil {
		t.Fatal(err)
	}
	if n, err := queue.Unpark(e.ctx, e.js, 91); err != nil || n != 2 {
		t.Fatalf("Unpark = %d, %v", n, err)
	}
	rows := 0
	for _, r := range e.results(t, 2) {
		for _, x := range r.Results {
			rows++
			if x.Status != result.StatusCancelled {
				t.Errorf("parked state of a cancelled batch: %+v", x)
			}
		}
	}
	if rows != 3 {
		t.Errorf("%d rows, want 3", rows)
	}
}
