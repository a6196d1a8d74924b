package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/cmdkit/solverkit"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/redact"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/split"
	"github.com/tessera-solver/tessera/internal/tableservice"
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
				return usageError{Err: err}
			}
			ctx, stop := cmdkit.OnSignal(c.Context())
			defer stop()
			// This process's entry in the registry of workers (`solverd
			// workers`); its last error is the last warning logged.
			presence := solverkit.NewPresence("solverd", cfg.Solver)
			log := slog.New(presence.LogHandler(slog.NewTextHandler(c.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelInfo})))
			log.Info(config.Describe(c.Flags()))
			tableservice.StartupPull(ctx, cfg, log)
			loaded, _, err := loadTables(cfg.Solver, "", func(s string) { log.Info(s) })
			if err != nil {
				return err
			}
			logTables(log, loaded, cfg.Solver.TablesDir)
			live := solve.NewLive(loaded)
			defer func() { err = errors.Join(err, live.Close()) }()
			// /readyz: connected to NATS (the connection's handlers keep
			// health.Link); /healthz: this process serves.
			health := cmdkit.NewHealth()
			obs, stopMetrics := solverkit.SolverMetrics(cfg.Solver, health, log)
			defer stopMetrics()
			// The workers and the table watch (tables built or pushed after
			// start serve the next jobs) run and stop as one.
			loops := cmdkit.NewLoops(ctx, "solverd run")
			loops.Go("table watch", func(ctx context.Context) error {
				defer tableservice.Watch(ctx, cfg, live, log, obs, presence)()
				<-ctx.Done()
				return nil
			})
			return errors.Join(daemon(loops.Context(), cfg, live, health, log, obs, presence), loops.Stop())
		},
	}
	runKeys.Bind(c.Flags())
	return c
}

// runKeys are the config keys `solverd run` reads: NATS and the solver's.
var runKeys = config.Uses("nats", "solver")

// daemon connects (retrying while NATS is not up yet: a daemon may start
// before its server), ensures the streams and runs the worker loop.
func daemon(ctx context.Context, cfg config.Config, solver solverkit.Solver, health *cmdkit.Health, log *slog.Logger, obs *metrics.Solver, p *cmdkit.Presence) error {
	conn, err := cmdkit.Dial(ctx, cfg.NATS, "tessera-solverd", health.Watch(cfg.NATS, log), func(ctx context.Context, c *cmdkit.Conn) error {
		if err := c.Ensure(ctx); err != nil {
			return fmt.Errorf("ensure streams: %w", err)
		}
		return nil
	}, func(delay time.Duration, err error) {
		if errors.Is(err, queue.ErrReplicas) {
			// Retried: a cluster node may be down for a moment.
			log.Warn("the streams cannot be created at nats.replicas; retrying", "err", err, "delay", delay)
			return
		}
		log.Warn("NATS not reachable; retrying", "url", redact.URL(cfg.NATS.URL), "err", err, "delay", delay)
	})
	if err != nil {
		if ctx.Err() != nil {
			// Told to stop while still waiting for NATS: a clean stop,
			// even when the signal lands during a connection attempt.
			return nil
		}
		return err
	}
	// Ready once the workers' consumers exist, not merely the streams.
	err = serve(ctx, cfg, conn, solver, log, obs, p, health.Started)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Told to stop while still setting up (the workers ensure their
		// consumers): a clean stop too, not a failure to report.
		return nil
	}
	return err
}

// serve runs the workers on conn until ctx ends, then drains it; ready is
// called once they can take work. The process stays registered (p) until
// its workers have drained.
func serve(ctx context.Context, cfg config.Config, conn *cmdkit.Conn, solver solverkit.Solver, log *slog.Logger, obs *metrics.Solver, p *cmdkit.Presence, ready func()) error {
	nc, js, qc := conn.NC, conn.JS, conn.Queue
	defer nc.Close()
	if drift, err := queue.JobsConsumerDrift(ctx, js, qc); err == nil && len(drift) > 0 {
		// Consumer settings are shared by every solverd: one host's flags
		// do not rewrite them for all.
		log.Warn("this solverd's nats.* settings differ from the shared consumers' and are not applied; "+
			"run `solverd queue apply` with the settings every solverd should share", "differences", drift)
	}
	if drift, err := queue.ReplicaDrift(ctx, js, qc, cfg.Solver.TablesBucket); err == nil && len(drift) > 0 {
		log.Warn(queue.ReplicaDriftWarning, "differences", drift)
	}
	if err := obs.WatchStreams(func(ctx context.Context) ([]metrics.StreamStats, error) {
		all, err := queue.ReadStreamStats(ctx, js)
		out := make([]metrics.StreamStats, len(all))
		for i, s := range all {
			out[i] = metrics.StreamStats{Name: s.Name, Answered: s.Answered, Messages: s.Messages, Bytes: s.Bytes,
				MaxBytes: s.MaxBytes, Replicas: s.Replicas, Current: s.Current}
			for _, c := range s.Consumers {
				out[i].Consumers = append(out[i].Consumers, metrics.ConsumerStats(c))
			}
		}
		return out, err
	}); err != nil {
		log.Warn("no stream size metrics", "err", err)
	}
	log.Info("solving jobs", "nats", redact.URL(cfg.NATS.URL), "workers", workersOrCores(cfg.Solver.Workers), "quick_workers", cfg.Solver.QuickWorkers)
	// The same wiring as producer --local's workers (solverkit.WorkerOptions).
	opts := solverkit.WorkerOptions(cfg.Solver, qc, solver, log, obs, p)
	opts.OnReady = ready
	if path := cfg.Solver.SplitRecord; path != "" {
		rec, closeRecord, err := split.OpenRecorder(path)
		if err != nil {
			return err
		}
		defer func() { _ = closeRecord() }()
		opts.SplitRecord = rec
		log.Info("recording split-search work", "file", path)
	}
	unregister := p.Start(js, qc, log)
	err := worker.Run(ctx, js, opts)
	unregister()
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
