package search

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// An anytime search spends the request's own budget, longer or shorter
// than its default; under a default, a host's ceiling alone, or no limit,
// it gets its default nodes (or the host's fewer) and the time ceiling
// (or the host's earlier deadline).
func TestFast(t *testing.T) {
	const nodes = 1000
	ceiling := FastCeiling
	now := time.Now()
	later, sooner := now.Add(5*time.Minute), now.Add(50*time.Millisecond)
	for _, c := range []struct {
		name      string
		in        Budget
		maxNodes  int64
		deadline  time.Time // zero: none
		ceilinged bool      // the deadline is about now + ceiling
	}{
		{"no limit", Budget{}, nodes, time.Time{}, true},
		{"host ceiling beyond the default", Budget{Deadline: later, MaxNodes: 1e9, Origin: OriginCeiling}, nodes, time.Time{}, true},
		{"host ceiling within the default", Budget{Deadline: sooner, MaxNodes: 10, Origin: OriginCeiling}, 10, sooner, false},
		{"default beyond the ceiling", Budget{Deadline: later, Origin: OriginDefault}, nodes, time.Time{}, true},
		{"default within the ceiling", Budget{Deadline: sooner, Origin: OriginDefault}, nodes, sooner, false},
		{"chosen, longer", Budget{Deadline: later, Origin: OriginChosen}, 0, later, false},
		{"chosen, shorter", Budget{Deadline: sooner, Origin: OriginChosen}, 0, sooner, false},
		{"chosen nodes, no clock", Budget{MaxNodes: 1e9, Origin: OriginChosen}, 1e9, time.Time{}, false},
		{"chosen without a limit", Budget{Origin: OriginChosen}, nodes, time.Time{}, true},
	} {
		got := c.in.Fast(nodes)
		if got.MaxNodes != c.maxNodes {
			t.Errorf("%s: MaxNodes %d, want %d", c.name, got.MaxNodes, c.maxNodes)
		}
		switch {
		case c.ceilinged:
			if got.Deadline.IsZero() || got.Deadline.Before(now.Add(ceiling)) || got.Deadline.After(time.Now().Add(ceiling)) {
				t.Errorf("%s: deadline %v from now, want the ceiling %v", c.name, got.Deadline.Sub(now), ceiling)
			}
		case !got.Deadline.Equal(c.deadline):
			t.Errorf("%s: deadline %v, want %v", c.name, got.Deadline, c.deadline)
		}
	}
}

// TimeLimited tells a search the clock or context stopped from one its
// node budget stopped, which alone gives the same answer at any load.
func TestTimeLimited(t *testing.T) {
	past, future := time.Now().Add(-time.Second), time.Now().Add(time.Hour)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name  string
		b     Budget
		nodes int64
		want  bool
	}{
		{"node budget spent, deadline passed too", Budget{MaxNodes: 100, Deadline: past}, 100, false},
		{"node budget spent", Budget{MaxNodes: 100, Deadline: future}, 100, false},
		{"deadline before the node budget", Budget{MaxNodes: 100, Deadline: past}, 99, true},
		{"deadline, no node budget", Budget{Deadline: past}, 5, true},
		{"cancelled before the node budget", Budget{MaxNodes: 100, Ctx: done}, 3, true},
		{"neither: stopped by nothing the clock decides", Budget{MaxNodes: 100, Deadline: future}, 3, false},
	} {
		if got := c.b.TimeLimited(c.nodes); got != c.want {
			t.Errorf("%s: TimeLimited(%d) = %v, want %v", c.name, c.nodes, got, c.want)
		}
	}
	if got := TimeLimitedName("x"); got == "x" {
		t.Errorf("TimeLimitedName does not mark the name: %q", got)
	}
}

// Grant is the one place a budget is defaulted and capped: request ×
// default × host ceiling × mode → the limits and their origin, and
// whether fast mode then searches its default nodes or spends the grant.
func TestGrant(t *testing.T) {
	const def = 10 * time.Second
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
		fastSpend bool // fast mode spends the grant instead of its default nodes
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
			const fastNodes = 50
			f := run.Fast(fastNodes)
			wantNodes := int64(fastNodes) // the default, or the host's fewer
			if run.MaxNodes > 0 && run.MaxNodes < fastNodes {
				wantNodes = run.MaxNodes
			}
			switch {
			case c.fastSpend && (!f.Deadline.Equal(run.Deadline) || f.MaxNodes != run.MaxNodes):
				t.Errorf("%s: fast mode did not spend the grant: deadline %v from now, %d nodes; want %v, %d", c.name, f.Deadline.Sub(start), f.MaxNodes, c.timeout, run.MaxNodes)
			case !c.fastSpend && (f.MaxNodes != wantNodes || f.Deadline.IsZero() || f.Deadline.After(time.Now().Add(FastCeiling))):
				t.Errorf("%s: fast mode did not keep its default: %d nodes, deadline %v from now", c.name, f.MaxNodes, f.Deadline.Sub(start))
			}
		}
	}
}

// A budget's Progress receives the nodes of every gate under it at each
// checkpoint, a parallel iteration's workers included, and lags each gate
// by less than CheckEvery nodes.
func TestProgress(t *testing.T) {
	var p atomic.Int64
	b := Budget{Progress: &p}.Start(context.Background())
	g := NewGate(b)
	const alone = 5*CheckEvery + 17
	for range alone {
		if g.Visit() {
			t.Fatal("an unlimited gate stopped")
		}
	}
	if got := p.Load(); got > alone || got <= alone-CheckEvery {
		t.Fatalf("progress after %d nodes alone: %d", alone, got)
	}
	var sh Shared
	const each, workers = 3*CheckEvery + 5, 3
	var wg sync.WaitGroup
	for range workers {
		w := g.Worker(&sh)
		wg.Go(func() {
			for range each {
				w.Visit()
			}
		})
	}
	wg.Wait()
	want := int64(alone + workers*each)
	if got := p.Load(); got > want || got <= want-(workers+1)*CheckEvery {
		t.Fatalf("progress after %d nodes over %d workers and the gate alone: %d", want, workers, got)
	}
	// Without a Progress the gate counts as it always does.
	g2 := NewGate(Budget{})
	for range alone {
		g2.Visit()
	}
	if g2.Nodes != alone {
		t.Fatalf("nodes %d, want %d", g2.Nodes, alone)
	}
}

// ExhaustedAt is Exhausted's rule on the caller's clock: more than
// MaxNodes, or past the Deadline; no limit is never exhausted.
func TestExhaustedAt(t *testing.T) {
	now := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	b := Budget{MaxNodes: 100, Deadline: now}
	for _, c := range []struct {
		nodes int64
		at    time.Time
		want  bool
	}{{100, now, false}, {101, now, true}, {0, now.Add(time.Nanosecond), true}, {0, now.Add(-time.Hour), false}} {
		if got := b.ExhaustedAt(c.nodes, c.at); got != c.want {
			t.Errorf("%d nodes at %v: exhausted %v", c.nodes, c.at, got)
		}
	}
	if (Budget{}).ExhaustedAt(1<<62, now.Add(1000*time.Hour)) {
		t.Error("no limit exhausted")
	}
	if !(Budget{MaxNodes: 5}).Exhausted(6) || (Budget{MaxNodes: 5, Deadline: time.Now().Add(time.Hour)}).Exhausted(5) {
		t.Error("Exhausted disagrees with ExhaustedAt")
	}
}
