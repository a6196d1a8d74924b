package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

// waitFor bounds every wait on the pipeline; it is a hang guard, not a
// timing assertion.
const waitFor = 20 * time.Second

type env struct {
	ctx  context.Context
	js   jetstream.JetStream
	cfg  queue.Config
	res  jetstream.Consumer
	done chan error
	stop context.CancelFunc
}

// fastConfig makes redeliveries quick so fault tests take a second or so.
func fastConfig() queue.Config {
	c := queue.DefaultConfig()
	c.MaxDeliver = 3
	c.AckWait = 300 * time.Millisecond
	c.BackOff = []time.Duration{300 * time.Millisecond}
	return c
}

func newEnv(t *testing.T, cfg queue.Config) *env {
	t.Helper()
	_, nc := natstest.Server(t)
	return newEnvOn(t, nc, cfg)
}

// newEnvOn is newEnv on a given connection (e.g. to an external server).
func newEnvOn(t *testing.T, nc *nats.Conn, cfg queue.Config) *env {
	t.Helper()
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitFor)
	t.Cleanup(cancel)
	if err := queue.EnsureStreams(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	res, err := queue.EnsureResultsConsumer(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &env{ctx: ctx, js: js, cfg: cfg, res: res}
}

// start runs the worker until the test ends (or stop is called).
func (e *env) start(t *testing.T, o worker.Options) {
	t.Helper()
	o.Queue = &e.cfg
	if o.Workers == 0 {
		o.Workers = 2
	}
	o.PollWait = 100 * time.Millisecond
	o.RetryDelay = 10 * time.Millisecond
	o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(e.ctx)
	e.stop = cancel
	done := make(chan error, 1)
	e.done = done
	go func() { done <- worker.Run(ctx, e.js, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitFor):
			t.Error("worker did not stop")
		}
	})
}

// runErr waits for Run to return and returns its error, failing t with
// late if it takes longer than waitFor; the error is put back for the
// cleanup.
func (e *env) runErr(t *testing.T, late string) error {
	t.Helper()
	var err error
	select {
	case err = <-e.done:
	case <-time.After(waitFor):
		t.Fatal(late)
	}
	e.done <- err
	return err
}

func (e *env) publish(t *testing.T, j job.Job) {
	t.Helper()
	if err := queuetest.PublishJob(e.ctx, e.js, j); err != nil {
		t.Fatal(err)
	}
}

// results reads n Results messages (acking them), then checks no more come
// within a short grace.
func (e *env) results(t *testing.T, n int) []job.Results {
	t.Helper()
	var out []job.Results
	deadline := time.Now().Add(waitFor)
	for len(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("got %d results messages, want %d", len(out), n)
		}
		msgs, err := queue.Fetch(e.ctx, e.res, n-len(out), 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			var r job.Results
			if err := json.Unmarshal(m.Data(), &r); err != nil {
				t.Fatalf("results message %q: %v", m.Data(), err)
			}
			out = append(out, r)
			if err := m.Ack(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

func (e *env) streamMsgs(t *testing.T, stream string) uint64 {
	t.Helper()
	s, err := e.js.Stream(e.ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// eventually polls cond until it holds (hang guard waitFor).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// echo "solves" a state by returning its text reversed as the moves.
func echo(_ context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
	return result.Result{Puzzle: spec.String(), State: text, Status: result.StatusSolved, Moves: "m:" + text, Length: len(text), Solver: "echo/" + string(opt.Mode)}
}

func mkJob(batch, seq int64, states ...string) job.Job {
	return job.Job{V: job.Version, ID: fmt.Sprintf("%d-%d", batch, seq), BatchID: batch, Puzzle: "sliding:3x3",
		FirstSeq: seq, States: states, Mode: "fast"}
}

func TestJobFlowsToResults(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	e.start(t, worker.Options{Solve: echo})
	e.publish(t, mkJob(5, 10, "a", "bb", "ccc"))
	e.publish(t, mkJob(5, 13, "d"))
	got := e.results(t, 2)
	byID := map[string]job.Results{}
	for _, r := range got {
		byID[r.JobID] = r
	}
	r := byID["5-10"]
	if r.V != job.Version || r.BatchID != 5 || r.FirstSeq != 10 || r.Puzzle != "sliding:3x3" || len(r.Results) != 3 {
		t.Fatalf("results header %+v", r)
	}
	for i, s := range []string{"a", "bb", "ccc"} {
		x := r.Results[i]
		if x.State != s || x.Moves != "m:"+s || x.Status != result.StatusSolved || x.Solver != "echo/fast" {
			t.Errorf("result %d: %+v", i, x)
		}
	}
	if len(byID["5-13"].Results) != 1 {
		t.Errorf("second job: %+v", byID["5-13"])
	}
	eventually(t, "jobs acked", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
}

// The host's limits cap every job's budget, and its search threads apply
// (this was solverd's capBudget): Options.Ceiling and Options.Threads
// reach each solve.
func TestHostLimitsReachSolve(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	var mu sync.Mutex
	got := map[string]solve.Options{}
	e.start(t, worker.Options{Workers: 1, Ceiling: search.Budget{MaxNodes: 100, Timeout: time.Second}, Threads: 2,
		Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
			mu.Lock()
			got[text] = opt
			mu.Unlock()
			return echo(ctx, spec, text, opt)
		}})
	for i, b := range []job.Budget{{}, {MaxNodes: 1000, TimeoutMS: 60000}, {MaxNodes: 5, TimeoutMS: 1}} {
		j := mkJob(6, int64(i), fmt.Sprint(i))
		j.Budget = b
		e.publish(t, j)
	}
	e.results(t, 3)
	mu.Lock()
	defer mu.Unlock()
	for _, in := range []string{"0", "1"} {
		if b := got[in].Budget; b.MaxNodes != 100 || b.Timeout != time.Second || got[in].Threads != 2 {
			t.Errorf("job %s ran with %+v", in, got[in])
		}
	}
	if b := got["2"].Budget; b.MaxNodes != 5 || b.Timeout != time.Millisecond || got["2"].Threads != 2 {
		t.Errorf("a job under the host's limits was changed: %+v", got["2"])
	}
}

// Each malformed job becomes a record (invalid results, or a dead-letter
// copy when it does not even name its rows), leaves the jobs stream, and
// the workers keep going.
func TestMalformedJobs(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	e.start(t, worker.Options{Solve: echo, Workers: 1})

	raw := func(body string) {
		if _, err := e.js.Publish(e.ctx, "tessera.jobs.sliding.3x3", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	raw("{not json")
	raw(`{"v":1,"batch":3,"seq":0,"states":["x"]}`) // no id
	badVersion := mkJob(9, 0, "s0", "s1")
	badVersion.V = 99
	badPuzzle := mkJob(9, 2, "s2")
	badPuzzle.Puzzle = "cube:3x3"
	badMode := mkJob(9, 3, "s3")
	badMode.Mode = "quick"
	badBudget := mkJob(9, 4, "s4")
	badBudget.TimeoutMS = -5
	for _, j := range []job.Job{badVersion, badPuzzle, badMode, badBudget} {
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		raw(string(b))
	}
	e.publish(t, mkJob(9, 5, "good"))

	got := e.results(t, 5)
	invalid := 0
	for _, r := range got {
		for i, x := range r.Results {
			switch {
			case r.JobID == "9-5":
				if x.Status != result.StatusSolved {
					t.Errorf("good job after malformed ones: %+v", x)
				}
			case x.Status != result.StatusInvalid || x.Error == "" || x.State != fmt.Sprintf("s%d", r.FirstSeq+int64(i)):
				t.Errorf("job %s result %d: %+v", r.JobID, i, x)
			default:
				invalid++
			}
		}
	}
	if invalid != 5 {
		t.Errorf("%d invalid results, want 5", invalid)
	}
	eventually(t, "dead-letter copies", func() bool { return e.streamMsgs(t, queue.DeadStream) == 2 })
	eventually(t, "malformed jobs removed", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
}

// A panicking solver is retried on later deliveries; on the last one the
// poison state is recorded failed and the job's other states solved.
func TestPanicRetriedThenRecorded(t *testing.T) {
	e := newEnv(t, fastConfig())
	var calls atomic.Int32
	e.start(t, worker.Options{Workers: 1, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		if text == "boom" {
			calls.Add(1)
			panic("kaboom")
		}
		return echo(ctx, spec, text, opt)
	}})
	e.publish(t, mkJob(1, 0, "ok1", "boom", "ok2"))
	got := e.results(t, 1)[0]
	if n := calls.Load(); n != int32(e.cfg.MaxDeliver) {
		t.Errorf("poison state tried %d times, want %d (MaxDeliver)", n, e.cfg.MaxDeliver)
	}
	want := []result.Status{result.StatusSolved, result.StatusFailed, result.StatusSolved}
	for i, x := range got.Results {
		if x.Status != want[i] {
			t.Errorf("result %d: %+v, want %s", i, x, want[i])
		}
	}
	if !strings.Contains(got.Results[1].Error, "kaboom") {
		t.Errorf("failed result does not say why: %q", got.Results[1].Error)
	}
	eventually(t, "job acked", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
}

// A solver that hangs ignoring its budget stops being heartbeated after
// the job's limit, is redelivered, and after MaxDeliver the dead-letter
// handler records the whole job failed and removes it.
func TestHungJobRecordedFailed(t *testing.T) {
	cfg := fastConfig()
	cfg.MaxDeliver = 2
	e := newEnv(t, cfg)
	release := make(chan struct{})
	var calls atomic.Int32
	e.start(t, worker.Options{Workers: 3, JobTimeout: 100 * time.Millisecond, DrainTimeout: 100 * time.Millisecond,
		Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
			if text == "hang" {
				calls.Add(1)
				<-release
			}
			return echo(ctx, spec, text, opt)
		}})
	t.Cleanup(func() { close(release) }) // runs before the worker is stopped
	e.publish(t, mkJob(2, 0, "x", "hang"))
	got := e.results(t, 1)[0]
	if got.JobID != "2-0" || len(got.Results) != 2 {
		t.Fatalf("results %+v", got)
	}
	for _, x := range got.Results {
		if x.Status != result.StatusFailed || !strings.Contains(x.Error, "deliveries") {
			t.Errorf("result %+v, want failed after max deliveries", x)
		}
	}
	if n := calls.Load(); n != int32(cfg.MaxDeliver) {
		t.Errorf("hung job delivered %d times, want %d", n, cfg.MaxDeliver)
	}
	eventually(t, "exhausted job deleted", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
}

// Transient publish trouble: the job stays and is retried. Here the
// results stream is missing at first, then comes back.
func TestPublishFailureRetried(t *testing.T) {
	e := newEnv(t, fastConfig())
	if err := e.js.DeleteStream(e.ctx, queue.ResultsStream); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	e.start(t, worker.Options{Workers: 1, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		calls.Add(1)
		return echo(ctx, spec, text, opt)
	}})
	e.publish(t, mkJob(4, 0, "x"))
	eventually(t, "first attempt", func() bool { return calls.Load() >= 1 })
	if err := queue.EnsureStreams(e.ctx, e.js, e.cfg); err != nil {
		t.Fatal(err)
	}
	res, err := queue.EnsureResultsConsumer(e.ctx, e.js, e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.res = res
	got := e.results(t, 1)[0]
	if got.JobID != "4-0" || got.Results[0].Status != result.StatusSolved {
		t.Errorf("results %+v", got)
	}
}

// The same job delivered three times (here: published three times under
// different message ids, as after a restart forgets the duplicate window)
// is solved three times but yields one Results message.
func TestRedeliveredJobOneResults(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	var calls atomic.Int32
	e.start(t, worker.Options{Workers: 1, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		calls.Add(1)
		return echo(ctx, spec, text, opt)
	}})
	j := mkJob(8, 0, "once")
	_, data, err := queue.EncodeJob(j)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		if _, err := e.js.Publish(e.ctx, "tessera.jobs.sliding.3x3", data, jetstream.WithMsgID(fmt.Sprintf("%s#%d", j.ID, k))); err != nil {
			t.Fatal(err)
		}
		eventually(t, "delivery solved", func() bool { return calls.Load() == int32(k+1) })
		eventually(t, "job acked", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
	}
	if n := e.streamMsgs(t, queue.ResultsStream); n != 1 {
		t.Errorf("results stream holds %d messages, want 1", n)
	}
}

// Cancelling Run lets in-flight jobs finish: their results are published
// and they are acked; Run returns nil once drained.
func TestDrainFinishesInFlight(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	started := make(chan struct{}, 4)
	release := make(chan struct{})
	e.start(t, worker.Options{Workers: 2, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		started <- struct{}{}
		<-release
		return echo(ctx, spec, text, opt)
	}})
	e.publish(t, mkJob(6, 0, "a"))
	e.publish(t, mkJob(6, 1, "b"))
	<-started
	<-started
	e.stop()
	select {
	case err := <-e.done:
		t.Fatalf("Run returned %v with jobs in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	err := e.runErr(t, "Run did not return after in-flight jobs finished")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := e.results(t, 2); len(got) != 2 {
		t.Errorf("%d results", len(got))
	}
	if n := e.streamMsgs(t, queue.JobsStream); n != 0 {
		t.Errorf("%d jobs left after drain", n)
	}
}

// Past the drain deadline, running jobs are handed back (not published):
// a solver that honours its context lets Run return cleanly, and the job
// is still there for another worker.
func TestDrainDeadlineHandsBack(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	started := make(chan struct{}, 1)
	e.start(t, worker.Options{Workers: 1, DrainTimeout: 50 * time.Millisecond,
		Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
			started <- struct{}{}
			<-ctx.Done()
			return result.Result{Puzzle: spec.String(), State: text, Status: result.StatusBudgetExceeded}
		}})
	e.publish(t, mkJob(7, 0, "slow"))
	<-started
	e.stop()
	err := e.runErr(t, "Run did not return after the drain deadline")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := e.streamMsgs(t, queue.ResultsStream); n != 0 {
		t.Errorf("%d results published for a job cut short", n)
	}
	if n := e.streamMsgs(t, queue.JobsStream); n != 1 {
		t.Errorf("%d jobs in the stream, want the handed-back one", n)
	}
	// A new worker picks it up at once (it was nak'ed, not left to time out).
	e.start(t, worker.Options{Solve: echo})
	if got := e.results(t, 1); got[0].Results[0].Status != result.StatusSolved {
		t.Errorf("after restart: %+v", got[0])
	}
}

// A solver that ignores cancellation cannot be waited for forever: Run
// hands its job back and reports ErrDrain.
func TestDrainStuckSolver(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	defer close(release)
	var once sync.Once
	e.start(t, worker.Options{Workers: 1, DrainTimeout: 20 * time.Millisecond,
		Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
			once.Do(func() { started <- struct{}{} })
			<-release
			return echo(ctx, spec, text, opt)
		}})
	e.publish(t, mkJob(7, 0, "stuck"))
	<-started
	e.stop()
	err := e.runErr(t, "Run did not return")
	if !errors.Is(err, worker.ErrDrain) {
		t.Fatalf("Run: %v, want ErrDrain", err)
	}
	if n := e.streamMsgs(t, queue.JobsStream); n != 1 {
		t.Errorf("%d jobs in the stream, want the handed-back one", n)
	}
}

// Long solves are kept alive by heartbeats: a job taking several ack
// deadlines is delivered once.
func TestHeartbeatKeepsLongJob(t *testing.T) {
	cfg := queue.DefaultConfig()
	cfg.AckWait = 100 * time.Millisecond
	cfg.BackOff = nil
	e := newEnv(t, cfg)
	var calls atomic.Int32
	e.start(t, worker.Options{Workers: 2, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		calls.Add(1)
		time.Sleep(4 * cfg.AckWait)
		return echo(ctx, spec, text, opt)
	}})
	e.publish(t, mkJob(9, 0, "long"))
	e.results(t, 1)
	if n := calls.Load(); n != 1 {
		t.Errorf("long job solved %d times, want 1", n)
	}
}

// A deleted consumer (an operator's mistake) is put back by the workers.
func TestConsumerRecreated(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	e.start(t, worker.Options{Solve: echo, Workers: 1})
	e.publish(t, mkJob(3, 0, "before"))
	e.results(t, 1)
	if err := e.js.DeleteConsumer(e.ctx, queue.JobsStream, queue.QuickConsumer); err != nil { // mkJob's lane
		t.Fatal(err)
	}
	e.publish(t, mkJob(3, 1, "after"))
	if got := e.results(t, 1); got[0].JobID != "3-1" {
		t.Errorf("results %+v", got[0])
	}
}

// Quick jobs never wait behind heavy ones: with every general worker held
// by a heavy job that does not end until the test says so, a batch of
// quick jobs published after it is answered by the reserved quick worker.
func TestQuickLaneNotStarved(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	release := make(chan struct{})
	var heavyStarted atomic.Int32
	e.start(t, worker.Options{Workers: 1, QuickWorkers: 1,
		Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
			if spec.Cells() == 25 {
				heavyStarted.Add(1)
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return echo(ctx, spec, text, opt)
		}})
	for i := range 2 {
		h := mkJob(9, int64(i), "24-puzzle")
		h.Puzzle, h.Mode = "24", "optimal" // the heavy lane by default budget
		e.publish(t, h)
	}
	for deadline := time.Now().Add(waitFor); heavyStarted.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no heavy job started")
		}
	}
	for i := range 20 {
		e.publish(t, mkJob(10, int64(i), "a", "b"))
	}
	got := e.results(t, 20)
	for _, r := range got {
		if r.BatchID != 10 {
			t.Fatalf("a heavy job finished before the quick batch: %+v", r)
		}
	}
	if n := heavyStarted.Load(); n != 1 {
		t.Errorf("%d heavy jobs started, want the one general worker's", n)
	}
	close(release)
	e.results(t, 2)
}

// A solverd consumer from before the lanes ends Run at once with
// ErrPreLanesConsumer instead of being retried for minutes: only the
// operator can remove it.
func TestPreLanesConsumerEndsRun(t *testing.T) {
	e := newEnv(t, queue.DefaultConfig())
	if _, err := e.js.CreateConsumer(e.ctx, queue.JobsStream, jetstream.ConsumerConfig{Durable: queue.JobsConsumer, AckPolicy: jetstream.AckExplicitPolicy}); err != nil {
		t.Fatal(err)
	}
	e.start(t, worker.Options{Solve: echo})
	if err := e.runErr(t, "Run retried a pre-lanes consumer"); !errors.Is(err, queue.ErrPreLanesConsumer) {
		t.Fatalf("Run: %v, want ErrPreLanesConsumer", err)
	}
}
