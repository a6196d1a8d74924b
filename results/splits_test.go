package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// `results splits` shows each split search's iteration, subtrees answered
// of total, nodes and end, from the records in the bucket.
func TestSplitsProgress(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, nc := natstest.Server(t)
	db := "--database-url=" + storetest.SchemaURL(t)
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, e := cli(t, ctx, "splits", db, "--nats-url="+url); code != exitOK || strings.Count(out, "\n") != 1 {
		t.Fatalf("no bucket: %d %q %s", code, out, e)
	}
	s, err := queue.OpenSplits(ctx, js, queue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r := job.NewSplitRecord(job.Job{ID: "5-2", BatchID: 5}, 2, "1 2 3/4 5 6/7 0 8", 40, time.Now())
	r.Lay(3, 12, 500, 42)
	r.Apply(job.SubtreeAnswer{Iteration: 1, Index: 4, Nodes: 1000, Next: 42})
	if _, err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	other := job.NewSplitRecord(job.Job{ID: "6-0", BatchID: 6}, 0, "x", 1, time.Now())
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
