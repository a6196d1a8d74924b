package cmdkit

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// drainer is a loop that, told to stop, takes a while to finish its work
// (as the workers hand back jobs) and records that it did.
func drainer(drained *atomic.Int32) func(context.Context) error {
	return func(ctx context.Context) error {
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond)
		drained.Add(1)
		return ctx.Err()
	}
}

// A signal is the parent context's end (signal.NotifyContext): every loop
// drains and the stop is clean.
func TestLoopsCancelDrainsCleanly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	l := NewLoops(ctx, "svc")
	var drained atomic.Int32
	for _, name := range []string{"workers", "writer", "sweep"} {
		l.Go(name, drainer(&drained))
	}
	done := make(chan error, 1)
	go func() { done <- l.wait() }()
	select {
	case err := <-done:
		t.Fatalf("Wait returned before the signal: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Wait after a signal: %v, want a clean stop", err)
	}
	if n := drained.Load(); n != 3 {
		t.Errorf("%d of 3 loops drained before Wait returned", n)
	}
	select {
	case err := <-l.Failed():
		t.Errorf("a clean stop reported a failure: %v", err)
	default:
	}
}

// A loop that fails stops the others and is reported with its name; so
// is one that returns nil while the service runs: it stopped too early.
func TestLoopsFailureStopsTheRest(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		loop func(context.Context) error
		want string
	}{
		{"error", func(context.Context) error { return boom }, "svc: writer: boom"},
		{"early nil", func(context.Context) error { return nil }, "svc: writer stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoops(context.Background(), "svc")
			var drained atomic.Int32
			l.Go("workers", drainer(&drained))
			l.Go("writer", tc.loop)
			select {
			case err := <-l.Failed():
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Failed: %v, want %q", err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no failure reported")
			}
			if err := l.wait(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Wait: %v, want %q", err, tc.want)
			}
			if drained.Load() != 1 {
				t.Error("the other loop was not stopped and drained")
			}
		})
	}
}

// Stop without a signal stops every loop; a second Stop does not wait
// again (a deferred stop after an error path).
func TestLoopsStop(t *testing.T) {
	l := NewLoops(context.Background(), "svc")
	var drained atomic.Int32
	l.Go("a", drainer(&drained))
	l.Go("b", drainer(&drained))
	if err := l.Stop(); err != nil || drained.Load() != 2 {
		t.Errorf("Stop: %v, %d drained", err, drained.Load())
	}
	if err := l.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if l.Context().Err() == nil {
		t.Error("the group's context is still live after Stop")
	}
}

// wait is how a service ends its loops: when its context ends or a loop
// fails, every loop is stopped and the failures returned.
func (l *Loops) wait() error {
	<-l.ctx.Done() // a failing loop cancels it too; Stop reports its error
	return l.Stop()
}
