package queue

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tessera-solver/tessera/internal/redact"
)

// A server that dies closes its connections and is noticed at once; one
// that freezes (SIGSTOP, a hung host, a cut network) keeps them open and
// is noticed only by pings. nats.go pings every PingInterval and gives up
// when more than MaxPingsOut are unanswered, that is between MaxPingsOut
// and MaxPingsOut+1 intervals after the server stopped answering: with the
// defaults, 6 to 8 s (nats.go's own, 2 min × 2, would leave a client idle
// for up to 6 min). Then it reconnects, to another server of the list when
// there is one.
const (
	DefaultPingInterval = 2 * time.Second
	DefaultMaxPingsOut  = 3
	// ReconnectWait is the pause before trying a server again; a client
	// reconnects for ever.
	ReconnectWait = time.Second
)

// Watch is how a connection notices a dead or frozen server, and who hears
// of it. The zero value uses the defaults, logs nothing and follows no
// Link.
type Watch struct {
	PingInterval time.Duration // 0: DefaultPingInterval
	MaxPingsOut  int           // 0: DefaultMaxPingsOut
	// Log receives one line per event: connection lost (with the server
	// and the error), back (with the server and how long it was down),
	// closed, and asynchronous errors. Never a credential: servers are
	// shown through redact.URL and errors through redact.Error.
	Log *slog.Logger
	// Link follows the connection's state (nil: nothing does).
	Link *Link
}

func (w Watch) options(h *handlers) []nats.Option {
	ping, pings := w.PingInterval, w.MaxPingsOut
	if ping <= 0 {
		ping = DefaultPingInterval
	}
	if pings <= 0 {
		pings = DefaultMaxPingsOut
	}
	return []nats.Option{
		nats.PingInterval(ping), nats.MaxPingsOutstanding(pings),
		nats.MaxReconnects(-1), nats.ReconnectWait(ReconnectWait),
		nats.DisconnectErrHandler(h.disconnected), nats.ReconnectHandler(h.reconnected),
		nats.ClosedHandler(h.closed), nats.ErrorHandler(h.asyncError),
	}
}

func (w Watch) handlers(secrets []string) *handlers {
	return &handlers{log: w.Log, link: w.Link, secrets: secrets}
}

// Follow installs w's handlers on nc, a connection made elsewhere (the
// in-process server of producer --local), and has w.Link follow it.
func (w Watch) Follow(nc *nats.Conn) {
	h := w.handlers(nil)
	nc.SetDisconnectErrHandler(h.disconnected)
	nc.SetReconnectHandler(h.reconnected)
	nc.SetClosedHandler(h.closed)
	nc.SetErrorHandler(h.asyncError)
	h.made(nc)
}

// handlers are one connection's event handlers. nats.go calls them one at
// a time, in order, from the connection's own goroutine; made runs before
// any of them.
type handlers struct {
	log     *slog.Logger
	link    *Link
	secrets []string

	mu     sync.Mutex
	server string    // redacted URL of the server last connected to
	lostAt time.Time // zero while connected
}

// ErrNotConnected is the Link's answer while its connection is down.
var ErrNotConnected = errors.New("not connected to NATS")

func (h *handlers) err(err error) string {
	return redact.Error(err, h.secrets...).Error()
}

// made records nc connected for the first time.
func (h *handlers) made(nc *nats.Conn) {
	h.mu.Lock()
	h.server = serverOf(nc)
	h.mu.Unlock()
	if h.link != nil {
		h.link.follow(nc, h.server)
	}
}

func (h *handlers) disconnected(nc *nats.Conn, err error) {
	h.mu.Lock()
	server := h.server
	if h.lostAt.IsZero() {
		h.lostAt = time.Now()
	}
	h.mu.Unlock()
	if h.link != nil {
		h.link.lost(nc)
	}
	if err == nil {
		// The process closed it (Close, Drain): the closed line follows.
		return
	}
	if h.log != nil {
		h.log.Warn("NATS connection lost; reconnecting", "server", server, "err", h.err(err))
	}
}

func (h *handlers) reconnected(nc *nats.Conn) {
	h.mu.Lock()
	h.server = serverOf(nc)
	server, down := h.server, time.Duration(0)
	if !h.lostAt.IsZero() {
		down = time.Since(h.lostAt)
	}
	h.lostAt = time.Time{}
	h.mu.Unlock()
	if h.link != nil {
		h.link.back(nc, server)
	}
	if h.log != nil {
		h.log.Info("NATS connection back", "server", server, "name", nc.ConnectedServerName(),
			"down", down.Round(10*time.Millisecond).String())
	}
}

func (h *handlers) closed(nc *nats.Conn) {
	if h.link != nil {
		h.link.lost(nc)
	}
	if h.log == nil {
		return
	}
	h.mu.Lock()
	server := h.server
	h.mu.Unlock()
	if err := nc.LastError(); err != nil {
		h.log.Warn("NATS connection closed; not reconnecting", "server", server, "err", h.err(err))
		return
	}
	h.log.Info("NATS connection closed", "server", server)
}

func (h *handlers) asyncError(_ *nats.Conn, sub *nats.Subscription, err error) {
	if h.log == nil {
		return
	}
	subject := ""
	if sub != nil {
		subject = sub.Subject
	}
	h.log.Warn("NATS asynchronous error", "subject", subject, "err", h.err(err))
}

// serverOf is the URL of the server nc is connected to, without its
// credentials ("" while disconnected).
func serverOf(nc *nats.Conn) string { return redact.URL(nc.ConnectedUrl()) }

// Link is the state of a process's NATS connection as the connection's
// handlers report it: what readiness checks and the tessera_nats_connected
// gauge follow. It follows the last connection made through it, so that a
// connection closed after a failed start-up attempt does not speak for the
// next one. The zero value is not connected; use NewLink.
type Link struct {
	mu      sync.Mutex
	conn    *nats.Conn // the connection followed; nil: none yet
	up      bool
	since   time.Time // of the last change of up
	server  string    // redacted URL of the server last connected to
	watches []func(connected bool)
}

// NewLink returns a Link that has no connection yet.
func NewLink() *Link { return &Link{since: time.Now()} }

// OnChange calls f with the state now and again on every change. f must
// not block.
func (l *Link) OnChange(f func(connected bool)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.watches = append(l.watches, f)
	f(l.up)
}

// Ready is nil while connected, else an error saying since when and from
// which server the connection is down, e.g. "not connected to NATS for
// 7.1s (last server nats://127.0.0.1:4222)".
func (l *Link) Ready() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.up:
		return nil
	case l.server == "":
		return fmt.Errorf("%w yet (for %s)", ErrNotConnected, time.Since(l.since).Round(100*time.Millisecond))
	default:
		return fmt.Errorf("%w for %s (last server %s)", ErrNotConnected, time.Since(l.since).Round(100*time.Millisecond), l.server)
	}
}

// follow makes nc the connection followed, connected to server.
func (l *Link) follow(nc *nats.Conn, server string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.conn, l.server = nc, server
	l.set(true)
}

// back records nc connected again to server; the events of a connection
// no longer followed change nothing.
func (l *Link) back(nc *nats.Conn, server string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if nc == l.conn {
		l.server = server
		l.set(true)
	}
}

// lost records nc down (disconnected or closed); the events of a
// connection no longer followed change nothing.
func (l *Link) lost(nc *nats.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if nc == l.conn {
		l.set(false)
	}
}

func (l *Link) set(up bool) {
	if l.up == up {
		return
	}
	l.up, l.since = up, time.Now()
	for _, f := range l.watches {
		f(up)
	}
}
