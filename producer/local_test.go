package main

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// --local runs the services' wiring, not a lighter copy: its workers come
// from solverkit.WorkerOptions as `solverd run`'s do, so this host's caps
// bound a job that asks for no budget (the old --local wiring had none
// and solved it), and the context's end (SIGTERM in the main) drains the
// workers and the writer with nothing reported as failed.
func TestLocalRunsTheServicesWiring(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.SchemaURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Solver.Tables = "none"
	cfg.Solver.MaxNodes = 1000
	cfg.Solver.Workers = 1
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	l, err := startLocal(runCtx, cfg, cmdkit.QueueConfig(cfg.NATS), st, slog.New(slog.NewTextHandler(io.Discard, nil)), "sliding:4x4", func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			l.stop()
		}
	}()

	// A uniform 15-puzzle state is some 50 moves from the goal: far
	// beyond 1000 nodes of IDA* without tables.
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	hard := puzzle.Random(spec, rand.New(rand.NewPCG(1, 2))).String()
	r := l.workers.Solve(ctx, spec, hard, solve.Options{Mode: result.ModeOptimal})
	if r.Status != result.StatusBudgetExceeded || r.Nodes > 2*cfg.Solver.MaxNodes {
		t.Errorf("a job with no budget under solver.max_nodes=%d: %s after %d nodes, want budget_exceeded",
			cfg.Solver.MaxNodes, r.Status, r.Nodes)
	}
	if l.workers.Workers != 1 || l.workers.Queue == nil || !reflect.DeepEqual(*l.workers.Queue, l.conn.Queue) {
		t.Errorf("workers %d, queue %+v: not the configured wiring", l.workers.Workers, l.workers.Queue)
	}

	cancel() // the signal
	stopped = true
	if err := l.stop(); err != nil {
		t.Errorf("stop after a signal: %v, want a clean drain", err)
	}
	select {
	case err := <-l.failed:
		t.Errorf("a signal was reported as a failure: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
}
