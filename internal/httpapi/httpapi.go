// Package httpapi is the HTTP face of the results database, served by
// `results serve`: health checks, Prometheus metrics, a JSON API (batches,
// distributions, scrambles by optimal length) and a small status page. It
// reads through internal/store; it writes only for callers with a writer
// token (internal/httpauth.WriterOf): the states served to their client
// keys (served_scrambles, served_clients) and, with a Generator, batches
// of candidates.
//
//	GET /healthz                          200 "ok" while the process serves (liveness: no database work)
//	GET /readyz                           200 "ok" when PostgreSQL accepts a new connection and answers
//	                                      within 2 s and, WithNATS, NATS is connected; else 503 and
//	                                      why (readiness; load.go)
//	GET /metrics                          Prometheus text format
//	GET /api/batches?limit=N[&puzzle=P][&state=S]  newest batches first, with progress (default 20, at most 1000)
//	GET /api/batches/{id}                 one batch (404 if missing)
//	GET /api/batches/{id}/distribution    histogram of optimal lengths of a batch
//	GET /api/batches/{id}/rows?format=csv|jsonl[&status=S,...]  the batch's rows, streamed (download.go)
//	GET /api/batches/{id}/dead?format=csv|jsonl                  its dead letters, streamed
//	GET /api/puzzles/{puzzle}/distribution  same over every batch of a puzzle (sliding:3x3 or 8)
//	GET /api/scrambles?puzzle=P&length=L&count=N[&client=K][&cursor=C][&min_nodes=A][&max_nodes=B]
//	    distinct stored states of P whose optimal length is L; a client key
//	    (writers only: 403 otherwise; at most 64 bytes of [A-Za-z0-9._:-])
//	    never gets a state twice, up to its cap (409 after); limit= is
//	    count's older name; with generate=true (results serve --generate,
//	    writers only) what is missing is enqueued
//	GET /api/batches/{id}/throughput?minutes=N  rows stored per minute up to the newest row (default 60, at most 1440)
//	GET /api/workers                      the live processes of the NATS registry (503 without NATS; steer.go)
//	GET /api/openapi.json                 this API's OpenAPI 3.1 description (openapi.json; open, like the probes)
//	GET /[?batch=ID]                      HTML: recent batches (state, progress by status, rate, ETA),
//	                                      per puzzle its histogram against the exact one, batch ID
//	                                      with its rows per minute, the workers, and for a writer's
//	                                      login the batch's steering buttons
//	POST /batches/{id}/cancel|pause|unpause|requeue  a writer's steering action (internal/steer): 403
//	                                      for anyone else, for a session without its CSRF token and
//	                                      from another origin; 303 back to the batch with what happened
//
// API errors are JSON objects {"error": "...", "param": "..."} (param only
// when a request parameter is at fault) with status 400, 404 or 500; 503
// with Retry-After when more than the cap of requests are in flight.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/store"
)

// Limits of the list endpoints.
const (
	DefaultBatches  = 20     // /api/batches and the page without ?limit
	MaxBatches      = 1000   // larger limits are capped
	DefaultScramble = 100    // /api/scrambles without ?limit
	MaxScrambles    = 10_000 // larger limits are capped
	MaxLength       = 10_000 // a longer optimal length is a bad request
	MetricsBatches  = 20     // batches with per-batch series in /metrics
)

// Time limits of the database work behind one request.
const (
	healthTimeout  = 2 * time.Second
	metricsTimeout = 10 * time.Second
	queryTimeout   = 30 * time.Second
)

type server struct {
	st   *store.Store
	log  *slog.Logger
	errs *rateLog  // failures, at a bounded rate (load.go)
	gen  Generator // nil: generate=true is refused
	// splits reads split searches' progress (nil: not shown).
	splits Splits

	clientCap   int64        // states one client key may be served
	maxInFlight int          // API requests at once (load.go)
	starting    func() error // non-nil error: not ready yet (load.go)
	ready       readiness
	nats        NATSLink  // nil: /readyz asks the database only
	steering    *Steering // nil: no steering, no workers view
	refresh     int       // the page's auto-refresh period, seconds
	sparks      sparks    // the page's recent sparklines (page.go)
}

// Generator enqueues candidates for scrambles that are not stored yet
// (results serve --generate): states of spec to be solved, so that missing
// more of them at optimal length come in. It returns the batch it made
// (or the one still working on that length) and how many candidates it
// holds.
type Generator interface {
	Generate(ctx context.Context, spec puzzle.Spec, length, missing int) (batch int64, candidates int, err error)
}

// Splits reads the progress of a batch's split searches (producer
// --split), whose records live in NATS, not in the database: results
// serve reads them with queue.ListSplits.
type Splits interface {
	Splits(ctx context.Context, batch int64) ([]job.SplitRecord, error)
}

// WithSplits shows each split search's progress in /api/batches/{id} and
// on the page's batch view.
func WithSplits(sp Splits) Option { return func(s *server) { s.splits = sp } }

// Option configures New.
type Option func(*server)

// WithGenerator lets /api/scrambles?generate=true enqueue what is missing.
func WithGenerator(g Generator) Option { return func(s *server) { s.gen = g } }

// New returns the handler of every endpoint listed in the package comment.
// It reads st, and writes to it only for writer tokens (the package
// comment says what; a Generator, when given, writes batches); log receives
// server-side failures (5xx).
func New(st *store.Store, log *slog.Logger, opts ...Option) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{st: st, log: log, errs: newRateLog(log, logEvery), maxInFlight: DefaultMaxInFlight, clientCap: DefaultClientCap, refresh: RefreshSeconds}
	for _, o := range opts {
		o(s)
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(dbCollector{st: st, log: log})
	if s.nats != nil {
		s.nats.OnChange(metrics.NewConnected(reg).Set)
	}
	metrics.NewReady(reg, s.readiness)
	lim := &limit{slots: make(chan struct{}, s.maxInFlight), s: s,
		shed: prometheus.NewCounter(prometheus.CounterOpts{Name: "tessera_http_shed_total", Help: "API requests answered 503 at once because results.http_max_requests were in flight."})}
	reg.MustRegister(lim.shed, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tessera_http_in_flight", Help: "API requests being served."},
		func() float64 { return float64(len(lim.slots)) }))
	var routes []string
	mux := newRouter(&routes)
	mux.Handle("GET /metrics", noStore(metrics.Handler(reg)))
	mux.HandleFunc("GET /api/batches", s.batches)
	mux.HandleFunc("GET /api/batches/{id}", s.batch)
	mux.HandleFunc("GET /api/batches/{id}/distribution", s.batchDistribution)
	mux.HandleFunc("GET /api/batches/{id}/rows", s.downloadRows)
	mux.HandleFunc("GET /api/batches/{id}/dead", s.downloadDead)
	mux.HandleFunc("GET /api/puzzles/{puzzle}/distribution", s.puzzleDistribution)
	mux.HandleFunc("GET /api/scrambles", s.scrambles)
	mux.HandleFunc("GET /api/batches/{id}/throughput", s.throughput)
	mux.HandleFunc("GET /api/workers", s.workers)
	mux.HandleFunc("POST /batches/{id}/{action}", s.steerPost)
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, apiError{Error: "no such endpoint: " + r.URL.Path})
	})
	mux.HandleFunc("GET /{$}", s.page)
	// The probes stay outside the cap: a busy server is alive, and its
	// readiness check has a connection of its own.
	top := newRouter(&routes)
	top.HandleFunc("GET /healthz", s.healthz)
	top.HandleFunc("GET /readyz", s.readyz)
	// Static bytes: outside the cap too, and served while starting.
	top.HandleFunc("GET "+SpecPath, serveSpec)
	// Not a route of its own: the routes above are mux's.
	top.ServeMux.Handle("/", lim.wrap(mux))
	return &Handler{Handler: top, routes: routes}
}

// BatchView is a batch as the API shows it: the batches row and its
// progress, done/total in [0, 1] (null while the total is unknown).
type BatchView struct {
	store.Batch
	Progress *float64 `json:"progress"`
}

func view(b store.Batch) BatchView {
	v := BatchView{Batch: b}
	switch {
	case b.Total > 0:
		p := min(float64(b.Done)/float64(b.Total), 1)
		v.Progress = &p
	case b.Total == 0:
		p := 1.0
		v.Progress = &p
	}
	return v
}

// BatchList is the body of /api/batches.
type BatchList struct {
	Batches []BatchView `json:"batches"`
}

func (s *server) batches(w http.ResponseWriter, r *http.Request) {
	limit, err := intParam(r, "limit", DefaultBatches, 1, MaxBatches)
	if err != nil {
		badRequest(w, err)
		return
	}
	f, err := batchFilter(r)
	if err != nil {
		badRequest(w, err)
		return
	}
	queryJSON(s, w, r, func(ctx context.Context) ([]store.Batch, error) { return s.st.FindBatches(ctx, f, limit) },
		func(bs []store.Batch) any {
			out := BatchList{Batches: make([]BatchView, len(bs))}
			for i, b := range bs {
				out.Batches[i] = view(b)
			}
			return out
		})
}

func (s *server) batch(w http.ResponseWriter, r *http.Request) {
	id, err := batchID(r)
	if err != nil {
		badRequest(w, err)
		return
	}
	queryJSON(s, w, r, func(ctx context.Context) (BatchDetail, error) {
		b, err := s.st.BatchProgress(ctx, id)
		if err != nil {
			return BatchDetail{}, err
		}
		out := BatchDetail{BatchView: view(b)}
		if s.splits != nil {
			rs, err := s.splits.Splits(ctx, id)
			if err != nil {
				s.errs.log(slog.LevelWarn, "split progress", "batch", id, "err", err)
				out.SplitsError = err.Error()
			}
			for _, r := range rs {
				out.Splits = append(out.Splits, newSplitView(r))
			}
		}
		return out, nil
	}, func(d BatchDetail) any { return d })
}

// BatchDetail is the body of /api/batches/{id}: the batch and, when the
// server reads them (WithSplits), its split searches' progress.
type BatchDetail struct {
	BatchView
	Splits      []SplitView `json:"splits,omitempty"`
	SplitsError string      `json:"splits_error,omitempty"` // NATS did not answer
}

// SplitView is one split search's progress (job.SplitRecord): the
// iteration and its bound, the subtrees answered of those laid out (total
// -1 while the iteration is being laid out), nodes so far, the lower bound
// proved, and how it ended ("" while running).
type SplitView struct {
	Seq       int64     `json:"seq"`
	Iteration int       `json:"iteration"`
	Bound     int       `json:"bound"`
	Answered  int       `json:"subtrees_answered"`
	Total     int       `json:"subtrees"`
	Nodes     int64     `json:"nodes"`
	Lower     int       `json:"lower_bound"`
	End       string    `json:"end,omitempty"`
	Started   time.Time `json:"started"`
}

func newSplitView(r job.SplitRecord) SplitView {
	return SplitView{Seq: r.Seq, Iteration: r.Iteration, Bound: r.Bound, Answered: r.Count, Total: r.Total,
		Nodes: r.Nodes, Lower: r.Lower, End: r.End, Started: r.Started}
}

// BatchDistribution is the body of /api/batches/{id}/distribution.
type BatchDistribution struct {
	BatchID int64 `json:"batch_id"`
	store.Distribution
}

// PuzzleDistribution is the body of /api/puzzles/{puzzle}/distribution.
type PuzzleDistribution struct {
	Puzzle string `json:"puzzle"` // canonical spec
	store.Distribution
}

func (s *server) batchDistribution(w http.ResponseWriter, r *http.Request) {
	id, err := batchID(r)
	if err != nil {
		badRequest(w, err)
		return
	}
	queryJSON(s, w, r, func(ctx context.Context) (store.Distribution, error) { return s.st.BatchDistribution(ctx, id) },
		func(d store.Distribution) any { return BatchDistribution{BatchID: id, Distribution: nonNil(d)} })
}

func (s *server) puzzleDistribution(w http.ResponseWriter, r *http.Request) {
	spec, err := puzzle.ParseSpec(r.PathValue("puzzle"))
	if err != nil {
		badRequest(w, paramError{"puzzle", err})
		return
	}
	p := spec.String()
	queryJSON(s, w, r, func(ctx context.Context) (store.Distribution, error) { return s.st.PuzzleDistribution(ctx, p) },
		func(d store.Distribution) any { return PuzzleDistribution{Puzzle: p, Distribution: nonNil(d)} })
}

// queryJSON answers r with body(v), v what query returns within
// queryTimeout; a query that fails is answered by s.fail.
func queryJSON[T any](s *server, w http.ResponseWriter, r *http.Request, query func(context.Context) (T, error), body func(T) any) {
	ctx, cancel := context.WithTimeout(r.Context(), queryTimeout)
	defer cancel()
	v, err := query(ctx)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, body(v))
}

// nonNil makes an empty histogram's counts [] rather than null.
func nonNil(d store.Distribution) store.Distribution {
	if d.Counts == nil {
		d.Counts = []store.LengthCount{}
	}
	return d
}

// Scrambles is the body of /api/scrambles: distinct states, one row each
// (the first stored), oldest batch and seq first, with the columns of
// `results export`.
type Scrambles struct {
	Puzzle    string           `json:"puzzle"` // canonical spec
	Length    int              `json:"length"`
	Limit     int              `json:"limit"` // the count asked for, after capping
	Count     int              `json:"count"` // rows returned
	Scrambles []store.Solution `json:"scrambles"`
	// NextCursor, when set, continues after the last row returned.
	NextCursor string `json:"next_cursor,omitempty"`
	// Missing is how many of the count asked for are not stored (or, for
	// a client, not stored unseen); Generate is the command that makes
	// them.
	Missing  int    `json:"missing,omitempty"`
	Generate string `json:"generate,omitempty"`
	// Generating, after generate=true, is the batch of candidates
	// enqueued for what is missing: ask again as it fills.
	Generating *Generating `json:"generating,omitempty"`
}

// Generating is a batch of candidates enqueued by generate=true.
type Generating struct {
	Batch      int64 `json:"batch"`
	Candidates int   `json:"candidates"`
}

func (s *server) scrambles(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("puzzle") == "" {
		badRequest(w, paramError{"puzzle", errors.New("required, e.g. puzzle=sliding:3x3 or puzzle=8")})
		return
	}
	spec, err := puzzle.ParseSpec(q.Get("puzzle"))
	if err != nil {
		badRequest(w, paramError{"puzzle", err})
		return
	}
	if q.Get("length") == "" {
		badRequest(w, paramError{"length", errors.New("required: the optimal solution length")})
		return
	}
	length, err := intParam(r, "length", 0, 0, -1)
	if err == nil && length > MaxLength {
		err = paramError{"length", fmt.Errorf("%d is more than %d", length, MaxLength)}
	}
	if err != nil {
		badRequest(w, err)
		return
	}
	// count is the name generation backends use; limit stays accepted.
	limit, err := intParam(r, "limit", DefaultScramble, 1, MaxScrambles)
	if err == nil && q.Get("count") != "" {
		limit, err = intParam(r, "count", DefaultScramble, 1, MaxScrambles)
	}
	if err != nil {
		badRequest(w, err)
		return
	}
	sq := store.ScrambleQuery{Puzzle: spec.String(), Length: length, Count: limit}
	writer := httpauth.WriterOf(r.Context())
	if k := q.Get("client"); k != "" {
		if err := checkClientKey(k); err != nil {
			badRequest(w, paramError{"client", err})
			return
		}
		if writer == "" {
			forbidden(w, "client", "served-state tracking writes to the database: it "+httpauth.ErrNoWriter.Error()+"; without client= the same states may come again")
			return
		}
		// Keys are kept apart per writer: one writer cannot see or use up
		// another's.
		sq.Client, sq.ClientCap = writer+"/"+k, s.clientCap
	}
	if q.Get("generate") == "true" && writer == "" && s.gen != nil {
		forbidden(w, "generate", "generate=true enqueues work: it "+httpauth.ErrNoWriter.Error())
		return
	}
	if c := q.Get("cursor"); c != "" {
		b, sqn, ok := strings.Cut(c, ".")
		var e1, e2 error
		sq.AfterBatch, e1 = strconv.ParseInt(b, 10, 64)
		sq.AfterSeq, e2 = strconv.ParseInt(sqn, 10, 64)
		if !ok || e1 != nil || e2 != nil {
			badRequest(w, paramError{"cursor", fmt.Errorf("%q is not a cursor this API returned", c)})
			return
		}
	}
	for _, p := range []struct {
		name string
		dst  *int64
	}{{"min_nodes", &sq.MinNodes}, {"max_nodes", &sq.MaxNodes}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				badRequest(w, paramError{p.name, fmt.Errorf("%q is not a node count", v)})
				return
			}
			*p.dst = n
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), queryTimeout)
	defer cancel()
	rows, err := s.st.ServeScrambles(ctx, sq)
	if errors.Is(err, store.ErrClientFull) {
		writeJSON(w, http.StatusConflict, apiError{Error: fmt.Sprintf("client: key %q has been served %d states, the most one key may be; use a new key", q.Get("client"), s.clientCap), Param: "client"})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if rows == nil {
		rows = []store.Solution{}
	}
	out := Scrambles{Puzzle: spec.String(), Length: length, Limit: limit, Count: len(rows), Scrambles: rows}
	if len(rows) == limit {
		last := rows[len(rows)-1]
		out.NextCursor = fmt.Sprintf("%d.%d", last.BatchID, last.Seq)
	} else {
		out.Missing = limit - len(rows)
		// The producer counts every distinct state stored at the length, so
		// new ones for this request means that many more than are stored.
		stored, err := s.st.DistinctAtLength(ctx, spec.String(), length)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		out.Generate = fmt.Sprintf("producer --puzzle %s --target-length %d --count %d", spec, length, stored+int64(out.Missing))
		if q.Get("generate") == "true" {
			if s.gen == nil {
				writeJSON(w, http.StatusNotImplemented, map[string]string{"error": "generate: this results serve does not generate (start it with --generate), or run: " + out.Generate, "param": "generate"})
				return
			}
			b, n, err := s.gen.Generate(ctx, spec, length, out.Missing)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			out.Generating = &Generating{Batch: b, Candidates: n}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// MaxClientKey bounds a client key's length in bytes.
const MaxClientKey = 64

// DefaultClientCap is how many states one client key may be served (and
// so how many rows of served_scrambles it may cost) when not set.
const DefaultClientCap = 100_000

// WithClientCap sets how many states one client key may be served in all
// (n < 1: DefaultClientCap).
func WithClientCap(n int64) Option {
	return func(s *server) {
		if n < 1 {
			n = DefaultClientCap
		}
		s.clientCap = n
	}
}

// checkClientKey accepts 1 to MaxClientKey letters, digits and . _ - :
// (a key is stored and echoed; nothing else needs more).
func checkClientKey(k string) error {
	if len(k) > MaxClientKey {
		return fmt.Errorf("%d bytes: a key has at most %d", len(k), MaxClientKey)
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == ':') {
			return fmt.Errorf("%q: a key holds only letters, digits and the characters . _ - : (nothing else)", k)
		}
	}
	return nil
}

func forbidden(w http.ResponseWriter, param, msg string) {
	writeJSON(w, http.StatusForbidden, apiError{Error: param + ": " + msg, Param: param})
}

// paramError is a bad request parameter.
type paramError struct {
	param string
	err   error
}

func (e paramError) Error() string { return e.param + ": " + e.err.Error() }

// apiError is the body of every API error.
type apiError struct {
	Error string `json:"error"`
	Param string `json:"param,omitempty"`
}

// intParam reads query parameter name as a whole number no smaller than
// lo; absent or empty, it is def. A value above hi (when hi > 0) is capped.
func intParam(r *http.Request, name string, def, lo, hi int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, paramError{name, fmt.Errorf("%q is not a whole number", s)}
	}
	if n < lo {
		return 0, paramError{name, fmt.Errorf("%d is less than %d", n, lo)}
	}
	if hi > 0 && n > hi {
		n = hi
	}
	return n, nil
}

// batchFilter reads ?puzzle=P&state=S (either may be empty).
func batchFilter(r *http.Request) (store.BatchFilter, error) {
	q := r.URL.Query()
	f := store.BatchFilter{State: q.Get("state")}
	if p := q.Get("puzzle"); p != "" {
		spec, err := puzzle.ParseSpec(p)
		if err != nil {
			return f, paramError{"puzzle", err}
		}
		f.Puzzle = spec.String()
	}
	if f.State != "" && !slices.Contains(store.BatchStates, f.State) {
		return f, paramError{"state", fmt.Errorf("%q: want one of %s", f.State, strings.Join(store.BatchStates, ", "))}
	}
	return f, nil
}

func batchID(r *http.Request) (int64, error) {
	s := r.PathValue("id")
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, paramError{"id", fmt.Errorf("batch id %q is not a whole number", s)}
	}
	return id, nil
}

func badRequest(w http.ResponseWriter, err error) {
	e := apiError{Error: err.Error()}
	var pe paramError
	if errors.As(err, &pe) {
		e.Param = pe.param
	}
	writeJSON(w, http.StatusBadRequest, e)
}

// fail answers a store error: 404 for a missing batch, 504 when the query
// ran out of time, 500 otherwise (logged).
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, store.ErrNotFound):
		code = http.StatusNotFound
	case r.Context().Err() != nil:
		return // the client went away; nobody reads the answer
	case errors.Is(err, context.DeadlineExceeded):
		code = http.StatusGatewayTimeout
	}
	if code != http.StatusNotFound {
		s.errs.log(slog.LevelError, "request failed", "method", r.Method, "path", r.URL.Path, "status", code, "err", err)
	}
	writeJSON(w, code, apiError{Error: err.Error()})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// noStore marks h's answers uncacheable.
func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}
