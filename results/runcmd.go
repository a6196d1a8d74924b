package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/ingest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/redact"
	"github.com/tessera-solver/tessera/internal/store"
)

func serviceCmd() *cobra.Command {
	return keyed(&cobra.Command{
		Use:   "run",
		Short: "Migrate, then consume TESSERA_RESULTS into PostgreSQL until SIGTERM (the default)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, func(cfg config.Config, st *store.Store) error {
				log := logger(cmd.ErrOrStderr())
				log.Info(config.Describe(cmd.Flags()))
				return service(cmd.Context(), cfg, st, log)
			})
		},
	}, runKeys)
}

// service is `results run`: it waits for PostgreSQL and NATS (a daemon may
// start before either), then runs the writer (cmdkit.RunWriter, as
// `producer --local` does) until ctx is cancelled.
func service(ctx context.Context, cfg config.Config, st *store.Store, log *slog.Logger) error {
	// This process's entry in the registry of workers (`solverd
	// workers`); its last error is the last warning logged.
	presence := cmdkit.NewPresence("results", []string{"results"}, 1, 0)
	log = slog.New(presence.LogHandler(log.Handler()))
	// /healthz from the start; /readyz once PostgreSQL answers and NATS
	// is connected (the connection's handlers keep health.Link).
	health := cmdkit.NewHealth()
	health.Require("PostgreSQL", st.Ping)
	m, stopMetrics := cmdkit.WriterMetrics(cfg.Results, health, log)
	defer stopMetrics()
	if err := retry(ctx, log, "migrate PostgreSQL", func() error { return st.Migrate(ctx) }); err != nil {
		return err
	}
	log.Info("schema up to date")

	var src, deadSrc ingest.Source
	conn, err := cmdkit.Dial(ctx, cfg.NATS, "tessera-results", health.Watch(cfg.NATS, log), func(ctx context.Context, c *cmdkit.Conn) (err error) {
		src, deadSrc, err = c.WriterSources(ctx, log)
		return err
	}, func(delay time.Duration, err error) {
		log.Warn("connect to NATS failed; retrying", "err", err, "delay", delay)
	})
	if err != nil {
		if ctx.Err() != nil {
			// Told to stop while still waiting for NATS or setting up: a
			// clean stop.
			return nil
		}
		return fmt.Errorf("connect to NATS: %w", err)
	}
	health.Started()
	unregister := presence.Start(conn.JS, conn.Queue, log)
	context.AfterFunc(ctx, func() { unregister(); _ = conn.NC.Drain() })
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev) // for the tests that run the command in their process
	limit := memoryLimit(cfg.Results.MaxBytes)
	log.Info("consuming results", "nats", redact.URL(cfg.NATS.URL), "fetch_batch", cfg.Results.FetchBatch,
		"max_bytes", cfg.Results.MaxBytes, "memory_limit", limit)
	err = cmdkit.RunWriter(ctx, src, deadSrc, st, m, cfg.Results, log)
	unregister() // returns once the entry is removed (or its removal failed)
	return err
}

// retry is cmdkit.Retry giving up on settings NATS or PostgreSQL keeps
// refusing (queue.Refused, store.Refused).
func retry(ctx context.Context, log *slog.Logger, what string, f func() error) error {
	refusals := backoff.Refusals{Refused: func(err error) bool { return queue.Refused(err) || store.Refused(err) },
		Hint: "check its URL, credentials and TLS settings"}
	return cmdkit.Retry(ctx, log, what, &refusals, f)
}

// memoryLimit sets the Go runtime's soft memory limit of `results run` to
// five times what the writer may hold (results.max_bytes), unless
// GOMEMLIMIT says otherwise, and returns the limit in force. Besides the
// results it holds, the writer keeps its state cache and its buffers, and
// the collector would by default let the heap grow to twice all that
// before collecting: at the default (16 MiB, so 80 MiB) a restart into a
// backlog stays under 100 MB resident (docs/RELIABILITY.md). Only this
// process: producer --local also runs solvers, whose memory is theirs.
func memoryLimit(maxBytes int64) int64 {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(5 * maxBytes)
	}
	return debug.SetMemoryLimit(-1)
}
