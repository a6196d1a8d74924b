package cmdkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/queue"
)

// Health is a long-running service's two answers: /healthz (the process
// lives: metrics.Listen answers it alone) and /readyz (Ready: its NATS
// connection is up and every check it requires passes, so work may be
// routed to it). The connection's state is its Link, which the
// connection's handlers keep (Watch) and tessera_nats_connected follows
// (Measure).
type Health struct {
	Link *queue.Link

	started atomic.Bool
	mu      sync.Mutex
	checks  []check
}

type check struct {
	name string
	f    func(context.Context) error
}

// NewHealth returns a Health whose connection is not made yet.
func NewHealth() *Health { return &Health{Link: queue.NewLink()} }

// errStarting: the service has not set up its streams and consumers yet.
var errStarting = errors.New("starting: setting up the streams and consumers")

// Started marks the service set up (streams and consumers ensured, loops
// running): until then it is not ready, connected or not.
func (h *Health) Started() { h.started.Store(true) }

// Require adds a readiness check, named for its failures (e.g.
// "PostgreSQL"). A worker that knows whether it can take work beyond its
// connection adds its own the same way.
func (h *Health) Require(name string, f func(context.Context) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checks = append(h.checks, check{name, f})
}

// Ready is nil when the NATS connection is up and every required check
// passes within ctx; else the first failure, saying what failed.
func (h *Health) Ready(ctx context.Context) error {
	if err := h.Link.Ready(); err != nil {
		return err
	}
	if !h.started.Load() {
		return errStarting
	}
	h.mu.Lock()
	checks := append([]check(nil), h.checks...)
	h.mu.Unlock()
	for _, c := range checks {
		if err := c.f(ctx); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

// Watch is the connection-health settings of c for the service's
// connection: its events logged to log, its state kept in h.Link.
func (h *Health) Watch(c config.NATS, log *slog.Logger) queue.Watch { return Watch(c, log, h.Link) }

// Measure has m (tessera_nats_connected) follow the connection's state.
func (h *Health) Measure(m *metrics.Connected) { h.Link.OnChange(m.Set) }
