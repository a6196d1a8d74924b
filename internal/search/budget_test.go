package search

import (
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
		{"host ceiling beyond the window", Budget{Deadline: later, MaxNodes: 1e9}, time.Time{}, true},
		{"host ceiling within the window", Budget{Deadline: sooner}, sooner, false},
		{"chosen, longer", Budget{Deadline: later, Chosen: true}, later, false},
		{"chosen, shorter", Budget{Deadline: sooner, Chosen: true}, sooner, false},
		{"chosen nodes, no clock", Budget{MaxNodes: 1e9, Chosen: true}, time.Time{}, false},
		{"chosen without a limit", Budget{Chosen: true}, time.Time{}, true},
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
