package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/ingest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/worker"
)

// local is the whole pipeline in this process: an in-process nats-server
// with JetStream on a temporary store, the solver workers and the results
// writer — the same loops solverd and results run.
type local struct {
	srv    *server.Server
	nc     *nats.Conn
	dir    string
	cancel context.CancelFunc
	loops  chan error // one value per loop when it returns
	failed chan error // a loop that stopped early, with its error
	n      int        // loops started
	tables *solve.Loaded
}

// startLocal starts the in-process pipeline. Table notices for the
// puzzle being produced go to note.
func startLocal(ctx context.Context, cfg config.Config, qcfg queue.Config, st *store.Store, log *slog.Logger, puzzle string, note func(string)) (_ *local, err error) {
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
	l := &local{dir: dir, loops: make(chan error, 3), failed: make(chan error, 3)}
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
	js, err := queue.New(l.nc)
	if err != nil {
		return nil, err
	}
	if err := queue.EnsureStreams(ctx, js, qcfg); err != nil {
		return nil, err
	}
	rc, err := queue.EnsureResultsConsumer(ctx, js, qcfg)
	if err != nil {
		return nil, err
	}
	src, err := queue.NewResultsSource[ingest.Msg](rc)
	if err != nil {
		return nil, err
	}
	dc, err := queue.EnsureDeadCopiesConsumer(ctx, js, qcfg)
	if err != nil {
		return nil, err
	}
	deadSrc, err := queue.NewDeadJobsSource[ingest.Msg](dc)
	if err != nil {
		return nil, err
	}
	solver := solve.New(l.tables.Registry())
	runCtx, cancel := context.WithCancel(ctx)
	l.cancel = cancel
	l.start(runCtx, "solver workers", func(ctx context.Context) error {
		return worker.Run(ctx, js, worker.Options{Workers: cfg.Solver.Workers, QuickWorkers: cfg.Solver.QuickWorkers, Queue: &qcfg, Log: log, Solve: solver.SolveText, Split: solver.Split})
	})
	l.start(runCtx, "results writer", func(ctx context.Context) error {
		return ingest.Run(ctx, src, st, ingest.Options{FetchBatch: cfg.Results.FetchBatch, FetchWait: cfg.Results.FetchWait, Logger: log})
	})
	l.start(runCtx, "dead-letter recorder", func(ctx context.Context) error {
		return ingest.RunDeadJobs(ctx, deadSrc, st, ingest.Options{FetchWait: cfg.Results.FetchWait, Logger: log})
	})
	return l, nil
}

func (l *local) start(ctx context.Context, name string, f func(context.Context) error) {
	l.n++
	go func() {
		err := f(ctx)
		if err != nil {
			err = fmt.Errorf("local pipeline: %s: %w", name, err)
		} else if ctx.Err() == nil {
			err = fmt.Errorf("local pipeline: %s stopped", name)
		}
		if ctx.Err() == nil {
			l.failed <- err
		}
		l.loops <- err
	}()
}

// stop drains the loops, then shuts the server down and removes its store.
func (l *local) stop() error {
	var errs []error
	if l.cancel != nil {
		l.cancel()
		for range l.n {
			if err := <-l.loops; err != nil && !errors.Is(err, context.Canceled) {
				errs = append(errs, err)
			}
		}
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
	localPrefix = "tessera-local-"
	ownerFile   = "owner.pid"
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
