// Package search holds what every search shares: the Budget it runs
// under, the Outcome it proves and the per-node budget Gate.
package search

import (
	"context"
	"errors"
	"time"
)

// ErrBudgetExceeded is returned when a search runs out of nodes, time or is
// cancelled before proving an answer. The Outcome still carries the best
// lower bound proved and the nodes spent.
var ErrBudgetExceeded = errors.New("budget exceeded")

// Budget bounds one search. Zero fields mean no limit.
type Budget struct {
	MaxNodes int64
	Deadline time.Time
	Ctx      context.Context
	// Chosen reports that MaxNodes or Deadline is the request's own
	// budget (a user's --budget-nodes or --timeout, a job's budget), not
	// only a ceiling a host puts on every request. An anytime (fast-mode)
	// search spends a chosen budget, longer or shorter than its default
	// window; under a mere ceiling it keeps the window (see Fast).
	Chosen bool
}

// Outcome is what a search proved.
type Outcome struct {
	Path       []uint8 // move codes, meaning defined by the searcher
	Nodes      int64
	LowerBound int  // no solution shorter than this exists
	Optimal    bool // Path is proved shortest
}

// CheckEvery is how many nodes pass between clock and context checks: a
// time.Now per node would cost more than the node.
const CheckEvery = 1 << 16

// Exhausted reports whether a search that has expanded nodes must stop:
// more than MaxNodes, past the Deadline, or its context done. It reads the
// clock, so searches call it every few thousand nodes (see NextCheck).
func (b Budget) Exhausted(nodes int64) bool {
	return b.MaxNodes > 0 && nodes > b.MaxNodes ||
		!b.Deadline.IsZero() && time.Now().After(b.Deadline) ||
		b.Ctx != nil && b.Ctx.Err() != nil
}

// NextCheck is the node count at which a search that has expanded nodes
// calls Exhausted again: every nodes on, and no later than the node past
// MaxNodes.
func (b Budget) NextCheck(nodes, every int64) int64 {
	next := nodes + every
	if b.MaxNodes > 0 && b.MaxNodes+1 < next {
		next = b.MaxNodes + 1
	}
	return next
}

// FirstCheck is NextCheck at the start of a search, except that with a
// deadline or a context the first node checks: a cancelled or late request
// must not be answered just because its search is small.
func (b Budget) FirstCheck(every int64) int64 {
	if b.Ctx != nil || !b.Deadline.IsZero() {
		return 1
	}
	return b.NextCheck(0, every)
}

// Gate turns a Budget into a single per-node comparison: the search
// calls Expired only when its node count reaches Next.
type Gate struct {
	b    Budget
	Next int64
	done bool
}

// NewGate is the gate of b, armed for the first check.
func NewGate(b Budget) Gate {
	return Gate{b: b, Next: b.FirstCheck(CheckEvery)}
}

// arm sets the next check. MaxNodes nodes may be expanded; the check
// fires on the one after them.
func (g *Gate) arm(nodes int64) { g.Next = g.b.NextCheck(nodes, CheckEvery) }

// Expired is called when nodes ≥ Next; it re-arms or reports exhaustion.
func (g *Gate) Expired(nodes int64) bool {
	if g.done || g.b.Exhausted(nodes) {
		g.done = true
		return true
	}
	g.arm(nodes)
	return false
}

// ErrNoSolution means the search space was exhausted: the state cannot reach
// the goal (callers check solvability first, so this signals a bug or
// unchecked input).
var ErrNoSolution = errors.New("no solution exists")
