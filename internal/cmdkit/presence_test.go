package cmdkit

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// A process's entry is in the registry from Start to stop, with its jobs
// in flight, their nodes and the rate, and the last warning it logged,
// with the credentials of any URL in it redacted.
func TestPresence(t *testing.T) {
	_, nc := natstest.Server(t)
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := NewPresence("results", []string{"results"}, 1, 0)
	log := slog.New(p.LogHandler(slog.NewTextHandler(io.Discard, nil)))
	log.Info("not an error")
	log.With("url", "x").Warn("connect to NATS failed; retrying",
		"err", "dial nats://alice:"+testenv.NATSPassword+"@127.0.0.1:1: connection refused")
	var progress atomic.Int64
	end := p.Begin(queue.JobInFlight{Batch: 2, FirstSeq: 5, States: 3, Puzzle: "sliding:4x4", Lane: "heavy", Delivery: 1,
		Started: time.Now()}, &progress)
	progress.Store(5000)
	p.SetTableSets(map[string]string{"sliding:4x4 optimal": "15-pdb-78"})

	stop := p.Start(js, queue.DefaultConfig(), log)
	var e queue.WorkerEntry
	for {
		ws, err := queue.Workers(ctx, js)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) == 1 {
			e = ws[0]
			break
		}
		if ctx.Err() != nil {
			t.Fatal("never registered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if e.Key != p.Key() || e.Role != "results" || len(e.Jobs) != 1 || e.Jobs[0].Nodes != 5000 || e.Nodes != 5000 ||
		e.TableSets["sliding:4x4 optimal"] != "15-pdb-78" || e.LastErrorAt.IsZero() {
		t.Errorf("entry %+v", e)
	}
	if !strings.HasPrefix(e.LastError, "connect to NATS failed; retrying: dial nats://alice:") || !strings.Contains(e.LastError, "connection refused") {
		t.Errorf("last error %q", e.LastError)
	}
	raw, _ := json.Marshal(e)
	testenv.NoSecrets(t, "registry entry", string(raw))

	end()
	if got := p.Entry(time.Now()); len(got.Jobs) != 0 || got.Nodes != 5000 {
		t.Errorf("after the job: %+v", got)
	}
	stop()
	if ws, err := queue.Workers(ctx, js); err != nil || len(ws) != 0 {
		t.Errorf("after stop: %+v, %v", ws, err)
	}
}

// The rate is the nodes expanded between two entries, per second.
func TestPresenceRate(t *testing.T) {
	p := NewPresence("solverd", []string{"quick"}, 1, 0)
	t0 := p.lastAt
	var progress atomic.Int64
	end := p.Begin(queue.JobInFlight{}, &progress)
	progress.Store(3000)
	if e := p.Entry(t0.Add(2 * time.Second)); e.NodesPerSecond != 1500 {
		t.Errorf("rate %v, want 1500", e.NodesPerSecond)
	}
	progress.Store(4000)
	end() // the job's nodes move to the process's total: no drop, no double count
	p.AddNodes(1000)
	if e := p.Entry(t0.Add(4 * time.Second)); e.NodesPerSecond != 1000 || e.Nodes != 5000 {
		t.Errorf("rate %v nodes %d, want 1000 and 5000", e.NodesPerSecond, e.Nodes)
	}
}
