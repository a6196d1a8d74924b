package cmdkit

import (
	"context"
	"errors"
	"fmt"
)

// Loops runs the loops of a service under one context with one stop: a
// signal (ctx's end) or Stop cancels them all, and Stop waits for every
// one to drain and return. A loop that returns while the others run is a
// failure (Failed), whatever it returned: a service's loops run until
// told to stop, so the group stops with it.
type Loops struct {
	ctx    context.Context
	cancel context.CancelFunc
	name   string
	n      int
	done   chan error // one value per loop when it returns
	failed chan error // a loop that stopped early
}

// NewLoops starts an empty group under ctx; name prefixes its errors.
func NewLoops(ctx context.Context, name string) *Loops {
	ctx, cancel := context.WithCancel(ctx)
	return &Loops{ctx: ctx, cancel: cancel, name: name, done: make(chan error, 16), failed: make(chan error, 16)}
}

// Go starts f as the loop name.
func (l *Loops) Go(name string, f func(context.Context) error) {
	l.n++
	go func() {
		err := f(l.ctx)
		if err != nil {
			err = fmt.Errorf("%s: %s: %w", l.name, name, err)
		} else if l.ctx.Err() == nil {
			err = fmt.Errorf("%s: %s stopped", l.name, name)
		}
		if l.ctx.Err() == nil {
			select {
			case l.failed <- err:
			default: // one failure is enough to stop the group
			}
			l.cancel() // the others stop with it
		}
		l.done <- err
	}()
}

// Context is the group's context: it ends when the group is stopped or
// one of its loops fails, so work run beside the loops stops with them.
func (l *Loops) Context() context.Context { return l.ctx }

// Failed receives the error of a loop that stops before the group.
func (l *Loops) Failed() <-chan error { return l.failed }

// Stop cancels every loop, waits for each to return and joins their
// errors; a loop that ended by the cancellation is a clean stop. Loops
// started after Stop are not waited for.
func (l *Loops) Stop() error {
	l.cancel()
	var errs []error
	n := l.n
	l.n = 0
	for range n {
		if err := <-l.done; err != nil && !errors.Is(err, context.Canceled) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
