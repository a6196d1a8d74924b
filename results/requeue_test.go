package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/internal/worker"
)

// Requeued states are solved again through the real pipeline (NATS, a
// worker with the real solvers, the results writer) and their better
// answers replace the stored rows, counts included.
func TestRequeueReplacesBetter(t *testing.T) {
	p := startPipeline(t)
	ctx, st, db, natsURL := p.ctx, p.st, p.db, p.natsURL

	// A 15-puzzle batch whose first run had too small a budget: three
	// states budget_exceeded, one solved.
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	rng := rand.New(rand.NewPCG(5, 6))
	id, err := st.CreateBatch(ctx, "15", "optimal", 4)
	if err != nil {
		t.Fatal(err)
	}
	first := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-0", id), BatchID: id, Puzzle: spec.String()}
	for i := range 4 {
		s := puzzle.RandomWalk(spec, rng, 24)
		r := result.Result{Puzzle: spec.String(), State: s.String(), Status: result.StatusBudgetExceeded,
			LowerBound: 2, Error: "budget exceeded after 10 nodes"}
		if i == 3 {
			r = result.Result{Puzzle: spec.String(), State: puzzle.Goal(spec).String(), Status: result.StatusSolved, Optimal: true}
		}
		first.Results = append(first.Results, r)
	}
	if _, err := st.InsertResults(ctx, []job.Results{first}); err != nil {
		t.Fatal(err)
	}

	// Usage errors: no new budget, a status more budget cannot fix.
	if code, _, e := cli(t, ctx, "requeue", "--batch", fmt.Sprint(id), db, natsURL); code != exitUsage || !strings.Contains(e, "--timeout") {
		t.Errorf("requeue without a budget: %d %s", code, e)
	}
	if code, _, e := cli(t, ctx, "requeue", "--batch", fmt.Sprint(id), "--status", "invalid", "--timeout", "1m", db, natsURL); code != exitUsage {
		t.Errorf("requeue of invalid rows: %d %s", code, e)
	}

	// A cancelled batch is refused, saying why, and nothing is published.
	cancelled, err := st.CreateBatch(ctx, "15", "optimal", 4)
	if err != nil {
		t.Fatal(err)
	}
	gone := first
	gone.BatchID, gone.JobID, gone.Results = cancelled, fmt.Sprintf("%d-0", cancelled), first.Results[:3] // unfinished
	if _, err := st.InsertResults(ctx, []job.Results{gone}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CancelBatch(ctx, cancelled); err != nil {
		t.Fatal(err)
	}
	if code, out, e := cli(t, ctx, "requeue", "--batch", fmt.Sprint(cancelled), "--timeout", "1m", db, natsURL); code != exitError ||
		out != "" || !strings.Contains(e, "was cancelled") || !strings.Contains(e, "would change nothing") {
		t.Errorf("requeue of a cancelled batch: %d %q %s", code, out, e)
	}

	p.run(t)
	code, out, e := cli(t, ctx, "requeue", "--batch", fmt.Sprint(id), "--timeout", "1m", db, natsURL)
	if code != exitOK || !strings.Contains(out, "requeued 3 states") || !strings.Contains(out, "heavy lane") {
		t.Fatalf("requeue: %d %q %s", code, out, e)
	}
	b := p.until(t, id, func(b store.Batch) bool { return b.Solved == 4 })
	if b.Solved != 4 || b.BudgetExceeded != 0 || b.Done != 4 {
		t.Fatalf("after requeue: %+v", b)
	}
	d, err := st.BatchDistribution(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d.Total != 4 {
		t.Errorf("distribution counts %d rows, want 4 (every row now optimal): %+v", d.Total, d)
	}
}

// A cancelled batch's queued jobs are answered as cancelled rows giving
// the reason, so the batch still finishes with one row per state; a
// requeue that names cancelled takes the cancel off and solves them.
func TestCancelBatch(t *testing.T) {
	p := startPipeline(t)
	ctx, st, db, natsURL := p.ctx, p.st, p.db, p.natsURL
	id, err := st.CreateBatch(ctx, "8", "optimal", 3)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, e := cli(t, ctx, "cancel", "--batch", fmt.Sprint(id), db, natsURL); code != exitOK || !strings.Contains(out, "cancelled") {
		t.Fatalf("cancel: %d %q %s", code, out, e)
	}
	p.run(t)
	j := job.Job{V: job.Version, ID: fmt.Sprintf("%d-0", id), BatchID: id, Puzzle: "8", Mode: "optimal",
		States: []string{"1 2 3/4 5 6/7 0 8", "1 2 3/4 5 6/0 7 8", "1 2 3/4 5 0/7 8 6"}}
	if err := queuetest.PublishJob(ctx, p.js, j); err != nil {
		t.Fatal(err)
	}
	b := p.until(t, id, store.Batch.Finished)
	if b.Cancelled != 3 || b.Solved != 0 || b.State(time.Now()) != "cancelled" {
		t.Fatalf("cancelled batch: %+v (%s)", b, b.State(time.Now()))
	}
	var rows strings.Builder
	if err := st.Export(ctx, id, &rows, store.FormatCSV); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(rows.String(), fmt.Sprintf("batch %d was cancelled", id)); n != 3 {
		t.Errorf("%d rows say the batch was cancelled, want 3:\n%s", n, rows.String())
	}
	if code, _, e := cli(t, ctx, "batches", db); code != exitOK {
		t.Fatalf("batches: %d %s", code, e)
	}
	if code, _, e := cli(t, ctx, "requeue", "--batch", fmt.Sprint(id), "--timeout", "10s", db, natsURL); code == exitOK || !strings.Contains(e, "add cancelled to --status") {
		t.Fatalf("requeue of a cancelled batch without --status cancelled: %d %s", code, e)
	}
	if code, out, e := cli(t, ctx, "requeue", "--batch", fmt.Sprint(id), "--status", "cancelled", "--timeout", "10s", db, natsURL); code != exitOK || !strings.Contains(out, "requeued 3 states") {
		t.Fatalf("requeue --status cancelled: %d %q %s", code, out, e)
	}
	b = p.until(t, id, func(b store.Batch) bool { return b.Solved == 3 })
	if b.Solved != 3 || b.Cancelled != 0 || b.Done != 3 || b.CancelledAt != nil {
		t.Fatalf("after requeue --status cancelled: %+v", b)
	}
}

// A paused batch's jobs wait (parked) while other work goes on, and are
// all solved once after unpause; `results batches` shows the pause.
func TestPauseBatch(t *testing.T) {
	p := startPipeline(t)
	ctx, st, db, natsURL := p.ctx, p.st, p.db, p.natsURL
	id, err := st.CreateBatch(ctx, "8", "optimal", 3)
	if err != nil {
		t.Fatal(err)
	}
	p.run(t)
	if code, out, e := cli(t, ctx, "pause", "--batch", fmt.Sprint(id), db, natsURL); code != exitOK || !strings.Contains(out, "paused") {
		t.Fatalf("pause: %d %q %s", code, out, e)
	}
	if b, _ := st.BatchProgress(ctx, id); b.State(time.Now()) != "paused" {
		t.Fatalf("state after pause: %s", b.State(time.Now()))
	}
	time.Sleep(200 * time.Millisecond) // the solvers hear of it in milliseconds
	for i, s := range []string{"1 2 3/4 5 6/7 0 8", "1 2 3/4 5 6/0 7 8", "1 2 3/4 5 0/7 8 6"} {
		j := job.Job{V: job.Version, ID: fmt.Sprintf("%d-%d", id, i), BatchID: id, Puzzle: "8", Mode: "optimal", FirstSeq: int64(i), States: []string{s}}
		if err := queuetest.PublishJob(ctx, p.js, j); err != nil {
			t.Fatal(err)
		}
	}
	other, err := st.CreateBatch(ctx, "8", "optimal", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := queuetest.PublishJob(ctx, p.js, job.Job{V: job.Version, ID: fmt.Sprintf("%d-0", other), BatchID: other, Puzzle: "8", Mode: "optimal", States: []string{"1 2 3/4 5 6/7 0 8"}}); err != nil {
		t.Fatal(err)
	}
	if b := p.until(t, other, store.Batch.Finished); !b.Finished() {
		t.Fatalf("another batch did not finish while one was paused: %+v", b)
	}
	if b, _ := st.BatchProgress(ctx, id); b.Done != 0 {
		t.Fatalf("a paused batch got %d rows", b.Done)
	}
	if code, out, e := cli(t, ctx, "unpause", "--batch", fmt.Sprint(id), db, natsURL); code != exitOK || !strings.Contains(out, "unpaused") {
		t.Fatalf("unpause: %d %q %s", code, out, e)
	}
	b := p.until(t, id, store.Batch.Finished)
	if b.Solved != 3 || b.Done != 3 || b.PausedAt != nil {
		t.Fatalf("after unpause: %+v", b)
	}
}

// pipeline is a real pipeline for one test: a private database (migrated
// by `results migrate`), an in-process NATS server with the streams, a
// worker with the real solvers and `results run`, stopped with the test.
type pipeline struct {
	ctx         context.Context
	st          *store.Store
	js          jetstream.JetStream
	db, natsURL string // the flags that point a command at them
}

func startPipeline(t *testing.T) *pipeline {
	t.Helper()
	isolate(t)
	u := storetest.SchemaURL(t)
	url, nc := natstest.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	p := &pipeline{ctx: ctx, db: "--database-url=" + u, natsURL: "--nats-url=" + url}
	if code, _, e := cli(t, ctx, "migrate", p.db); code != 0 {
		t.Fatalf("migrate: %d %s", code, e)
	}
	var err error
	if p.st, err = store.Open(ctx, u); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.st.Close)
	if p.js, err = queue.New(nc); err != nil {
		t.Fatal(err)
	}
	if err := queue.EnsureStreams(ctx, p.js, queue.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	return p
}

// run starts the worker (one general, one quick) and the writer.
func (p *pipeline) run(t *testing.T) {
	wctx, stop := context.WithCancel(p.ctx)
	t.Cleanup(stop)
	solver := solve.New(solve.NewRegistry(solve.Builtin()...))
	go worker.Run(wctx, p.js, worker.Options{Workers: 1, QuickWorkers: 1, Solve: solver.SolveText,
		PollWait: 100 * time.Millisecond, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go cli(t, wctx, "run", p.db, p.natsURL)
}

// until polls batch id until done says so or 30 s pass, and returns it.
func (p *pipeline) until(t *testing.T, id int64, done func(store.Batch) bool) store.Batch {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, err := p.st.BatchProgress(p.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if done(b) || time.Now().After(deadline) {
			return b
		}
	}
}

// The exact distribution of a puzzle, piped from solverd bfs, is stored and
// shown by dist beside the sampled one.
func TestExactDistribution(t *testing.T) {
	published, err := filepath.Abs("../internal/fulltable/testdata/sliding-3x3.txt") // solverd bfs --puzzle 8, as published
	if err != nil {
		t.Fatal(err)
	}
	isolate(t)
	u := storetest.SchemaURL(t)
	ctx := context.Background()
	db := "--database-url=" + u
	if code, _, e := cli(t, ctx, "migrate", db); code != 0 {
		t.Fatalf("migrate: %d %s", code, e)
	}
	withStdin := func(path string) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		old := os.Stdin
		os.Stdin = f
		t.Cleanup(func() { os.Stdin = old; f.Close() })
	}
	withStdin(published)
	code, out, e := cli(t, ctx, "exact", "--puzzle", "8", db)
	if code != exitOK || !strings.Contains(out, "181440 states, depths 0 to 31") {
		t.Fatalf("exact: %d %q %s", code, out, e)
	}
	svg := filepath.Join(t.TempDir(), "d.svg")
	code, out, e = cli(t, ctx, "dist", "--puzzle", "8", "--svg", svg, db)
	if code != exitOK || !strings.Contains(out, "total 0\n") || !strings.Contains(out, "exact mean 21.9724 (181440 states)") {
		t.Fatalf("dist: %d %q %s", code, out, e)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), `class="exact"`) || !strings.Contains(string(b), "sliding:3x3") {
		t.Errorf("svg: %v\n%s", err, b)
	}
	// Junk is refused, naming the line.
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("0 1\n2 5\n"), 0o644)
	withStdin(bad)
	if code, _, e := cli(t, ctx, "exact", "--puzzle", "8", db); code == exitOK || !strings.Contains(e, "line 2") {
		t.Errorf("exact of junk: %d %s", code, e)
	}
}

// generate=true enqueues sampled candidates for what is missing, once per
// puzzle and length while that batch is solved, and the scrambles come in.
func TestScramblesGenerate(t *testing.T) {
	p := startPipeline(t)
	p.run(t)
	js := p.js
	gen := newSampler(p.ctx, p.st, js, queue.DefaultConfig(), 1<<20, slog.New(slog.DiscardHandler), 1)
	const writer = "writer-token-0123456789"
	guard := httpauth.NewGuard("", []httpauth.Writer{{Name: "w", Token: writer}})
	srv := httptest.NewServer(guard.Wrap(httpapi.New(p.st, nil, httpapi.WithGenerator(gen))))
	defer srv.Close()
	// generate=true enqueues work: a caller without a writer token may not.
	resp, err := srv.Client().Get(srv.URL + "/api/scrambles?puzzle=8&length=20&count=5&generate=true")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("generate=true without a writer token: %d, want 403", resp.StatusCode)
	}
	get := func() httpapi.Scrambles {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/api/scrambles?puzzle=8&length=20&count=5&client=c&generate=true", nil)
		req.Header.Set("Authorization", "Bearer "+writer)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var s httpapi.Scrambles
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&s) != nil {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return s
	}
	first := get()
	if first.Missing != 5 || first.Generating == nil || first.Generating.Candidates < 5 {
		t.Fatalf("first: %+v", first)
	}
	if again := get(); again.Generating == nil || again.Generating.Batch != first.Generating.Batch {
		// Only a batch still being solved is reused: on a quick machine
		// the first may be over already (finished, or cancelled once
		// enough states of the length were stored), and then a second
		// request may well start another.
		b, err := p.st.BatchProgress(p.ctx, first.Generating.Batch)
		if err != nil {
			t.Fatal(err)
		}
		if st := b.State(time.Now()); st != "finished" && st != "cancelled" {
			t.Errorf("a second request while batch %d is %s made another: %+v", first.Generating.Batch, st, again)
		}
	}
	p.until(t, first.Generating.Batch, func(b store.Batch) bool { return b.Finished() || b.CancelledAt != nil })
	// 200 random 8-puzzles hold several of length 20 (about 9 % are).
	got := get()
	if got.Count == 0 {
		t.Errorf("no scrambles after the batch: %+v", got)
	}
	for _, s := range got.Scrambles {
		if *s.Length != 20 || !s.Optimal {
			t.Errorf("scramble %+v", s)
		}
	}
	// Without a generator the option is refused, naming the command.
	plain := httptest.NewServer(httpapi.New(p.st, nil))
	defer plain.Close()
	resp, err = plain.Client().Get(plain.URL + "/api/scrambles?puzzle=8&length=31&count=5&generate=true")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotImplemented {
		t.Errorf("generate without a generator: %d", resp.StatusCode)
	}
}

// Once as many states of the length as were asked for are stored, the rest
// of the generation batch is cancelled, in PostgreSQL and for the solvers
// (asked for 3, no solver goes on through the other candidates), and the next
// request may generate again. settle is called directly, so no solver
// races the check.
func TestGenerateCancelsRest(t *testing.T) {
	p := startPipeline(t)
	ctx := p.ctx
	gen := newSampler(ctx, p.st, p.js, queue.DefaultConfig(), 1<<20, slog.New(slog.DiscardHandler), 2)
	gen.every = time.Hour // the test settles by hand
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}
	batch, n, err := gen.Generate(ctx, spec, 20, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n > 200 {
		t.Errorf("2 missing on an empty store: %d candidates, want at most 200", n)
	}
	k := genKey{spec.String(), 20}
	if done, err := gen.settle(ctx, batch, k, 2); err != nil || done {
		t.Fatalf("nothing found yet: settle %v %v", done, err)
	}
	// Two states of length 20 come in (from any batch).
	other, err := p.st.CreateBatch(ctx, "8", "optimal", 2)
	if err != nil {
		t.Fatal(err)
	}
	rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-0", other), BatchID: other, Puzzle: spec.String()}
	for i := range 2 {
		rs.Results = append(rs.Results, result.Result{Puzzle: spec.String(), State: fmt.Sprint("found ", i), Status: result.StatusSolved,
			Length: 20, Optimal: true, LowerBound: 20, Moves: strings.TrimSpace(strings.Repeat("U ", 20))})
	}
	if _, err := p.st.InsertResults(ctx, []job.Results{rs}); err != nil {
		t.Fatal(err)
	}
	if done, err := gen.settle(ctx, batch, k, 2); err != nil || !done {
		t.Fatalf("enough found: settle %v %v", done, err)
	}
	if b, err := p.st.BatchProgress(ctx, batch); err != nil || b.CancelledAt == nil {
		t.Errorf("generation batch not cancelled: %+v %v", b, err)
	}
	view, err := queue.WatchCancelled(ctx, p.js, queue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := view.At(batch); !ok {
		t.Error("the solvers were not told of the cancel")
	}
	if next, _, err := gen.Generate(ctx, spec, 20, 1); err != nil || next == batch {
		t.Errorf("after the cancel a new request made batch %d (%v), want a new one", next, err)
	}
}
