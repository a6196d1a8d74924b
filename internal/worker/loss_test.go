package worker_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

// A poison job (a state whose solve panics every time) reaches its failed
// row in bounded time although the consumer's BackOff grows: nats-server
// adds BackOff[n-1]-BackOff[0] to NakWithDelay, which the worker must
// compensate. Here that extra would be 2.7 s + 5.7 s; the retry delays
// asked for total 70 ms. Run on the embedded 2.15 and, when installed, on
// the system nats-server (2.9.10).
func TestPoisonJobBoundedTime(t *testing.T) {
	cfg := queue.DefaultConfig()
	cfg.MaxDeliver = 4
	cfg.AckWait = 300 * time.Millisecond
	cfg.BackOff = []time.Duration{300 * time.Millisecond, 3 * time.Second, 6 * time.Second}
	for _, server := range []string{"embedded", "external"} {
		t.Run(server, func(t *testing.T) {
			var url string
			if server == "external" {
				url = natstest.External(t)
			} else {
				url, _ = natstest.Server(t)
			}
			nc, err := nats.Connect(url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(nc.Close)
			e := newEnvOn(t, nc, cfg)
			var calls atomic.Int32
			e.start(t, worker.Options{Workers: 1, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
				calls.Add(1)
				panic("poison")
			}})
			start := time.Now()
			e.publish(t, mkJob(1, 0, "boom"))
			got := e.results(t, 1)[0]
			took := time.Since(start)
			t.Logf("%s: poison job recorded failed after %v, %d solves", server, took.Round(time.Millisecond), calls.Load())
			if got.Results[0].Status != result.StatusFailed || !strings.Contains(got.Results[0].Error, "poison") {
				t.Errorf("result %+v", got.Results[0])
			}
			if took > 2500*time.Millisecond {
				t.Errorf("poison job took %v to be recorded; the BackOff extra was not compensated", took)
			}
		})
	}
}

// A result too large for one message (a move list of megabytes, as a big
// swap board's) is recorded without its moves, saying why, on the first
// delivery — it used to fail to publish on every delivery and end as
// "workers crashed".
func TestOversizedResultRecorded(t *testing.T) {
	e := newEnv(t, fastConfig())
	huge := strings.Repeat("1,1R ", 500_000) // 2.5 MB
	e.start(t, worker.Options{Workers: 1, Solve: func(_ context.Context, spec puzzle.Spec, text string, _ solve.Options) result.Result {
		return result.Result{Puzzle: spec.String(), State: text, Status: result.StatusSolved, Moves: huge, Length: 500_000, Optimal: true, LowerBound: 10}
	}})
	j := mkJob(1, 0, "big")
	j.Puzzle = "swap:4x4"
	e.publish(t, j)
	got := e.results(t, 1)[0].Results[0]
	if got.Status != result.StatusBudgetExceeded || got.Moves != "" || got.LowerBound != 500_000 || !strings.Contains(got.Error, "does not fit") {
		t.Errorf("result %+v", got)
	}
	eventually(t, "job acked", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
}

// Job messages left below their consumer's ack floor (as after a kill -9
// of nats-server: acknowledged, but the work-queue removal lost) are never
// delivered again; the sweep answers and removes them on its second look,
// and leaves deliverable messages alone. The stranding is made with a
// limits-retention TESSERA_JOBS, which keeps acked messages.
func TestStrandedJobsSwept(t *testing.T) {
	e := newEnv(t, fastConfig())
	if err := e.js.DeleteStream(e.ctx, queue.JobsStream); err != nil {
		t.Fatal(err)
	}
	if _, err := e.js.CreateStream(e.ctx, jetstream.StreamConfig{Name: queue.JobsStream, Subjects: []string{queue.JobsSubjects}}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		e.publish(t, mkJob(1, int64(i), "s"))
	}
	cons, err := e.js.CreateConsumer(e.ctx, queue.JobsStream, jetstream.ConsumerConfig{
		Durable: "stranding", AckPolicy: jetstream.AckExplicitPolicy, FilterSubject: queue.JobsSubjects})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		msgs, err := queue.Fetch(e.ctx, cons, 1, time.Second)
		if err != nil || len(msgs) != 1 {
			t.Fatal(len(msgs), err)
		}
		if err := msgs[0].DoubleAck(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	var s worker.Stranded
	if lines, err := s.SweepStranded(e.ctx, e.js); err != nil || len(lines) != 0 {
		t.Fatalf("first sweep acted: %v %v", lines, err)
	}
	lines, err := s.SweepStranded(e.ctx, e.js)
	if err != nil || len(lines) != 2 {
		t.Fatalf("second sweep: %d lines %v, want 2", len(lines), err)
	}
	if !strings.Contains(lines[0], "stranded") || !strings.Contains(lines[0], "job 1-0") {
		t.Errorf("report %q", lines[0])
	}
	if n := e.streamMsgs(t, queue.JobsStream); n != 1 {
		t.Errorf("jobs stream holds %d, want 1 (the deliverable one)", n)
	}
	for _, r := range e.results(t, 2) {
		if r.Results[0].Status != result.StatusFailed || !strings.Contains(r.Results[0].Error, "stranded") {
			t.Errorf("results %+v", r)
		}
	}
}
