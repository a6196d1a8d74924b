package main

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/search"
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
	cfg.Solver.Timeout = 7 * time.Second
	cfg.Solver.Threads = 3
	cfg.Solver.Workers = 1
	cfg.Solver.SplitSubtreeNodes, cfg.Solver.SplitWindow, cfg.Solver.SplitStall = 1<<16, 7, 3*time.Second
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

	// The host's caps and threads go to the workers as `solverd run`
	// gives them (worker.Run caps every job with them).
	if want := (search.Budget{MaxNodes: cfg.Solver.MaxNodes, Timeout: cfg.Solver.Timeout}); l.workers.Ceiling != want || l.workers.Threads != cfg.Solver.Threads {
		t.Errorf("workers capped at %+v with %d threads, want %+v and %d", l.workers.Ceiling, l.workers.Threads, want, cfg.Solver.Threads)
	}
	if l.workers.SubtreeNodes != 1<<16 || l.workers.SubtreeWindow != 7 || l.workers.SplitStall != 3*time.Second {
		t.Errorf("split subtrees of %d nodes, window %d, stall %v: not the configured ones", l.workers.SubtreeNodes, l.workers.SubtreeWindow, l.workers.SplitStall)
	}
	// And the keys that set them are --local's flags, as they are solverd run's.
	for _, k := range []string{"solver.threads", "solver.split_subtree_nodes", "solver.split_window", "solver.split_stall", "solver.metrics_addr", "solver.metrics_token"} {
		if !slices.Contains(producerKeys.Names(), k) {
			t.Errorf("producer --local does not read %s", k)
		}
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
