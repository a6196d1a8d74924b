package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/atomicfile"
	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/ingest"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/plot"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/redact"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/version"
)

// Exit codes, as solverd's.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:   "results",
		Short: "Write solver results to PostgreSQL; print distributions and exports",
		Long: "results consumes TESSERA_RESULTS into PostgreSQL (the default command, also `results run`)\n" +
			"and reads the database back (dist, export, batches, dead, and over HTTP: serve). Every config key is a flag\n" +
			"and a TESSERA_* variable; see docs/PIPELINE-store.md.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
	}
	// --version: the build, the Go version and the table format.
	root.Version = version.String("results")
	root.SetVersionTemplate("{{.Version}}")
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	runCmd := serviceCmd()
	root.RunE = runCmd.RunE
	keyed(root, runKeys)
	root.AddCommand(runCmd, migrateCmd(), distCmd(), exportCmd(), batchesCmd(), requeueCmd(), cancelCmd(), splitsCmd(), deadCmd(), exactCmd(), serveCmd())
	setExamples(root)

	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "results:", err)
	var u usageError
	if errors.As(err, &u) || strings.HasPrefix(err.Error(), "unknown command") {
		return exitUsage
	}
	return exitError
}

// The config keys each command reads: its --help lists them and only them,
// and only they are validated (a bad solver.* value does not stop `dist`).
var (
	dbKeys      = config.Uses("database")
	runKeys     = config.Uses("database", "nats", "results.fetch_batch", "results.fetch_wait", "results.metrics_addr", "results.http_token")
	serveKeys   = config.Uses("database", "nats", "results.http_addr", "results.http_token", "results.http_writer_tokens", "results.http_max_requests")
	requeueKeys = config.Uses("database", "nats", "solver.max_nodes", "solver.timeout", "producer.chunk_size")
	cancelKeys  = config.Uses("database", "nats")
)

// keysAnnotation names the cobra annotation that carries a command's keys
// from keyed to setup.
const keysAnnotation = "tessera-config-keys"

// keyed binds the flags of set's keys on c and records set for setup.
func keyed(c *cobra.Command, set config.Set) *cobra.Command {
	set.Bind(c.Flags())
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[keysAnnotation] = strings.Join(set.Names(), ",")
	return c
}

// setup loads the configuration keys of cmd (see keyed) and opens the
// store (without connecting).
func setup(cmd *cobra.Command) (config.Config, *store.Store, error) {
	cfg, err := config.Uses(strings.Split(cmd.Annotations[keysAnnotation], ",")...).Load(cmd.Flags())
	if err != nil {
		return cfg, nil, usageError{err}
	}
	url, err := store.ResolveURLSaying(cmd.Context(), cfg.Database.URL, func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), "results:", s) })
	if err != nil {
		return cfg, nil, err
	}
	st, err := store.Open(cmd.Context(), url, store.WithPassword(cfg.Database.Password))
	return cfg, st, err
}

func logger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func migrateCmd() *cobra.Command {
	return keyed(&cobra.Command{
		Use:   "migrate",
		Short: "Apply the embedded schema migrations (idempotent; safe to run concurrently)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Migrate(cmd.Context()); err != nil {
				return err
			}
			v, err := st.SchemaVersion(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "schema at version %d\n", v)
			return nil
		},
	}, dbKeys)
}

func distCmd() *cobra.Command {
	var (
		batch  int64
		spec   string
		asJSON bool
		svg    string
	)
	c := &cobra.Command{
		Use:   "dist (--batch ID | --puzzle P) [--json] [--svg FILE]",
		Short: "Print the histogram of optimal solution lengths",
		Long: "Prints one `length count` line per length that occurs, ascending, then `total N`,\n" +
			"`mean M`, `sd S`, `ci95 LO HI` (the 95 % confidence interval of the mean, for a uniform\n" +
			"sample) and `max L` lines. Only proved-optimal solutions count (fast-mode answers do\n" +
			"not). --puzzle counts the puzzle's distinct states over every batch, and adds `exact mean\n" +
			"M (N states)` when the exact distribution is stored (results exact).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			hasBatch, hasPuzzle := cmd.Flags().Changed("batch"), cmd.Flags().Changed("puzzle")
			if hasBatch == hasPuzzle {
				return usagef("give exactly one of --batch and --puzzle")
			}
			_, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			var d, exact store.Distribution
			if hasBatch {
				d, err = st.BatchDistribution(cmd.Context(), batch)
			} else if d, err = st.PuzzleDistribution(cmd.Context(), spec); err == nil {
				exact, err = st.ExactDistribution(cmd.Context(), spec)
			}
			if err != nil {
				return err
			}
			if svg != "" {
				title := fmt.Sprintf("%s: optimal lengths", canonicalSpec(spec))
				if hasBatch {
					title = fmt.Sprintf("batch %d: optimal lengths", batch)
				}
				err := atomicfile.Write(svg, 0o644, func(f *os.File) error {
					return plot.Histogram(f, title, series("sampled", d), series("exact", exact))
				})
				if err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				v := struct {
					store.Distribution
					Exact *store.Distribution `json:"exact,omitempty"`
				}{Distribution: d}
				if exact.Total > 0 {
					v.Exact = &exact
				}
				return json.NewEncoder(out).Encode(v)
			}
			for _, c := range d.Counts {
				fmt.Fprintf(out, "%d %d\n", c.Length, c.Count)
			}
			fmt.Fprintf(out, "total %d\n", d.Total)
			if d.Total > 0 {
				fmt.Fprintf(out, "mean %.4f\nsd %.4f\nci95 %.4f %.4f\nmax %d\n", d.Mean, d.SD, d.CI95[0], d.CI95[1], d.Max)
			}
			if exact.Total > 0 {
				fmt.Fprintf(out, "exact mean %.4f (%d states)\n", exact.Mean, exact.Total)
			}
			return nil
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	c.Flags().StringVarP(&spec, "puzzle", "p", "", "puzzle, e.g. sliding:3x3 or 8 (all its batches)")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead")
	c.Flags().StringVar(&svg, "svg", "", "also draw the histogram (and the exact distribution, when stored) as an SVG file")
	return keyed(c, dbKeys)
}

// series is a distribution as plot draws it.
func series(name string, d store.Distribution) plot.Series {
	s := plot.Series{Name: name, Counts: map[int]int64{}}
	for _, c := range d.Counts {
		s.Counts[c.Length] = c.Count
	}
	return s
}

// canonicalSpec is spec as stored ("8" → "sliding:3x3"), or spec itself.
func canonicalSpec(spec string) string {
	if sp, err := puzzle.ParseSpec(spec); err == nil {
		return sp.String()
	}
	return spec
}

func exportCmd() *cobra.Command {
	var (
		batch    int64
		spec     string
		length   int
		statuses []string
		format   string
		output   string
	)
	c := &cobra.Command{
		Use:   "export (--batch ID | --puzzle P) [--length L] [--status S[,S]] [--format csv|jsonl] [--output FILE]",
		Short: "Write the solutions of a batch, or of every batch of a puzzle, in (batch, seq) order",
		Long: "CSV has a header row of the solutions columns; JSONL has one object per row\n" +
			"with the same keys. NULL (moves and length of unsolved rows, absent errors) is\n" +
			"an empty CSV field or JSON null. --length keeps rows of that solution length\n" +
			"(solved rows only), --status rows of the given statuses (" + statusList() + ").",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("batch") == cmd.Flags().Changed("puzzle") {
				return usagef("give exactly one of --batch and --puzzle")
			}
			q := store.ExportQuery{Batch: batch, Puzzle: spec}
			if cmd.Flags().Changed("batch") && batch == 0 {
				return usagef("--batch 0: batch ids start at 1")
			}
			if cmd.Flags().Changed("puzzle") {
				if _, err := puzzle.ParseSpec(spec); err != nil {
					return usageError{fmt.Errorf("--puzzle: %w", err)}
				}
			}
			if cmd.Flags().Changed("length") {
				if length < 0 {
					return usagef("--length %d: want 0 or more", length)
				}
				q.Length = &length
			}
			for _, s := range statuses {
				if !knownStatus(s) {
					return usagef("--status %q: want one of %s", s, statusList())
				}
				q.Statuses = append(q.Statuses, s)
			}
			f, err := store.ParseFormat(format)
			if err != nil {
				return usageError{err}
			}
			_, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			if output == "" || output == "-" {
				return st.ExportRows(cmd.Context(), q, cmd.OutOrStdout(), f)
			}
			// Written beside the target and renamed, so a failed export never
			// leaves a truncated file under the requested name.
			return atomicfile.Write(output, 0o644, func(w *os.File) error {
				return st.ExportRows(cmd.Context(), q, w, f)
			})
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	c.Flags().StringVar(&spec, "puzzle", "", "every batch of this puzzle (8, sliding:3x3, ...)")
	c.Flags().IntVar(&length, "length", 0, "only rows of this solution length")
	c.Flags().StringSliceVar(&statuses, "status", nil, "only rows of these statuses, comma-separated")
	c.Flags().StringVar(&format, "format", "csv", "csv or jsonl")
	c.Flags().StringVarP(&output, "output", "o", "", "file to write (default stdout)")
	return keyed(c, dbKeys)
}

func knownStatus(s string) bool {
	for _, k := range result.Statuses() {
		if string(k) == s {
			return true
		}
	}
	return false
}

func statusList() string {
	var b strings.Builder
	for i, k := range result.Statuses() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(k))
	}
	return b.String()
}

func batchesCmd() *cobra.Command {
	var limit int
	var asJSON bool
	c := &cobra.Command{
		Use:   "batches",
		Short: "List recent batches with their progress",
		Long: "enqueued is how many states are surely enqueued: the producer's mark (recorded once a second;\n" +
			"`producer resume` starts there) or the rows stored, when more. A batch is stalled when its enqueue\n" +
			"is unfinished and nothing was enqueued or stored for 30 s.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			bs, err := st.Batches(cmd.Context(), limit)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			now := time.Now()
			if asJSON {
				enc := json.NewEncoder(out)
				for _, b := range bs {
					v := struct {
						store.Batch
						State           string `json:"state"`
						EnqueuedAtLeast int64  `json:"enqueued_at_least"`
					}{b, b.State(now), b.EnqueuedAtLeast()}
					if err := enc.Encode(v); err != nil {
						return err
					}
				}
				return nil
			}
			fmt.Fprintf(out, "%-6s %-14s %-7s %-9s %10s %10s %10s %8s %8s %s\n", "id", "puzzle", "mode", "state", "enqueued", "done", "total", "solved", "other", "finished")
			stalled := 0
			for _, b := range bs {
				total, fin := "?", "-"
				if b.Total >= 0 {
					total = fmt.Sprint(b.Total)
				}
				if b.FinishedAt != nil {
					fin = b.FinishedAt.Format(time.RFC3339)
				}
				state := b.State(now)
				if state == "stalled" {
					stalled++
				}
				fmt.Fprintf(out, "%-6d %-14s %-7s %-9s %10d %10d %10s %8d %8d %s\n", b.ID, b.Puzzle, b.Mode, state, b.EnqueuedAtLeast(), b.Done, total, b.Solved, b.Done-b.Solved, fin)
			}
			if stalled > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "%d stalled: their producer stopped before enqueuing every state (nothing enqueued or stored for %s); `producer resume ID` finishes them\n", stalled, store.StallAfter)
			}
			return nil
		},
	}
	c.Flags().IntVar(&limit, "limit", 20, "how many batches, newest first")
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON object per batch")
	return keyed(c, dbKeys)
}

func serviceCmd() *cobra.Command {
	return keyed(&cobra.Command{
		Use:   "run",
		Short: "Migrate, then consume TESSERA_RESULTS into PostgreSQL until SIGTERM (the default)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			return service(cmd.Context(), cfg, st, logger(cmd.ErrOrStderr()))
		},
	}, runKeys)
}

// service is `results run`: it waits for PostgreSQL and NATS (a daemon may
// start before either), then runs the ingest loop until ctx is cancelled.
func service(ctx context.Context, cfg config.Config, st *store.Store, log *slog.Logger) error {
	if err := retry(ctx, log, "migrate PostgreSQL", func() error { return st.Migrate(ctx) }); err != nil {
		return err
	}
	log.Info("schema up to date")

	var src, deadSrc ingest.Source
	err := retry(ctx, log, "connect to NATS", func() error {
		nc, err := queue.Connect(cfg.NATS.URL, "tessera-results", queue.Auth(cfg.NATS.NATSAuth))
		if err != nil {
			return err
		}
		src, err = resultsSource(ctx, nc, cfg, log)
		if err == nil {
			deadSrc, err = deadJobsSource(ctx, nc, cfg)
		}
		if err != nil {
			nc.Close()
			return err
		}
		context.AfterFunc(ctx, func() { _ = nc.Drain() })
		return nil
	})
	if err != nil {
		return err
	}
	log.Info("consuming results", "nats", redact.URL(cfg.NATS.URL), "fetch_batch", cfg.Results.FetchBatch)

	var sink ingest.Sink = st
	if cfg.Results.MetricsAddr != "" {
		reg := metrics.NewRegistry()
		sink = measuredSink{st, metrics.NewWriter(reg)}
		// A taken port does not stop the writer (several may run on a host).
		if srv, err := metrics.Listen(cfg.Results.MetricsAddr, cfg.Results.HTTPToken, reg, st.Ping, log); err != nil {
			log.Warn("no /metrics: give each results run on a host its own results.metrics_addr", "err", err)
		} else {
			defer srv.Close()
			log.Info("serving /metrics and /healthz", "addr", srv.Addr())
		}
	}
	in := ingest.New(src, sink, ingest.Options{
		FetchBatch: cfg.Results.FetchBatch,
		FetchWait:  cfg.Results.FetchWait,
		Logger:     log,
	})
	done := make(chan struct{})
	go reportProgress(ctx, in, log, done)
	deadDone := make(chan error, 1)
	go func() {
		deadDone <- ingest.RunDeadJobs(ctx, deadSrc, sink, ingest.Options{FetchWait: cfg.Results.FetchWait, Logger: log})
	}()
	err = in.Run(ctx)
	close(done)
	<-deadDone
	s := in.Stats()
	log.Info("stopped", "messages", s.Messages, "rows", s.Rows, "inserted", s.Inserted, "rejected", s.Rejected)
	return err
}

func serveCmd() *cobra.Command {
	var generate bool
	c := keyed(&cobra.Command{
		Use:   "serve",
		Short: "Serve /healthz, /metrics, a JSON API and a status page on results.http_addr until SIGTERM",
		Long: "Migrates the schema (retrying until PostgreSQL answers; requests but /healthz get 503 meanwhile),\n" +
			"then serves on --http-addr (results.http_addr, default 127.0.0.1:8080, this host only):\n" +
			"  GET /healthz (liveness), /readyz (PostgreSQL answers), /metrics (Prometheus),\n" +
			"  /api/batches[?limit=N&puzzle=P&state=S], /api/batches/{id},\n" +
			"  /api/batches/{id}/distribution, /api/batches/{id}/rows|dead?format=csv|jsonl (downloads),\n" +
			"  /api/puzzles/{puzzle}/distribution,\n" +
			"  /api/scrambles?puzzle=P&length=L[&limit=N], and / (status page, ?batch=ID).\n" +
			"With results.http_token (TESSERA_RESULTS_HTTP_TOKEN) set, every endpoint but /healthz and /readyz\n" +
			"requires \"Authorization: Bearer <token>\" (401 without it; a browser logs in at /login).\n" +
			"Only results.http_writer_tokens may write: /api/scrambles?client=K and generate=true.\n" +
			"At most results.http_max_requests API requests are served at once; more get 503 with\n" +
			"Retry-After at once.\n" +
			"With --generate, /api/scrambles?generate=true (writers only) enqueues sampled candidates\n" +
			"on NATS (nats.*) for scrambles not stored yet. Run it beside `results run`. See\n" +
			"docs/PIPELINE-store.md and docs/SECURITY.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			writers, err := httpauth.ParseWriters(cfg.Results.HTTPWriterTokens)
			if err != nil {
				return usagef("results.http_writer_tokens: %v", err)
			}
			opts := []httpapi.Option{httpapi.WithMaxInFlight(cfg.Results.HTTPMaxRequests)}
			if generate {
				nc, err := queue.Connect(cfg.NATS.URL, "tessera-results-serve", queue.Auth(cfg.NATS.NATSAuth))
				if err != nil {
					return err
				}
				defer nc.Close()
				js, err := queue.New(nc)
				if err != nil {
					return err
				}
				qc := queueConfig(cfg.NATS)
				if err := queue.EnsureStreams(cmd.Context(), js, qc); err != nil {
					return err
				}
				opts = append(opts, httpapi.WithGenerator(newSampler(cmd.Context(), st, js, qc, nc.MaxPayload(), logger(cmd.ErrOrStderr()), uint64(time.Now().UnixNano()))))
			}
			return serve(cmd.Context(), cfg.Results.HTTPAddr, cfg.Results.HTTPToken, writers, st, logger(cmd.ErrOrStderr()), opts...)
		},
	}, serveKeys)
	c.Flags().BoolVar(&generate, "generate", false, "let /api/scrambles?generate=true enqueue candidates for missing scrambles (connects to NATS)")
	return c
}

// serve is `results serve`. It listens first (a taken or malformed address
// fails at once), answers 503 while it migrates the schema (retrying until
// PostgreSQL answers, as `results run` does), then serves internal/httpapi
// until ctx is cancelled and shuts down gracefully: in-flight requests get
// up to 10 s to finish. A non-empty token guards every endpoint but the
// probes /healthz and /readyz, and writers may also write
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
		Handler:           httpauth.NewGuard(token, writers, "/healthz", "/readyz").Wrap(api),
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

// resultsSource ensures the streams and the durable results consumer and
// adapts the consumer to ingest.Source.
func resultsSource(ctx context.Context, nc *nats.Conn, cfg config.Config, log *slog.Logger) (ingest.Source, error) {
	js, err := queue.New(nc)
	if err != nil {
		return nil, err
	}
	qc := queueConfig(cfg.NATS)
	if err := queue.EnsureStreams(ctx, js, qc); err != nil {
		return nil, err
	}
	if drift, err := queue.ReplicaDrift(ctx, js, qc); err == nil && len(drift) > 0 {
		log.Warn(queue.ReplicaDriftWarning, "differences", drift)
	}
	cons, err := queue.EnsureResultsConsumer(ctx, js, qc)
	if err != nil {
		return nil, err
	}
	src, err := queue.NewResultsSource[ingest.Msg](cons)
	if err != nil {
		return nil, err
	}
	// The writer sweeps TESSERA_RESULTS for messages stranded by an
	// unclean server stop (queue.ResultsSource.SweepStranded says why here).
	return src.SweepStranded(js, queue.StrandedEvery, func(line string, err error) {
		if err != nil {
			log.Warn("stranded-results sweep failed", "err", err)
			return
		}
		log.Warn("stranded results message", "what", line)
	}), nil
}

// deadJobsSource ensures the consumer of TESSERA_DEAD's job copies and
// adapts it to ingest.Source (ingest.RunDeadJobs records them).
func deadJobsSource(ctx context.Context, nc *nats.Conn, cfg config.Config) (ingest.Source, error) {
	js, err := queue.New(nc)
	if err != nil {
		return nil, err
	}
	cons, err := queue.EnsureDeadCopiesConsumer(ctx, js, queueConfig(cfg.NATS))
	if err != nil {
		return nil, err
	}
	return queue.NewDeadJobsSource[ingest.Msg](cons)
}

// reportProgress logs the totals every 10 s while they change, with the
// rate since the last line; idle, it says so once and then once an hour
// (issue 18: the same idle line every 10 s filled the logs).
func reportProgress(ctx context.Context, in *ingest.Ingester, log *slog.Logger, done <-chan struct{}) {
	reportEvery(ctx, in.Stats, log, done, 10*time.Second, time.Hour)
}

func reportEvery(ctx context.Context, stats func() ingest.Stats, log *slog.Logger, done <-chan struct{}, every, idleEvery time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	last, lastAt := stats(), time.Now()
	var idleSaid time.Time
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case now := <-t.C:
			s := stats()
			if s == last {
				if idleSaid.IsZero() || now.Sub(idleSaid) >= idleEvery {
					log.Info("idle: no results", "since", lastAt.Format(time.RFC3339), "rows", s.Rows, "inserted", s.Inserted)
					idleSaid = now
				}
				continue
			}
			rate := float64(s.Rows-last.Rows) / now.Sub(lastAt).Seconds()
			log.Info("progress", "messages", s.Messages, "rows", s.Rows, "inserted", s.Inserted,
				"rows_per_s", fmt.Sprintf("%.0f", rate), "rejected", s.Rejected, "retries", s.Retries)
			last, lastAt, idleSaid = s, now, time.Time{}
		}
	}
}

// measuredSink is the store with every write measured for /metrics.
type measuredSink struct {
	st *store.Store
	m  *metrics.Writer
}

var _ ingest.Sink = measuredSink{}

func rowsOf(b []job.Results) int {
	n := 0
	for _, r := range b {
		n += len(r.Results)
	}
	return n
}

func (s measuredSink) InsertResults(ctx context.Context, b []job.Results) (int, error) {
	t := time.Now()
	n, err := s.st.InsertResults(ctx, b)
	s.m.Transaction(rowsOf(b), n, time.Since(t), err)
	return n, err
}

// InsertResultsReport keeps the store's collision report (ingest uses it
// when the sink has it).
func (s measuredSink) InsertResultsReport(ctx context.Context, b []job.Results) (store.Report, error) {
	t := time.Now()
	rep, err := s.st.InsertResultsReport(ctx, b)
	s.m.Transaction(rowsOf(b), rep.Inserted, time.Since(t), err)
	if err == nil {
		s.m.DeadLetters(rep.Collisions)
	}
	return rep, err
}

func (s measuredSink) AddDeadLetters(ctx context.Context, ls []store.DeadLetter) (int, error) {
	n, err := s.st.AddDeadLetters(ctx, ls)
	s.m.DeadLetters(n)
	return n, err
}

// retry runs f until it succeeds or ctx ends, waiting 100 ms, 200 ms, ...
// up to 5 s between attempts and logging each failure; it gives up on
// settings NATS or PostgreSQL keeps refusing (queue.Refused,
// store.Refused), so a supervisor sees the failure instead of a warning
// every 5 s.
func retry(ctx context.Context, log *slog.Logger, what string, f func() error) error {
	refusals := backoff.Refusals{Refused: func(err error) bool { return queue.Refused(err) || store.Refused(err) },
		Hint: "check its URL, credentials and TLS settings"}
	check := func() error { return refusals.Check(f()) }
	err := backoff.Retry(ctx, startBackoff, check, func(_ int, delay time.Duration, err error) {
		log.Warn(what+" failed; retrying", "err", err, "delay", delay)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// startBackoff paces the waits for PostgreSQL and NATS at start.
var startBackoff = backoff.Policy{Min: 100 * time.Millisecond, Max: 5 * time.Second}
