// Package solverkit is the solver side of the command kit (internal/cmdkit):
// the solver workers' wiring that `solverd run` and `producer --local`
// share. Apart from cmdkit, so that the results binary links no solver.
package solverkit

import (
	"context"
	"log/slog"
	"runtime"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

// Solver is what the workers solve with: a solve.Solver, or the
// solve.Live of a daemon whose tables change while it runs.
type Solver interface {
	SolveText(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result
	// Split lends a state's splitter to split searches (producer --split).
	Split(spec puzzle.Spec, f func(search.Splitter) error) (bool, error)
}

var (
	_ Solver = (*solve.Solver)(nil)
	_ Solver = (*solve.Live)(nil)
)

// WorkerOptions is the solver workers' wiring, the one constructor
// `solverd run` and `producer --local` share: this host's worker counts,
// its caps on every job's budget and its search threads, the streams'
// settings, the metrics when obs is not nil, and the jobs in flight and
// nodes in this process's entry of the registry of workers when p is not
// nil (Presence). worker.Run adds the dead-letter handler and the
// stranded-jobs sweep.
func WorkerOptions(s config.Solver, qc queue.Config, solver Solver, log *slog.Logger, obs *metrics.Solver, p *cmdkit.Presence) worker.Options {
	opts := worker.Options{
		Workers:      s.Workers,
		QuickWorkers: s.QuickWorkers,
		Queue:        &qc,
		// This host's caps on every job's budget, and its search threads.
		Ceiling: search.Budget{MaxNodes: s.MaxNodes, Timeout: s.Timeout},
		Threads: s.Threads,
		Solve:   solver.SolveText,
		Split:   solver.Split, // jobs marked split (producer --split)
		// Zero (a Config not from config.Default) leaves the worker's defaults.
		SubtreeNodes:  s.SplitSubtreeNodes,
		SubtreeWindow: s.SplitWindow,
		SplitStall:    s.SplitStall,
		Log:           log,
	}
	opts.Solve = exact(opts.Solve)
	if obs != nil {
		opts.Solve = Observe(obs, opts.Solve)
		opts.OnSubtrees = obs.Subtrees
		opts.OnSplitRow = obs.SplitSolved
		obs.Workers(workersOrCores(s.Workers), s.QuickWorkers)
	}
	if obs != nil || p != nil {
		opts.OnJob = func(j worker.JobInfo) func() {
			done := func() {}
			if obs != nil {
				done = obs.JobClaimed(j.Lane, j.Published, j.Delivery)
			}
			end := p.Begin(queue.JobInFlight{Batch: j.Batch, FirstSeq: j.FirstSeq, States: j.States, Puzzle: j.Puzzle,
				Lane: j.Lane, Delivery: int(j.Delivery), Started: time.Now()}, j.Progress)
			return func() { end(); done() }
		}
		opts.OnSplitNodes = func(puzzle string, nodes int64) {
			if obs != nil {
				obs.SplitNodes(puzzle, nodes)
			}
			p.AddNodes(nodes)
		}
	}
	return opts
}

// Lanes are the lanes solver workers take work from, as the registry of
// workers lists them.
var Lanes = []string{"quick", "heavy", "split"}

// workersOrCores is the workers worker.Run starts for n (0: one per core
// this process may use).
func workersOrCores(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// NewPresence is the registry entry of a process running solver workers
// with s's counts.
func NewPresence(role string, s config.Solver) *cmdkit.Presence {
	return cmdkit.NewPresence(role, Lanes, workersOrCores(s.Workers), max(s.QuickWorkers, 0))
}

// exact makes a job's progress counter (search.Budget.Progress) exact at
// the end of each solve: the searches add their nodes at checkpoints
// only, and some algorithms have none; the result's count is the truth.
func exact(solveText worker.SolveFunc) worker.SolveFunc {
	return func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		p := opt.Budget.Progress
		if p == nil {
			return solveText(ctx, spec, text, opt)
		}
		before := p.Load()
		r := solveText(ctx, spec, text, opt)
		p.Add(r.Nodes - (p.Load() - before))
		return r
	}
}

// Observe counts every answer of solveText in obs.
func Observe(obs *metrics.Solver, solveText worker.SolveFunc) worker.SolveFunc {
	return func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		r := solveText(ctx, spec, text, opt)
		obs.Solved(spec.String(), opt.Mode, r)
		return r
	}
}

// SolverMetrics serves the solver's /metrics, /healthz and /readyz on
// s.MetricsAddr when it is set and returns what counts for it, with the
// func that stops the listener; nil and a no-op otherwise. /readyz,
// tessera_ready and tessera_nats_connected follow h (nil: always ready, no gauge). A taken
// port does not stop the solver: a host may run many solverd, each wanting
// its own solver.metrics_addr.
func SolverMetrics(s config.Solver, h *cmdkit.Health, log *slog.Logger) (*metrics.Solver, func()) {
	if s.MetricsAddr == "" {
		return nil, func() {}
	}
	reg := metrics.NewRegistry()
	obs := metrics.NewSolver(reg)
	var ready func(context.Context) error
	if h != nil {
		h.Measure(metrics.NewConnected(reg))
		ready = h.Ready
		metrics.NewReady(reg, ready)
	}
	srv, err := metrics.Listen(s.MetricsAddr, s.MetricsToken, reg, ready, log)
	if err != nil {
		log.Warn("no /metrics: give each solverd on a host its own solver.metrics_addr", "err", err)
		return obs, func() {}
	}
	auth := "none"
	if s.MetricsToken != "" {
		auth = "bearer token"
	}
	log.Info("serving /metrics, /healthz and /readyz", "addr", srv.Addr(), "auth", auth)
	return obs, func() { srv.Close() }
}
