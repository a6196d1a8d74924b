package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/redact"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

// runCmd is the daemon: a durable pull consumer on TESSERA_JOBS that solves
// jobs and publishes their results until SIGTERM, then drains.
func runCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "run",
		Short: "Consume jobs from NATS JetStream, solve them and publish the results, until SIGTERM",
		Long: "solverd run attaches to the durable consumer of TESSERA_JOBS with one worker per\n" +
			"core (--workers). Each idle worker pulls one job; long solves send in-progress\n" +
			"heartbeats. On SIGTERM or SIGINT it stops pulling, finishes (or hands back)\n" +
			"in-flight jobs and exits 0. --budget-nodes and --timeout cap every job's own\n" +
			"budget on this host. Tables built into --tables-dir or pushed to\n" +
			"--tables-bucket while it runs are checked and serve the next jobs, within\n" +
			"--tables-rescan (30s; the bucket is also watched). Every flag is also a\n" +
			"TESSERA_* variable or a key of tessera.yaml (--config).",
		Args: nArgs(0),
		RunE: func(c *cobra.Command, _ []string) (err error) {
			cfg, err := runKeys.Load(c.Flags())
			if err != nil {
				return usageError{err}
			}
			ctx, stop := signal.NotifyContext(c.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			log := slog.New(slog.NewTextHandler(c.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelInfo}))
			startupPull(ctx, cfg, log)
			loaded, _, err := loadTables(cfg.Solver, "", func(s string) { log.Info(s) })
			if err != nil {
				return err
			}
			logTables(log, loaded, cfg.Solver.TablesDir)
			live := solve.NewLive(loaded)
			defer func() { err = errors.Join(err, live.Close()) }()
			var obs *metrics.Solver
			if cfg.Solver.MetricsAddr != "" {
				reg := metrics.NewRegistry()
				obs = metrics.NewSolver(reg)
				// A taken port does not stop the solver: a host may run
				// many solverd, each wanting its own solver.metrics_addr.
				if srv, err := metrics.Listen(cfg.Solver.MetricsAddr, cfg.Solver.MetricsToken, reg, nil, log); err != nil {
					log.Warn("no /metrics: give each solverd on a host its own solver.metrics_addr", "err", err)
				} else {
					defer srv.Close()
					auth := "none"
					if cfg.Solver.MetricsToken != "" {
						auth = "bearer token"
					}
					log.Info("serving /metrics and /healthz", "addr", srv.Addr(), "auth", auth)
				}
			}
			// Tables built or pushed after start serve the next jobs.
			stopWatch := watchTables(ctx, cfg, live, log, obs)
			defer stopWatch()
			return daemon(ctx, cfg, live, log, obs)
		},
	}
	runKeys.Bind(c.Flags())
	return c
}

// runKeys are the config keys `solverd run` reads: NATS and the solver's.
var runKeys = config.Uses("nats", "solver")

// daemon connects (retrying while NATS is not up yet: a daemon may start
// before its server), ensures the streams and runs the worker loop.
func daemon(ctx context.Context, cfg config.Config, solver textSolver, log *slog.Logger, obs *metrics.Solver) error {
	qc := queueConfig(cfg.NATS)
	refusals := queue.Refusals()
	err := backoff.Retry(ctx, connectBackoff, func() error {
		err := serve(ctx, cfg, qc, solver, log, obs)
		if err != nil && !errConnect(err) {
			return backoff.Permanent(err)
		}
		// Settings NATS refuses (credentials, CA, URL) end the process, so
		// a supervisor sees the failure; an outage is waited out.
		if err = refusals.Check(err); refusals.Exhausted() {
			return fmt.Errorf("%w", err) // no longer a connectError: returned
		}
		return err
	}, func(_ int, delay time.Duration, err error) {
		if errors.Is(err, queue.ErrReplicas) {
			// Retried: a cluster node may be down for a moment.
			log.Warn("the streams cannot be created at nats.replicas; retrying", "err", err, "delay", delay)
			return
		}
		log.Warn("NATS not reachable; retrying", "url", redact.URL(cfg.NATS.URL), "err", err, "delay", delay)
	})
	if errConnect(err) {
		// Retry gives up on a connection error only when told to stop
		// while still waiting for NATS: a clean stop, even when the signal
		// lands during a connection attempt.
		return nil
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Told to stop while still setting up (ensuring streams and
		// consumers): a clean stop too, not a failure to report.
		return nil
	}
	return err
}

// connectBackoff paces the connection attempts: 100 ms doubling to 5 s.
var connectBackoff = backoff.Policy{Min: 100 * time.Millisecond, Max: 5 * time.Second}

type connectError struct{ error }

func (e connectError) Unwrap() error { return e.error }

func errConnect(err error) bool {
	_, ok := err.(connectError)
	return ok
}

func serve(ctx context.Context, cfg config.Config, qc queue.Config, solver textSolver, log *slog.Logger, obs *metrics.Solver) error {
	nc, err := queue.Connect(cfg.NATS.URL, "tessera-solverd", queue.Auth(cfg.NATS.NATSAuth))
	if err != nil {
		return connectError{err}
	}
	defer nc.Close()
	js, err := queue.New(nc)
	if err != nil {
		return connectError{err}
	}
	if err := queue.EnsureStreams(ctx, js, qc); err != nil {
		return connectError{fmt.Errorf("ensure streams: %w", err)}
	}
	if drift, err := queue.JobsConsumerDrift(ctx, js, qc); err == nil && len(drift) > 0 {
		// Consumer settings are shared by every solverd: one host's flags
		// do not rewrite them for all.
		log.Warn("this solverd's nats.* settings differ from the shared consumers' and are not applied; "+
			"run `solverd queue apply` with the settings every solverd should share", "differences", drift)
	}
	if drift, err := queue.ReplicaDrift(ctx, js, qc, cfg.Solver.TablesBucket); err == nil && len(drift) > 0 {
		log.Warn(queue.ReplicaDriftWarning, "differences", drift)
	}
	log.Info("solving jobs", "nats", redact.URL(cfg.NATS.URL), "workers", workersOrCores(cfg.Solver.Workers), "quick_workers", cfg.Solver.QuickWorkers)
	opts := worker.Options{
		Workers:      cfg.Solver.Workers,
		QuickWorkers: cfg.Solver.QuickWorkers,
		Queue:        &qc,
		Solve:        capBudget(cfg.Solver, solver.SolveText),
		Split:        solver.Split, // jobs marked split (producer --split): issue 27
		Log:          log,
	}
	if obs != nil {
		opts.Solve = observe(obs, opts.Solve)
		opts.OnJob = obs.JobClaimed
		opts.OnSubtrees = obs.Subtrees
	}
	err = worker.Run(ctx, js, opts)
	if derr := nc.Drain(); derr != nil && err == nil {
		err = fmt.Errorf("drain NATS connection: %w", derr)
	}
	log.Info("stopped")
	return err
}

func workersOrCores(n int) int {
	if n > 0 {
		return n
	}
	// GOMAXPROCS honours a container's CPU limit (Go ≥ 1.25); NumCPU
	// would count every core of the host.
	return runtime.GOMAXPROCS(0)
}

// capBudget applies this host's node and time limits to every job: a job
// asking for more (or for no limit) gets the host's. Its search threads
// are the host's too. A job that named no budget of its own keeps the
// fast mode's default window under the host's limits (solve.Options.Ceiling)
// instead of spending all of them.
func capBudget(s config.Solver, solveText worker.SolveFunc) worker.SolveFunc {
	return func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		opt.Ceiling = opt.Ceiling || opt.MaxNodes == 0 && opt.Timeout == 0
		if s.MaxNodes > 0 && (opt.MaxNodes == 0 || opt.MaxNodes > s.MaxNodes) {
			opt.MaxNodes = s.MaxNodes
		}
		if s.Timeout > 0 && (opt.Timeout == 0 || opt.Timeout > s.Timeout) {
			opt.Timeout = s.Timeout
		}
		opt.Threads = s.Threads
		return solveText(ctx, spec, text, opt)
	}
}

// observe counts every answer of solveText in obs.
func observe(obs *metrics.Solver, solveText worker.SolveFunc) worker.SolveFunc {
	return func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
		r := solveText(ctx, spec, text, opt)
		obs.Solved(spec.String(), opt.Mode, r)
		return r
	}
}
