// Package metrics is tessera's Prometheus instrumentation: one private
// registry per process (no global registration) carrying the Go runtime
// and process collectors, the solver's and the results writer's metric
// families, and an HTTP server for /metrics and /healthz.
//
// No label ever holds a secret: labels are puzzles, modes, statuses and
// lanes, never URLs, states or error text.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/result"
)

// NewRegistry is a registry of its own with the standard Go runtime and
// process collectors, which every long-running service exposes.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves reg in the Prometheus exposition formats.
func Handler(reg prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Server is a /metrics and /healthz listener.
type Server struct {
	srv    *http.Server
	ln     net.Listener
	served chan error
}

// Listen serves reg on addr: /metrics (requiring "Authorization: Bearer
// token" when token is set) and /healthz (open; 200 "ok" when health
// returns nil, else 503 with the error). It fails at once when addr
// cannot be listened on.
func Listen(addr, token string, reg prometheus.Gatherer, health func(context.Context) error, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", Handler(reg))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Cache-Control", "no-store")
		if health != nil {
			if err := health(ctx); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	s := &Server{
		srv: &http.Server{
			Handler:           httpauth.Bearer(token, mux, "/healthz"),
			ReadHeaderTimeout: 5 * time.Second,
			ReadTimeout:       10 * time.Second,
			WriteTimeout:      30 * time.Second,
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		ln:     ln,
		served: make(chan error, 1),
	}
	go func() { s.served <- s.srv.Serve(ln) }()
	if token == "" && !loopback(ln.Addr()) {
		log.Warn("serving /metrics without authentication on a non-loopback address; set its token", "addr", ln.Addr().String())
	}
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close shuts the server down, giving scrapes in flight 5 s.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

func loopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}

// Solver is what solverd run measures.
type Solver struct {
	solves   *prometheus.CounterVec
	nodes    *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
	jobs     prometheus.Counter
	inFlight prometheus.Gauge
	lag      prometheus.Histogram
	sets     *prometheus.GaugeVec
	subtrees *prometheus.CounterVec
	reg      prometheus.Registerer // for collectors wired once connected (WatchStreams)
}

// NewSolver registers the solver's families on reg.
func NewSolver(reg prometheus.Registerer) *Solver {
	m := &Solver{
		reg: reg,
		solves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_solver_solves_total", Help: "States answered, by puzzle, mode and status.",
		}, []string{"puzzle", "mode", "status"}),
		nodes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_solver_nodes_total", Help: "Search nodes expanded, by puzzle and mode.",
		}, []string{"puzzle", "mode"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tessera_solver_solve_seconds", Help: "Time to answer one state, by puzzle and mode.",
			// 100 µs (an 8-puzzle from its table) to over an hour (a 24-puzzle).
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 12),
		}, []string{"puzzle", "mode"}),
		jobs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tessera_solver_jobs_total", Help: "Job messages claimed from TESSERA_JOBS.",
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tessera_solver_jobs_in_flight", Help: "Job messages being worked on now.",
		}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tessera_solver_queue_lag_seconds", Help: "Age of a job message when a worker claimed it (publish to claim).",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 12),
		}),
		sets: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tessera_solver_table_set_info",
			Help: "1 for the table set serving each puzzle and mode now (set=\"none\": no set, the built-in search); it changes when tables arrive while running.",
		}, []string{"role", "set"}),
		subtrees: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_solver_subtree_jobs_total",
			Help: "Subtree jobs of split searches: published by this process's coordinators, and answered (counted into their record) by its workers.",
		}, []string{"event"}),
	}
	reg.MustRegister(m.solves, m.nodes, m.seconds, m.jobs, m.inFlight, m.lag, m.sets, m.subtrees)
	return m
}

// TableSets records which set serves each role (a puzzle and mode, e.g.
// "sliding:4x4 optimal"; "none": no set), replacing what was recorded.
func (m *Solver) TableSets(roles map[string]string) {
	m.sets.Reset()
	for role, set := range roles {
		m.sets.WithLabelValues(role, set).Set(1)
	}
}

// Subtrees records n subtree jobs published or answered (event).
func (m *Solver) Subtrees(event string, n int) {
	m.subtrees.WithLabelValues(event).Add(float64(n))
}

// Solved records one answer.
func (m *Solver) Solved(puzzle string, mode result.Mode, r result.Result) {
	md := string(mode)
	if md == "" {
		md = string(result.ModeOptimal)
	}
	m.solves.WithLabelValues(puzzle, md, string(r.Status)).Inc()
	if r.Nodes > 0 {
		m.nodes.WithLabelValues(puzzle, md).Add(float64(r.Nodes))
	}
	m.seconds.WithLabelValues(puzzle, md).Observe(r.ElapsedMS / 1000)
}

// JobClaimed records a job message published at published (the stream's
// timestamp) and claimed now; call the returned func when it is done.
func (m *Solver) JobClaimed(published time.Time) (done func()) {
	m.jobs.Inc()
	if !published.IsZero() {
		m.lag.Observe(max(time.Since(published), 0).Seconds())
	}
	m.inFlight.Inc()
	return m.inFlight.Dec
}

// Writer is what the results writer measures.
type Writer struct {
	rows      prometheus.Counter
	inserted  prometheus.Counter
	txRows    prometheus.Histogram
	txSeconds prometheus.Histogram
	txErrors  prometheus.Counter
	dead      prometheus.Counter
}

// NewWriter registers the writer's families on reg.
func NewWriter(reg prometheus.Registerer) *Writer {
	m := &Writer{
		rows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tessera_writer_rows_total", Help: "Result rows written in committed transactions (redeliveries included).",
		}),
		inserted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tessera_writer_rows_inserted_total", Help: "Result rows that were new (redeliveries excluded).",
		}),
		txRows: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tessera_writer_transaction_rows", Help: "Rows per write transaction.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 9), // 1 … 65,536
		}),
		txSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tessera_writer_transaction_seconds", Help: "Time of one write transaction, committed or not.",
			Buckets: prometheus.ExponentialBuckets(0.001, 3, 10),
		}),
		txErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tessera_writer_transaction_errors_total", Help: "Write transactions that failed (retried, or split to find a refused row).",
		}),
		dead: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tessera_writer_dead_letters_total", Help: "Dead letters recorded: refused messages and rows, collisions, malformed jobs.",
		}),
	}
	reg.MustRegister(m.rows, m.inserted, m.txRows, m.txSeconds, m.txErrors, m.dead)
	return m
}

// Transaction records one write of rows rows, of which inserted were new,
// that took d and ended with err.
func (m *Writer) Transaction(rows, inserted int, d time.Duration, err error) {
	m.txSeconds.Observe(d.Seconds())
	if err != nil {
		m.txErrors.Inc()
		return
	}
	m.txRows.Observe(float64(rows))
	m.rows.Add(float64(rows))
	m.inserted.Add(float64(inserted))
}

// DeadLetters records n dead letters.
func (m *Writer) DeadLetters(n int) {
	if n > 0 {
		m.dead.Add(float64(n))
	}
}
