package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/steer"
	"github.com/tessera-solver/tessera/internal/store"
)

func serveCmd() *cobra.Command {
	var generate bool
	c := keyed(&cobra.Command{
		Use:   "serve",
		Short: "Serve /healthz, /metrics, a JSON API and a status page on results.http_addr until SIGTERM",
		Long: "Migrates the schema (retrying until PostgreSQL answers; requests but /healthz get 503 meanwhile),\n" +
			"then serves on --http-addr (results.http_addr, default 127.0.0.1:8080, this host only):\n" +
			"  GET /healthz (liveness), /readyz (PostgreSQL answers; with --generate, NATS too), /metrics (Prometheus),\n" +
			"  /api/batches[?limit=N&puzzle=P&state=S], /api/batches/{id},\n" +
			"  /api/batches/{id}/distribution, /api/batches/{id}/rows|dead?format=csv|jsonl (downloads),\n" +
			"  /api/puzzles/{puzzle}/distribution,\n" +
			"  /api/scrambles?puzzle=P&length=L[&limit=N], and / (status page, ?batch=ID); their OpenAPI 3.1\n" +
			"  description at /api/openapi.json.\n" +
			"With results.http_token (TESSERA_RESULTS_HTTP_TOKEN) set, every endpoint but /healthz, /readyz and\n" +
			"/api/openapi.json requires \"Authorization: Bearer <token>\" (401 without it; a browser logs in at /login).\n" +
			"Only results.http_writer_tokens may write: /api/scrambles?client=K and generate=true, and, logged in\n" +
			"at /login with a writer's token, the page's buttons that cancel, pause, unpause and requeue a batch\n" +
			"(POST /batches/{id}/cancel|pause|unpause|requeue, as `results cancel` etc. do; logged by writer name).\n" +
			"The page and /api/workers list the workers of the NATS registry; /api/batches/{id}/throughput\n" +
			"gives a batch's rows per minute.\n" +
			"At most results.http_max_requests API requests are served at once; more get 503 with\n" +
			"Retry-After at once.\n" +
			"With --generate, /api/scrambles?generate=true (writers only) enqueues sampled candidates\n" +
			"on NATS (nats.*) for scrambles not stored yet. A batch's split searches (producer --split) show\n" +
			"on /api/batches/{id} and the page's ?batch=ID, read from NATS (nats.*) whenever it answers.\n" +
			"Run it beside `results run`. See\n" +
			"docs/PIPELINE-store.md and docs/SECURITY.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, func(cfg config.Config, st *store.Store) error {
				logger(cmd.ErrOrStderr()).Info(config.Describe(cmd.Flags()))
				writers, err := httpauth.ParseWriters(cfg.Results.HTTPWriterTokens)
				if err != nil {
					return usagef("results.http_writer_tokens: %v", err)
				}
				// Split searches' progress is read from NATS, when it answers.
				splits := &natsSplits{cfg: cfg.NATS}
				defer splits.Close()
				opts := []httpapi.Option{httpapi.WithMaxInFlight(cfg.Results.HTTPMaxRequests), httpapi.WithClientCap(cfg.Results.HTTPClientCap), httpapi.WithSplits(splits)}
				// The page's steering and workers view tell and read NATS
				// whenever it answers; the page says so when it does not.
				bus := steer.NewLazy(cfg.NATS, "tessera-results-serve", splitRetry)
				if generate {
					// Enqueuing needs NATS: /readyz follows this connection.
					link := queue.NewLink()
					conn, err := cmdkit.ConnectWatched(cfg.NATS, "tessera-results-serve", cmdkit.Watch(cfg.NATS, logger(cmd.ErrOrStderr()), link))
					if err != nil {
						return err
					}
					defer conn.Close()
					if err := conn.Ensure(cmd.Context()); err != nil {
						return err
					}
					bus = steer.Adopt(conn)
					opts = append(opts, httpapi.WithNATS(link), httpapi.WithGenerator(newSampler(cmd.Context(), st, conn.JS, conn.Queue, conn.NC.MaxPayload(), logger(cmd.ErrOrStderr()), uint64(time.Now().UnixNano()))))
				}
				defer bus.Close()
				// The page's requeue cuts its jobs as `results requeue` does.
				opts = append(opts, httpapi.WithSteering(httpapi.Steering{Dial: bus.Dial, Workers: bus.Workers, ChunkSize: cfg.Producer.ChunkSize}))
				return serve(cmd.Context(), cfg.Results.HTTPAddr, cfg.Results.HTTPToken, writers, st, logger(cmd.ErrOrStderr()), opts...)
			})
		},
	}, serveKeys)
	c.Flags().BoolVar(&generate, "generate", false, "let /api/scrambles?generate=true enqueue candidates for missing scrambles (connects to NATS)")
	return c
}

// serve is `results serve`. It listens first (a taken or malformed address
// fails at once), answers 503 while it migrates the schema (retrying until
// PostgreSQL answers, as `results run` does), then serves internal/httpapi
// until ctx is cancelled and shuts down gracefully: in-flight requests get
// up to 10 s to finish. A non-empty token guards every endpoint but
// httpapi.OpenPaths (the probes and the description), and writers may also write
// (internal/httpauth.Guard).
func serve(ctx context.Context, addr, token string, writers []httpauth.Writer, st *store.Store, log *slog.Logger, opts ...httpapi.Option) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	var ready atomic.Bool
	starting := errors.New("starting: migrating the database schema")
	api := httpapi.New(st, log, append(opts, httpapi.WithStarting(func() error {
		if !ready.Load() {
			return starting
		}
		return nil
	}))...)
	srv := &http.Server{
		Handler:           httpauth.NewGuard(token, writers, httpapi.OpenPaths()...).Wrap(api),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          httpapi.ServerErrorLog(log),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	auth := "bearer token"
	if token == "" {
		auth = "none"
		if !loopback(ln.Addr()) {
			log.Warn("serving the API and /metrics without authentication on a non-loopback address; set results.http_token", "addr", ln.Addr().String())
		}
	}
	log.Info("serving", "addr", ln.Addr().String(), "auth", auth, "writers", len(writers))

	stop := func() error {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		<-served // http.ErrServerClosed
		return err
	}
	if err := retry(ctx, log, "migrate PostgreSQL", func() error { return st.Migrate(ctx) }); err != nil {
		_ = stop()
		return err
	}
	ready.Store(true)
	log.Info("schema up to date")

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	if err := stop(); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// loopback reports whether a listener's address is reachable only from
// this host.
func loopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}
