package httpapi

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Health and load: a burst of concurrent requests far beyond the store's
// few pooled connections must neither queue every request nor fail the
// probes:
//   - /healthz is liveness: it answers from the process alone, never
//     touching the pool, so a server that is merely busy is not restarted;
//   - /readyz is readiness: the database on a connection of its own
//     (store.Ready) with a short timeout, one check at a time, its answer
//     reused for readyEvery;
//   - the API (everything but the two probes) admits at most maxInFlight
//     requests at once and answers the rest at once with 503 and
//     Retry-After, so a burst costs the clients a retry, not 30 s each;
//   - repeated failures are logged once per logEvery with a count of the
//     lines suppressed in between.

// DefaultMaxInFlight is the API's concurrency cap when none is given:
// enough to keep the store's connections busy with some queued behind
// them, few enough that the queue drains well within queryTimeout.
const DefaultMaxInFlight = 16

const (
	readyTimeout = 2 * time.Second
	readyEvery   = time.Second
	logEvery     = 10 * time.Second
	retryAfter   = "1" // seconds, the Retry-After of a shed request
)

// WithMaxInFlight caps the API requests served at once (n < 1:
// DefaultMaxInFlight); the probes are not counted.
func WithMaxInFlight(n int) Option {
	return func(s *server) {
		if n < 1 {
			n = DefaultMaxInFlight
		}
		s.maxInFlight = n
	}
}

// WithStarting makes /readyz and the API answer 503 with the error
// starting returns while it returns one (results serve: while the schema
// is migrated). /healthz is not affected: a starting process is alive.
func WithStarting(starting func() error) Option {
	return func(s *server) { s.starting = starting }
}

// NATSLink is the state of a NATS connection the server needs to take
// work (queue.Link): results serve --generate enqueues on it.
type NATSLink interface {
	Ready() error
	OnChange(func(connected bool))
}

// WithNATS makes /readyz require link connected, beside the database, and
// exports its state as tessera_nats_connected.
func WithNATS(link NATSLink) Option { return func(s *server) { s.nats = link } }

func (s *server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, "ok")
}

func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.readiness(r.Context()); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, err)
		return
	}
	fmt.Fprintln(w, "ok")
}

// readiness is /readyz's answer (and tessera_ready's): started, NATS
// connected when the server needs it, the database answering.
func (s *server) readiness(ctx context.Context) error {
	if err := s.startErr(); err != nil {
		return err
	}
	if s.nats != nil {
		if err := s.nats.Ready(); err != nil {
			return err
		}
	}
	if err := s.ready.check(ctx, s.st.Ready); err != nil {
		s.errs.log(slog.LevelWarn, "readiness check failed", "err", err)
		return err
	}
	return nil
}

func (s *server) startErr() error {
	if s.starting == nil {
		return nil
	}
	return s.starting()
}

// readiness runs one database check at a time and reuses its answer for
// readyEvery, so that many probes cost one connection, not one each.
type readiness struct {
	mu   sync.Mutex
	at   time.Time
	last error
}

func (c *readiness) check(ctx context.Context, ready func(context.Context) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < readyEvery {
		return c.last
	}
	// Not the request's context: a probe that gives up must not leave a
	// cancelled answer for the next one to reuse.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readyTimeout)
	defer cancel()
	c.last, c.at = ready(cctx), time.Now()
	return c.last
}

// limit admits at most cap(slots) requests to h at once and sheds the rest
// with 503 and Retry-After, without waiting.
type limit struct {
	slots chan struct{}
	shed  prometheus.Counter
	s     *server
}

func (l *limit) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := l.s.startErr(); err != nil {
			w.Header().Set("Retry-After", retryAfter)
			l.refuse(w, r, err.Error())
			return
		}
		select {
		case l.slots <- struct{}{}:
			defer func() { <-l.slots }()
			h.ServeHTTP(w, r)
		default:
			l.shed.Inc()
			l.s.errs.log(slog.LevelWarn, "shedding requests: too many at once", "max_in_flight", cap(l.slots))
			w.Header().Set("Retry-After", retryAfter)
			l.refuse(w, r, fmt.Sprintf("busy: %d requests in flight, the most results.http_max_requests allows; retry after %s s", cap(l.slots), retryAfter))
		}
	})
}

func (l *limit) refuse(w http.ResponseWriter, r *http.Request, msg string) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeJSON(w, http.StatusServiceUnavailable, apiError{Error: msg})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, msg, http.StatusServiceUnavailable)
}

// maxRateKeys bounds the kinds of line a rateLog remembers.
const maxRateKeys = 1000

// ServerErrorLog is the ErrorLog of an http.Server serving this package's
// handler: what net/http reports (accept errors, TLS handshakes, panics)
// goes to l at WARN, at most one line per 10 s per kind of message, digits
// ignored, so the same error from many client addresses is one kind.
func ServerErrorLog(l *slog.Logger) *log.Logger {
	rl := newRateLog(l, logEvery)
	return log.New(writerFunc(func(p []byte) (int, error) {
		msg := strings.TrimSpace(string(p))
		kind := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, msg)
		rl.logKey(kind, slog.LevelWarn, "http server", "err", msg)
		return len(p), nil
	}), "", 0)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// rateLog logs a message at most once per logEvery; the next line after
// a quiet spell says how many were suppressed. Lines are told apart by
// their message only: a burst of one failure with varying details is one
// line per logEvery, not one per request.
type rateLog struct {
	out   *slog.Logger
	every time.Duration
	mu    sync.Mutex
	seen  map[string]*rateEntry
}

type rateEntry struct {
	at         time.Time
	suppressed int
}

func newRateLog(log *slog.Logger, every time.Duration) *rateLog {
	return &rateLog{out: log, every: every, seen: map[string]*rateEntry{}}
}

func (l *rateLog) log(level slog.Level, msg string, args ...any) {
	l.logKey(msg, level, msg, args...)
}

// logKey is log with lines told apart by key instead of msg.
func (l *rateLog) logKey(key string, level slog.Level, msg string, args ...any) {
	now := time.Now()
	l.mu.Lock()
	e := l.seen[key]
	if e == nil {
		if len(l.seen) >= maxRateKeys {
			clear(l.seen) // a bound on memory; at worst a few lines more
		}
		e = &rateEntry{}
		l.seen[key] = e
	}
	if !e.at.IsZero() && now.Sub(e.at) < l.every {
		e.suppressed++
		l.mu.Unlock()
		return
	}
	n := e.suppressed
	e.at, e.suppressed = now, 0
	l.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n, "suppressed_over", l.every.String())
	}
	l.out.Log(context.Background(), level, msg, args...)
}
