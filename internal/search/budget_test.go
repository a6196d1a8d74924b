package search

import (
	"context"
	"testing"
	"time"
)

// An anytime search spends the request's own budget, longer or shorter
// than its default window; under a host's ceiling alone, or no limit, it
// keeps the window.
func TestFast(t *testing.T) {
	const window = 300 * time.Millisecond
	now := time.Now()
	later, sooner := now.Add(5*time.Second), now.Add(50*time.Millisecond)
	for _, c := range []struct {
		name     string
		in       Budget
		deadline time.Time // zero: none
		windowed bool      // the deadline is about now + window
	}{
		{"no limit", Budget{}, time.Time{}, true},
		{"host ceiling beyond the window", Budget{Deadline: later, MaxNodes: 1e9, Origin: OriginCeiling}, time.Time{}, true},
		{"host ceiling within the window", Budget{Deadline: sooner, Origin: OriginCeiling}, sooner, false},
		{"default beyond the window", Budget{Deadline: later, Origin: OriginDefault}, time.Time{}, true},
		{"chosen, longer", Budget{Deadline: later, Origin: OriginChosen}, later, false},
		{"chosen, shorter", Budget{Deadline: sooner, Origin: OriginChosen}, sooner, false},
		{"chosen nodes, no clock", Budget{MaxNodes: 1e9, Origin: OriginChosen}, time.Time{}, false},
		{"chosen without a limit", Budget{Origin: OriginChosen}, time.Time{}, true},
	} {
		got := c.in.Fast(window)
		if got.MaxNodes != c.in.MaxNodes {
			t.Errorf("%s: MaxNodes %d, want %d", c.name, got.MaxNodes, c.in.MaxNodes)
		}
		switch {
		case c.windowed:
			if got.Deadline.IsZero() || got.Deadline.Before(now.Add(window)) || got.Deadline.After(time.Now().Add(window)) {
				t.Errorf("%s: deadline %v from now, want the window", c.name, got.Deadline.Sub(now))
			}
		case !got.Deadline.Equal(c.deadline):
			t.Errorf("%s: deadline %v, want %v", c.name, got.Deadline, c.deadline)
		}
	}
}

// Grant is the one place a budget is defaulted and capped: request ×
// default × host ceiling × mode → the limits and their origin, and
// whether fast mode then searches on for its window or spends the grant.
func TestGrant(t *testing.T) {
	const (
		def    = 10 * time.Second
		window = 300 * time.Millisecond
	)
	none := Budget{}
	host := Budget{MaxNodes: 100, Timeout: time.Second}
	for _, c := range []struct {
		name      string
		req       Budget
		def       time.Duration
		host      Budget
		nodes     int64
		timeout   time.Duration
		origin    Origin
		fastSpend bool // fast mode spends the grant instead of its window
	}{
		{"nothing named: the default", none, def, none, 0, def, OriginDefault, false},
		{"nothing named, no default: no limit", none, 0, none, 0, 0, OriginDefault, false},
		{"a timeout", Budget{Timeout: time.Minute}, def, none, 0, time.Minute, OriginChosen, true},
		{"a shorter timeout than the default", Budget{Timeout: time.Millisecond}, def, none, 0, time.Millisecond, OriginChosen, true},
		{"nodes only: the default time too", Budget{MaxNodes: 1000}, def, none, 1000, def, OriginChosen, true},
		{"both", Budget{MaxNodes: 5, Timeout: time.Millisecond}, def, none, 5, time.Millisecond, OriginChosen, true},
		{"nothing named, host caps the default", none, def, host, 100, time.Second, OriginCeiling, false},
		{"nothing named, host caps nodes only", none, def, Budget{MaxNodes: 7}, 7, def, OriginCeiling, false},
		{"nothing named, default below the host", none, def, Budget{Timeout: time.Minute}, 0, def, OriginDefault, false},
		{"nothing named, no default, host only", none, 0, host, 100, time.Second, OriginCeiling, false},
		{"chosen above the host: capped, still chosen", Budget{MaxNodes: 1000, Timeout: time.Minute}, def, host, 100, time.Second, OriginChosen, true},
		{"chosen timeout, host caps nodes", Budget{Timeout: time.Minute}, def, host, 100, time.Second, OriginChosen, true},
		{"chosen nodes, host caps the default time", Budget{MaxNodes: 5}, def, host, 5, time.Second, OriginChosen, true},
		{"chosen under the host", Budget{MaxNodes: 5, Timeout: time.Millisecond}, def, host, 5, time.Millisecond, OriginChosen, true},
		{"a request's origin is not taken on trust", Budget{Timeout: time.Minute, Origin: OriginCeiling}, def, none, 0, time.Minute, OriginChosen, true},
	} {
		got := Grant(c.req, c.def, c.host)
		if got.MaxNodes != c.nodes || got.Timeout != c.timeout || got.Origin != c.origin || !got.Deadline.IsZero() || got.Ctx != nil {
			t.Errorf("%s: granted %d nodes, %v, %v; want %d, %v, %v", c.name, got.MaxNodes, got.Timeout, got.Origin, c.nodes, c.timeout, c.origin)
			continue
		}
		for _, fast := range []bool{false, true} {
			start := time.Now()
			run := got.Start(context.Background())
			if run.Ctx == nil || c.timeout > 0 && (run.Deadline.Before(start.Add(c.timeout)) || run.Deadline.After(time.Now().Add(c.timeout))) ||
				c.timeout == 0 && !run.Deadline.IsZero() {
				t.Errorf("%s: started with deadline %v from now, want %v", c.name, run.Deadline.Sub(start), c.timeout)
			}
			if !fast {
				continue
			}
			// Fast mode (Budget.Fast, as the anytime searches call it).
			f := run.Fast(window)
			switch {
			case c.fastSpend && !f.Deadline.Equal(run.Deadline):
				t.Errorf("%s: fast mode did not spend the grant: deadline %v from now, want %v", c.name, f.Deadline.Sub(start), c.timeout)
			case !c.fastSpend && (f.Deadline.IsZero() || f.Deadline.After(time.Now().Add(window))):
				t.Errorf("%s: fast mode did not keep its window: deadline %v from now", c.name, f.Deadline.Sub(start))
			}
		}
	}
}
