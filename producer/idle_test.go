package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/store"
)

// stuck is a batch that makes no progress for its first n reads.
type stuck struct{ n, calls int }

func (s *stuck) BatchProgress(context.Context, int64) (store.Batch, error) {
	s.calls++
	if s.calls < s.n {
		return store.Batch{Total: 3}, nil
	}
	now := time.Now()
	return store.Batch{Solved: 3, Done: 3, Total: 3, FinishedAt: &now}, nil
}

func (s *stuck) BatchDistribution(context.Context, int64) (store.Distribution, error) {
	return store.Distribution{Counts: []store.LengthCount{{Length: 4, Count: 3}}, Total: 3}, nil
}

// --wait with no solver running does not show "0 states/s" for ever:
// after stallNote without progress it asks the queue why, and says it
// once.
func TestWaitSaysWhyStalled(t *testing.T) {
	defer func(p, s time.Duration) { pollEvery, stallNote = p, s }(pollEvery, stallNote)
	pollEvery, stallNote = time.Millisecond, 30*time.Millisecond
	asked := 0
	idle := func(context.Context) string { asked++; return "no solverd is consuming TESSERA_JOBS" }
	var out, errs bytes.Buffer
	if err := follow(context.Background(), &stuck{n: 200}, 1, 3, true, time.Now(), nil, idle, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(errs.String(), "no solverd is consuming TESSERA_JOBS"); n != 1 || asked != 1 || !strings.Contains(errs.String(), "no progress for") {
		t.Errorf("said it %d times, asked %d:\n%s", n, asked, errs.String())
	}
}

// idleReason reads the queue: jobs with nobody pulling them, then results
// with no writer; nothing while a solver holds a pull request open.
func TestIdleReason(t *testing.T) {
	_, nc := natstest.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	qc := queue.DefaultConfig()
	if err := queue.EnsureStreams(ctx, js, qc); err != nil {
		t.Fatal(err)
	}
	if why := idleReason(ctx, js); why != "" {
		t.Errorf("empty queue: %q", why)
	}
	j := job.Job{V: job.Version, ID: "1-0", BatchID: 1, Puzzle: "sliding:3x3", States: []string{"1 2 3/4 5 6/7 8 0"}, Mode: "optimal"}
	if err := queuetest.PublishJob(ctx, js, j); err != nil {
		t.Fatal(err)
	}
	if why := idleReason(ctx, js); !strings.Contains(why, "no solverd is consuming TESSERA_JOBS (1 jobs wait") {
		t.Errorf("a job and no solverd: %q", why)
	}
	// A solver: it takes the job and holds it (ack pending).
	cons, err := queuetest.EnsureJobsConsumer(ctx, js, qc, job.LaneQuick)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := queue.Fetch(ctx, cons, 1, 5*time.Second)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("fetch: %d, %v", len(msgs), err)
	}
	if why := idleReason(ctx, js); why != "" {
		t.Errorf("a solver holding the job: %q", why)
	}
	if err := queuetest.PublishResults(ctx, js, job.Results{V: job.Version, JobID: "1-0", BatchID: 1, Puzzle: "sliding:3x3"}); err != nil {
		t.Fatal(err)
	}
	if why := idleReason(ctx, js); !strings.Contains(why, "no results writer is consuming TESSERA_RESULTS") {
		t.Errorf("results and no writer: %q", why)
	}
}

// With solverd processes registered but none pulling (cut off from
// JetStream, failing), the reason says how many are registered and what
// they are doing instead of asking for one to be started.
func TestIdleReasonRegistered(t *testing.T) {
	_, nc := natstest.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	qc := queue.DefaultConfig()
	if err := queue.EnsureStreams(ctx, js, qc); err != nil {
		t.Fatal(err)
	}
	j := job.Job{V: job.Version, ID: "1-0", BatchID: 1, Puzzle: "sliding:3x3", States: []string{"1 2 3/4 5 6/7 8 0"}, Mode: "optimal"}
	if err := queuetest.PublishJob(ctx, js, j); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, host := range []string{"a", "b"} {
		reg, err := queue.Register(ctx, js, qc, queue.WorkerKey("solverd", host, 10+i, now))
		if err != nil {
			t.Fatal(err)
		}
		e := queue.WorkerEntry{Role: "solverd", Host: host, PID: 10 + i, Started: now, Updated: now}
		if host == "b" {
			e.LastError, e.LastErrorAt = "worker: pull failed: nats: no responders available for request", now
		}
		if err := reg.Put(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	why := idleReason(ctx, js)
	for _, want := range []string{"1 jobs wait in TESSERA_JOBS", "2 solverd are registered", "a pid 10: 0 jobs in flight, no error logged",
		`b pid 11: 0 jobs in flight, last error "worker: pull failed: nats: no responders`, "solverd workers"} {
		if !strings.Contains(why, want) {
			t.Errorf("reason lacks %q: %s", want, why)
		}
	}
	if strings.Contains(why, "start `solverd run`") {
		t.Errorf("asks for a solverd while two are registered: %s", why)
	}
}
