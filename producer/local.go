package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/cmdkit/solverkit"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/worker"
)

// local is the whole pipeline in this process: an in-process nats-server
// with JetStream on a temporary store, the solver workers and the results
// writer — the same loops solverd and results run, built by the same
// constructors (solverkit.WorkerOptions, cmdkit.RunWriter) and stopped as
// one (cmdkit.Loops).
type local struct {
	srv    *server.Server
	nc     *nats.Conn
	conn   *cmdkit.Conn // nc with its JetStream and the streams' settings
	dir    string
	loops  *cmdkit.Loops
	failed <-chan error // a loop that stopped early, with its error
	tables *solve.Loaded
	// workers is the solver workers' wiring, as `solverd run` builds it.
	workers     worker.Options
	stopMetrics func()
	unregister  func() // removes this process from the registry of workers
}

// localGC lets the collector run less often in a --local run, unless
// GOGC or GOMEMLIMIT say otherwise. The process holds the embedded NATS
// server, pgx and the writer's decoded batches, and each cycle marks them
// all: a higher GOGC trades resident memory for CPU. The soft limit keeps
// a large run from growing the heap past 1 GiB; tables are mapped files,
// outside both.
func localGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
	}
}

// startLocal starts the in-process pipeline. Table notices for the
// puzzle being produced go to note.
func startLocal(ctx context.Context, cfg config.Config, qcfg queue.Config, st *store.Store, log *slog.Logger, puzzle string, note func(string)) (_ *local, err error) {
	localGC()
	for _, d := range sweepLocalStores(os.TempDir()) {
		note("removed the NATS store of an earlier --local run that was killed: " + d)
	}
	dir, err := os.MkdirTemp("", localPrefix)
	if err != nil {
		return nil, fmt.Errorf("local pipeline: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("local pipeline: %w", err)
	}
	l := &local{dir: dir}
	defer func() {
		if err != nil {
			l.stop()
		}
	}()
	if l.tables, err = solve.Tables(cfg.Solver.TablesDir, cfg.Solver.Tables, cfg.Solver.TablesPrivate); err != nil {
		return nil, fmt.Errorf("local pipeline: %w", err)
	}
	for _, n := range l.tables.Notices {
		if n.Puzzle == puzzle {
			note(n.Text)
		}
	}
	if l.srv, l.nc, err = queue.StartEmbedded(dir); err != nil {
		return nil, fmt.Errorf("local pipeline: %w", err)
	}
	if l.conn, err = cmdkit.Adopt(l.nc, cfg.NATS); err != nil {
		return nil, err
	}
	// The in-process connection's state for /readyz and
	// tessera_nats_connected, as the daemons report theirs; nothing to
	// log, since it ends with the process.
	health := cmdkit.NewHealth()
	health.Watch(cfg.NATS, nil).Follow(l.nc)
	health.Started()
	conn := l.conn
	conn.Queue = qcfg
	conn.Queue.MaxBytes = queue.FitMaxBytes(l.srv, qcfg.MaxBytes)
	// The server and its store end with this process: consumer state in
	// files would only cost writes.
	conn.Queue.MemoryConsumers = true
	src, deadSrc, err := conn.WriterSources(ctx, log)
	if err != nil {
		return nil, err
	}
	var obs *metrics.Solver
	obs, l.stopMetrics = solverkit.SolverMetrics(cfg.Solver, health, log)
	presence := solverkit.NewPresence("producer", cfg.Solver)
	presence.SetTableSets(l.tables.Roles)
	l.workers = solverkit.WorkerOptions(cfg.Solver, conn.Queue, solve.New(l.tables.Registry()), log, obs, presence)
	l.unregister = presence.Start(conn.JS, conn.Queue, log)
	// An idle worker's pull is not cut short when the batch is done:
	// stopping waits for it. Here it costs an in-process round trip, so
	// the pipeline stops within 50 ms instead of 500.
	l.workers.PollWait = localPollWait
	l.loops = cmdkit.NewLoops(ctx, "local pipeline")
	l.failed = l.loops.Failed()
	l.loops.Go("solver workers", func(ctx context.Context) error { return worker.Run(ctx, conn.JS, l.workers) })
	wm, stopWriterMetrics := cmdkit.WriterMetrics(cfg.Results, health, log)
	l.loops.Go("results writer", func(ctx context.Context) error {
		defer stopWriterMetrics()
		return cmdkit.RunWriter(ctx, src, deadSrc, st, wm, cfg.Results, log)
	})
	return l, nil
}

// stop drains the loops, then shuts the server down and removes its store.
func (l *local) stop() error {
	var errs []error
	if l.loops != nil {
		errs = append(errs, l.loops.Stop())
	}
	if l.stopMetrics != nil {
		l.stopMetrics()
	}
	if l.unregister != nil {
		l.unregister()
	}
	if l.nc != nil {
		l.nc.Close()
	}
	if l.tables != nil {
		// The workers have stopped: nothing reads the tables any more.
		if err := l.tables.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if l.srv != nil {
		l.srv.Shutdown()
		l.srv.WaitForShutdown()
	}
	if err := os.RemoveAll(l.dir); err != nil {
		errs = append(errs, fmt.Errorf("local pipeline: remove %s: %w", l.dir, err))
	}
	return errors.Join(errs...)
}

// The in-process NATS store of a --local run lives in a directory named
// localPrefix* under the temp directory, with the owning process's pid in
// ownerFile; stop removes it. A run killed with -9 cannot, so the next one
// sweeps the stores whose owner is gone.
const (
	localPollWait = 50 * time.Millisecond
	localPrefix   = "tessera-local-"
	ownerFile     = "owner.pid"
)

// sweepLocalStores removes the stores under parent whose owner process is
// no longer alive and returns their paths. Stores it cannot judge (no
// owner file yet: a run starting right now) are left alone.
func sweepLocalStores(parent string) []string {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), localPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || alive(pid) {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// alive reports whether a process with this pid exists (signal 0 checks
// without sending anything; EPERM means it exists under another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
