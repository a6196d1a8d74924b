package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/split"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// `results splits` shows each split search's iteration, subtrees answered
// of total, nodes and end, from the records in the bucket.
func TestSplitsProgress(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, nc := natstest.Server(t)
	db := "--database-url=" + storetest.SchemaURL(t)
	if code, out, e := cli(t, ctx, "splits", db, "--nats-url="+url); code != exitOK || strings.Count(out, "\n") != 1 {
		t.Fatalf("no bucket: %d %q %s", code, out, e)
	}
	s := openSplits(ctx, t, nc)
	r := split.NewRecord(job.Job{ID: "5-2", BatchID: 5}, 2, "1 2 3/4 5 6/7 0 8", 40, search.Budget{}, time.Now())
	split.Lay(&r, 3, 12, 500, 42)
	split.Apply(&r, job.SubtreeAnswer{Iteration: 1, Index: 4, Nodes: 1000, Next: 42})
	if _, err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	other := split.NewRecord(job.Job{ID: "6-0", BatchID: 6}, 0, "x", 1, search.Budget{}, time.Now())
	if _, err := s.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	code, out, e := cli(t, ctx, "splits", "--batch", "5", db, "--nats-url="+url)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 2 || !strings.Contains(lines[1], " 1/12 ") || !strings.Contains(lines[1], " 1500 ") || !strings.Contains(lines[1], "running") {
		t.Fatalf("splits --batch 5: %d\n%s%s", code, out, e)
	}
	code, out, e = cli(t, ctx, "splits", "--json", db, "--nats-url="+url)
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%q: %v (%s)", l, err, e)
		}
		got = append(got, v)
	}
	if code != exitOK || len(got) != 2 || got[0]["subtrees"] != 12.0 || got[0]["subtrees_answered"] != 1.0 || got[1]["subtrees"] != -1.0 {
		t.Fatalf("splits --json: %d %v", code, got)
	}
}

// `results batches` shows a split search's progress under its batch, and
// in --json; without NATS it shows the batches and says on stderr why the
// progress is missing.
func TestBatchesShowSplitProgress(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, nc := natstest.Server(t)
	u := storetest.SchemaURL(t)
	db := "--database-url=" + u
	if code, _, e := cli(t, ctx, "migrate", db); code != exitOK {
		t.Fatalf("migrate: %d %s", code, e)
	}
	st, err := store.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.CreateBatch(ctx, "sliding:4x4", "optimal", 3)
	if err != nil {
		t.Fatal(err)
	}
	s := openSplits(ctx, t, nc)
	r := split.NewRecord(job.Job{ID: "x", BatchID: id}, 2, "s", 40, search.Budget{}, time.Now())
	split.Lay(&r, 3, 12, 500, 42)
	split.Apply(&r, job.SubtreeAnswer{Iteration: 1, Index: 4, Nodes: 1000, Next: 42})
	if _, err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	// Another batch's record is not shown under this one.
	if _, err := s.Create(ctx, split.NewRecord(job.Job{ID: "y", BatchID: id + 1}, 0, "s", 1, search.Budget{}, time.Now())); err != nil {
		t.Fatal(err)
	}
	code, out, e := cli(t, ctx, "batches", db, "--nats-url="+url)
	want := "split state 2: iteration 1, bound 40, subtrees 1/12, 1500 nodes, lower bound 40, running for "
	if code != exitOK || strings.Count(out, "split state") != 1 || !strings.Contains(out, want) || e != "" {
		t.Fatalf("batches: %d\n%s%s", code, out, e)
	}
	code, out, e = cli(t, ctx, "batches", "--json", db, "--nats-url="+url)
	var v struct {
		ID     int64       `json:"id"`
		Splits []splitView `json:"splits"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &v); err != nil || code != exitOK {
		t.Fatalf("batches --json: %d %q %v %s", code, out, err, e)
	}
	if len(v.Splits) != 1 || v.Splits[0].Seq != 2 || v.Splits[0].Answered != 1 || v.Splits[0].Total != 12 || v.Splits[0].Nodes != 1500 || v.Splits[0].Iteration != 1 {
		t.Fatalf("batches --json splits: %+v", v.Splits)
	}
	code, out, e = cli(t, ctx, "batches", db, "--nats-url=nats://127.0.0.1:1")
	if code != exitOK || !strings.Contains(out, "sliding:4x4") || strings.Contains(out, "split state") || !strings.Contains(e, "progress not shown") {
		t.Fatalf("batches without NATS: %d\n%s%s", code, out, e)
	}
}

// results serve's reader of split progress: a batch's records from NATS,
// and, without NATS, an error saying it tries again (the page shows it).
func TestServeSplitsReader(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, nc := natstest.Server(t)
	s := openSplits(ctx, t, nc)
	for _, b := range []int64{3, 4} {
		if _, err := s.Create(ctx, split.NewRecord(job.Job{ID: "x", BatchID: b}, 1, "s", 40, search.Budget{}, time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	var cfg config.NATS
	cfg.URL = url
	r := &natsSplits{cfg: cfg}
	defer r.Close()
	rs, err := r.Splits(ctx, 4)
	if err != nil || len(rs) != 1 || rs[0].Batch != 4 || rs[0].Bound != 40 {
		t.Fatalf("splits of batch 4: %+v %v", rs, err)
	}
	cfg.URL = "nats://127.0.0.1:1"
	down := &natsSplits{cfg: cfg}
	defer down.Close()
	for range 2 { // the second answers the first failure, without dialling
		if rs, err := down.Splits(ctx, 4); err == nil || len(rs) != 0 || !strings.Contains(err.Error(), "tried again every 30s") {
			t.Fatalf("without NATS: %+v %v", rs, err)
		}
	}
}

// openSplits opens (creating) the split records' bucket on nc.
func openSplits(ctx context.Context, t *testing.T, nc *nats.Conn) *queue.Splits {
	t.Helper()
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := queue.OpenSplits(ctx, js, queue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return s
}
