// Package backoff is the one retry policy of the services: a delay that
// grows with the attempt number up to a cap, and a loop that retries a
// function with it until it succeeds, fails permanently or its context
// ends. There is no jitter, so delays (and the tests that watch them) are
// deterministic.
package backoff

import (
	"context"
	"errors"
	"time"
)

// Default bounds of a zero Policy: they suit a service waiting for a
// dependency that is starting up.
const (
	DefaultMin = 100 * time.Millisecond
	DefaultMax = 5 * time.Second
)

// Policy says how long to wait before the next attempt. The zero value
// waits 100 ms, 200 ms, 400 ms, ... up to 5 s.
type Policy struct {
	// Min is the delay after the first failure (DefaultMin when <= 0).
	Min time.Duration
	// Max caps the delay (max(DefaultMax, Min) when <= 0; Min when below it).
	Max time.Duration
	// Linear grows the delay by Min per attempt instead of doubling it.
	Linear bool
}

func (p Policy) bounds() (lo, hi time.Duration) {
	lo, hi = p.Min, p.Max
	if lo <= 0 {
		lo = DefaultMin
	}
	if hi <= 0 {
		hi = max(DefaultMax, lo)
	}
	return lo, max(hi, lo)
}

// Delay is the wait after failed attempt number attempt (1 for the first;
// smaller values count as 1): Min·2^(attempt-1), or Min·attempt when
// Linear, capped at Max. It never overflows.
func (p Policy) Delay(attempt int) time.Duration {
	lo, hi := p.bounds()
	attempt = max(attempt, 1)
	if p.Linear {
		if attempt > int(hi/lo) {
			return hi
		}
		return min(lo*time.Duration(attempt), hi)
	}
	d := lo
	for i := 1; i < attempt && d < hi; i++ {
		if d > hi/2 {
			return hi
		}
		d *= 2
	}
	return min(d, hi)
}

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks err so that Retry returns it at once instead of trying
// again. Permanent(nil) is nil. The mark is transparent to errors.Is/As.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

// Retry calls f until it returns nil, an error marked Permanent (returned
// without the mark), or ctx ends (f's last error is returned: callers that
// care tell the cases apart by ctx.Err()). f is always called once, and
// again only while ctx is live. Before each wait, onRetry (if not nil) is told the number of the
// attempt that failed, the delay about to be waited and the error; it is
// not called once ctx has ended, so a stop does not log a spurious retry.
func Retry(ctx context.Context, p Policy, f func() error, onRetry func(attempt int, delay time.Duration, err error)) error {
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil {
			return nil
		}
		var pe *permanentError
		if errors.As(err, &pe) {
			if err == error(pe) {
				return pe.err
			}
			return err // marked deeper down: keep the caller's wrapping
		}
		if ctx.Err() != nil {
			return err
		}
		d := p.Delay(attempt)
		if onRetry != nil {
			onRetry(attempt, d, err)
		}
		if !Sleep(ctx, d) {
			return err
		}
	}
}

// Sleep waits d or until ctx ends; it reports whether to go on: d passed
// and ctx is still live (when both happen at once, select may pick either).
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}
