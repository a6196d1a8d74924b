package cmdkit

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/tessera-solver/tessera/internal/backoff"
)

// StartBackoff paces the waits of a service for its servers at start:
// 100 ms doubling to 5 s (a daemon may start before NATS or PostgreSQL).
var StartBackoff = backoff.Policy{Min: 100 * time.Millisecond, Max: 5 * time.Second}

// Retry runs f until it succeeds or ctx ends, at StartBackoff, logging
// each failure as "<what> failed; retrying"; it gives up on settings that
// refusals keeps refusing (queue.Refusals, store.Refused), so a
// supervisor sees the failure instead of a warning every 5 s.
func Retry(ctx context.Context, log *slog.Logger, what string, refusals *backoff.Refusals, f func() error) error {
	check := func() error { return refusals.Check(f()) }
	err := backoff.Retry(ctx, StartBackoff, check, func(_ int, delay time.Duration, err error) {
		log.Warn(what+" failed; retrying", "err", err, "delay", delay)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
