// Package metrics is tessera's Prometheus instrumentation: one private
// registry per process (no global registration) carrying the Go runtime
// and process collectors, the solver's and the results writer's metric
// families, the NATS connection's state, and an HTTP server for /metrics,
// /healthz and /readyz.
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
	"strings"
	"sync/atomic"
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

// Server is a /metrics, /healthz and /readyz listener.
type Server struct {
	srv    *http.Server
	ln     net.Listener
	served chan error
}

// probeTimeout bounds one readiness check.
const probeTimeout = 2 * time.Second

// Listen serves reg on addr: /metrics (requiring "Authorization: Bearer
// token" when token is set), /healthz (liveness: 200 "ok" while the
// process serves) and /readyz (readiness: 200 "ok" when ready returns nil
// within 2 s, else 503 with its error on one line); both probes are open.
// A nil ready is always ready. It fails at once when addr cannot be
// listened on.
func Listen(addr, token string, reg prometheus.Gatherer, ready func(context.Context) error, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", Handler(reg))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
		defer cancel()
		w.Header().Set("Cache-Control", "no-store")
		if ready != nil {
			if err := ready(ctx); err != nil {
				http.Error(w, strings.Join(strings.Fields(err.Error()), " "), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	s := &Server{
		srv: &http.Server{
			Handler:           httpauth.Bearer(token, mux, "/healthz", "/readyz"),
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
	jobs     *prometheus.CounterVec
	inFlight *prometheus.GaugeVec
	lag      *prometheus.HistogramVec
	redeliv  *prometheus.CounterVec
	workers  *prometheus.GaugeVec
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
			Name: "tessera_solver_nodes_total",
			Help: "Search nodes expanded by this process, by puzzle and mode (a split search's walks and subtrees where they were searched).",
		}, []string{"puzzle", "mode"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tessera_solver_solve_seconds", Help: "Time to answer one state, by puzzle and mode.",
			// 100 µs (an 8-puzzle from its table) to over an hour (a 24-puzzle).
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 12),
		}, []string{"puzzle", "mode"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_solver_jobs_total", Help: "Job messages claimed from TESSERA_JOBS, by lane (quick, heavy, split: subtree jobs).",
		}, []string{"lane"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tessera_solver_jobs_in_flight", Help: "Job messages being worked on now, by lane.",
		}, []string{"lane"}),
		lag: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tessera_solver_queue_lag_seconds", Help: "Age of a job message when a worker claimed it (publish to claim), by lane.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 12),
		}, []string{"lane"}),
		redeliv: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_solver_redeliveries_total",
			Help: "Job messages claimed on a second or later delivery (a worker died, a stop handed them back, or a retry), by lane.",
		}, []string{"lane"}),
		workers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tessera_solver_workers", Help: "Workers this process runs, by the lanes they take (quick+heavy, quick).",
		}, []string{"lanes"}),
		sets: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tessera_solver_table_set_info",
			Help: "1 for the table set serving each puzzle and mode now (set=\"none\": no set, the built-in search); it changes when tables arrive while running.",
		}, []string{"role", "set"}),
		subtrees: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_solver_subtree_jobs_total",
			Help: "Subtree jobs of split searches: published by this process's coordinators, republished by them after a stall, and answered (stored, for their coordinator to count) by its workers.",
		}, []string{"event"}),
	}
	reg.MustRegister(m.solves, m.nodes, m.seconds, m.jobs, m.inFlight, m.lag, m.redeliv, m.workers, m.sets, m.subtrees)
	for _, lane := range []string{"quick", "heavy", "split"} {
		// Shown at 0 from the start, so that a rate or an alert has a series.
		m.jobs.WithLabelValues(lane)
		m.redeliv.WithLabelValues(lane)
		m.inFlight.WithLabelValues(lane)
	}
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

// Solved records one answer searched here, its nodes included.
func (m *Solver) Solved(puzzle string, mode result.Mode, r result.Result) {
	md := modeLabel(mode)
	m.SplitSolved(puzzle, mode, r)
	if r.Nodes > 0 {
		m.nodes.WithLabelValues(puzzle, md).Add(float64(r.Nodes))
	}
}

// SplitSolved records the row of a split search, whose nodes were
// counted where each walk and subtree was searched (SplitNodes).
func (m *Solver) SplitSolved(puzzle string, mode result.Mode, r result.Result) {
	md := modeLabel(mode)
	m.solves.WithLabelValues(puzzle, md, string(r.Status)).Inc()
	m.seconds.WithLabelValues(puzzle, md).Observe(r.ElapsedMS / 1000)
}

// SplitNodes records nodes of a split search's walk or subtree searched
// here (split searches are optimal).
func (m *Solver) SplitNodes(puzzle string, nodes int64) {
	m.nodes.WithLabelValues(puzzle, string(result.ModeOptimal)).Add(float64(nodes))
}

func modeLabel(mode result.Mode) string {
	if mode == "" {
		return string(result.ModeOptimal)
	}
	return string(mode)
}

// Workers records this process's configured workers: all takes both
// lanes, quick the quick lane only.
func (m *Solver) Workers(all, quick int) {
	m.workers.WithLabelValues("quick+heavy").Set(float64(all))
	m.workers.WithLabelValues("quick").Set(float64(quick))
}

// JobClaimed records a job message of lane published at published (the
// stream's timestamp) and claimed now on its delivery-th delivery; call
// the returned func when it is done.
func (m *Solver) JobClaimed(lane string, published time.Time, delivery uint64) (done func()) {
	m.jobs.WithLabelValues(lane).Inc()
	if delivery > 1 {
		m.redeliv.WithLabelValues(lane).Inc()
	}
	if !published.IsZero() {
		m.lag.WithLabelValues(lane).Observe(max(time.Since(published), 0).Seconds())
	}
	g := m.inFlight.WithLabelValues(lane)
	g.Inc()
	return g.Dec
}

// Writer is what the results writer measures.
type Writer struct {
	rows      prometheus.Counter
	inserted  prometheus.Counter
	txRows    prometheus.Histogram
	txSeconds prometheus.Histogram
	txErrors  prometheus.Counter
	dead      prometheus.Counter
	// held reads what the running writer holds; nil until Holding.
	held atomic.Pointer[func() int64]
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
	heldBytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "tessera_writer_held_bytes",
		Help: "Bytes of results the writer holds (fetched, decoding or being committed), bounded by results.max_bytes.",
	}, func() float64 {
		if f := m.held.Load(); f != nil {
			return float64((*f)())
		}
		return 0
	})
	reg.MustRegister(m.rows, m.inserted, m.txRows, m.txSeconds, m.txErrors, m.dead, heldBytes)
	return m
}

// Holding makes tessera_writer_held_bytes read held (the writer's Held).
func (m *Writer) Holding(held func() int64) { m.held.Store(&held) }

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

// Connected is the tessera_nats_connected gauge: 1 while the process's
// NATS connection is up, 0 while it is down or not made yet.
type Connected struct{ g prometheus.Gauge }

// NewConnected registers tessera_nats_connected on reg, at 0.
func NewConnected(reg prometheus.Registerer) *Connected {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "tessera_nats_connected",
		Help: "1 while this process's NATS connection is up, 0 while it is lost (reconnecting) or not made yet.",
	})
	reg.MustRegister(g)
	return &Connected{g: g}
}

// Set records the connection up or down.
func (c *Connected) Set(up bool) {
	if up {
		c.g.Set(1)
	} else {
		c.g.Set(0)
	}
}

// NewReady registers tessera_ready on reg: at each scrape, 1 when ready
// (the process's /readyz check) passes within the probes' bound, else 0,
// so that a dashboard and an alert see readiness without probing /readyz.
func NewReady(reg prometheus.Registerer, ready func(context.Context) error) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "tessera_ready",
		Help: "1 when this process can take work (what /readyz answers 200 to: NATS connected, set up, PostgreSQL answering where it needs it), else 0.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		if ready(ctx) != nil {
			return 0
		}
		return 1
	}))
}
