package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// A producer that died before finishing its enqueue leaves a stalled
// batch; `producer resume` reads the same states from the recorded source
// and finishes it, and running it again does nothing more. The first 500
// states already have rows (the dead run's work): they are not counted
// twice.
func TestResumeInterruptedBatch(t *testing.T) {
	url := storetest.SchemaURL(t)
	st := openStore(t, url)
	ctx := context.Background()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}
	const total, seed = 2000, 7
	batch, err := st.CreateBatch(ctx, "8", "optimal", total)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetBatchSource(ctx, batch, sourceRecord{Random: total, Seed: seed}, optionsRecord{Mode: "optimal", Chunk: 100}, ""); err != nil {
		t.Fatal(err)
	}
	// The dead run's rows: the first 500 states, as the same seed makes them.
	var first []string
	randomStates(spec, total, seed).each(func(s string) error {
		if len(first) < 500 {
			first = append(first, s)
		}
		return nil
	})
	done := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-0", batch), BatchID: batch, Puzzle: spec.String()}
	for _, s := range first {
		done.Results = append(done.Results, result.Result{Puzzle: spec.String(), State: s, Status: result.StatusBudgetExceeded, Error: "budget"})
	}
	if _, err := st.InsertResults(ctx, []job.Results{done}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetEnqueued(ctx, batch, 500); err != nil {
		t.Fatal(err)
	}
	b, err := st.BatchProgress(ctx, batch)
	if err != nil || b.State(time.Now().Add(time.Hour)) != "stalled" {
		t.Fatalf("before resume: %+v (%s), %v", b, b.State(time.Now().Add(time.Hour)), err)
	}

	code, stdout, stderr := runProducer(t, "resume", fmt.Sprint(batch), "--local", "-q", "--database-url", url)
	if code != exitOK || !strings.Contains(stderr, fmt.Sprintf("resuming batch %d", batch)) {
		t.Fatalf("resume: exit %d\n%s%s", code, stdout, stderr)
	}
	b, err = st.BatchProgress(ctx, batch)
	if err != nil || !b.Finished() || b.Done != total || b.Solved+b.BudgetExceeded != total {
		t.Fatalf("after resume: %+v, %v", b, err)
	}
	if code, _, stderr := runProducer(t, "resume", fmt.Sprint(batch), "--database-url", url); code != exitOK || !strings.Contains(stderr, "nothing to resume") {
		t.Errorf("second resume: exit %d %s", code, stderr)
	}
	if code, _, stderr := runProducer(t, "resume", "x"); code != exitUsage {
		t.Errorf("resume x: exit %d %s", code, stderr)
	}
}

// Without --local, resume publishes only the states after the enqueued
// mark: the server already holds the jobs before it.
func TestResumeFromEnqueuedMark(t *testing.T) {
	url := storetest.SchemaURL(t)
	natsURL, nc := natstest.Server(t)
	st := openStore(t, url)
	ctx := context.Background()
	batch := randomBatch(t, st)
	if err := st.SetEnqueued(ctx, batch, 600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runProducer(t, "resume", fmt.Sprint(batch), "-q", "--database-url", url, "--nats-url", natsURL)
	if code != exitOK || !strings.Contains(stderr, "from state 600 of 1000") {
		t.Fatalf("resume: exit %d %s", code, stderr)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, queue.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	var states, first int64 = 0, 1 << 62
	for seq := uint64(1); seq <= s.CachedInfo().State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		var j job.Job
		if err := json.Unmarshal(m.Data, &j); err != nil {
			t.Fatal(err)
		}
		states += int64(len(j.States))
		first = min(first, j.FirstSeq)
	}
	if states != 400 || first != 600 {
		t.Errorf("resume published %d states from seq %d, want 400 from 600", states, first)
	}
	b, err := st.BatchProgress(ctx, batch)
	if err != nil || b.Enqueued != 1000 {
		t.Errorf("enqueued mark after resume: %+v, %v", b, err)
	}
}

// A resume that meets jobs the server already holds (its enqueued mark
// lagging behind them) sums them up in one line, not one per job.
func TestResumeSumsUpQueuedJobs(t *testing.T) {
	url := storetest.SchemaURL(t)
	natsURL, nc := natstest.Server(t)
	st := openStore(t, url)
	ctx := context.Background()
	batch := randomBatch(t, st)
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := queue.EnsureStreams(ctx, js, queue.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	for _, first := range []int64{600, 700, 800} { // queued by the run that died before recording them
		j := job.Job{V: job.Version, ID: fmt.Sprintf("%d-%d", batch, first), BatchID: batch, Puzzle: "sliding:3x3", FirstSeq: first,
			States: []string{"1 2 3/4 5 6/7 8 0"}, Mode: "optimal"}
		if err := queuetest.PublishJob(ctx, js, j); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := runProducer(t, "resume", fmt.Sprint(batch), "-q", "--database-url", url, "--nats-url", natsURL)
	want := fmt.Sprintf("producer: 3 of those jobs (300 states, from job %d-600 on) were already queued", batch)
	if code != exitOK || !strings.Contains(stderr, want) || strings.Contains(stderr, "a job with this id") {
		t.Errorf("resume: exit %d\n%s", code, stderr)
	}
}

// randomBatch migrates st and records in it a batch of 1000 random 8-puzzle
// states (seed 9, chunks of 100) that nothing has enqueued yet.
func randomBatch(t *testing.T, st *store.Store) int64 {
	t.Helper()
	ctx := context.Background()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	batch, err := st.CreateBatch(ctx, "8", "optimal", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetBatchSource(ctx, batch, sourceRecord{Random: 1000, Seed: 9}, optionsRecord{Mode: "optimal", Chunk: 100}, ""); err != nil {
		t.Fatal(err)
	}
	return batch
}
