// Package search holds the search algorithms: IDA* for optimal solving
// with incremental admissible heuristics, under budgets.
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
}

// Outcome is what a search proved.
type Outcome struct {
	Path       []uint8 // move codes, meaning defined by the searcher
	Nodes      int64
	LowerBound int  // no solution shorter than this exists
	Optimal    bool // Path is proved shortest
}

// checkEvery is how many nodes pass between clock and context checks: a
// time.Now per node would cost more than the node.
const checkEvery = 1 << 16

// budgetGate turns a Budget into a single per-node comparison: the search
// calls expired() only when nodes reach next.
type budgetGate struct {
	b    Budget
	next int64
	done bool
}

func newGate(b Budget) budgetGate {
	g := budgetGate{b: b}
	g.arm(0)
	if b.Ctx != nil || !b.Deadline.IsZero() {
		// Check at the first node: a cancelled or late request must not
		// be answered just because its search is small.
		g.next = 1
	}
	return g
}

// arm sets the next check. MaxNodes nodes may be expanded; the check
// fires on the one after them.
func (g *budgetGate) arm(nodes int64) {
	g.next = nodes + checkEvery
	if g.b.MaxNodes > 0 && g.b.MaxNodes+1 < g.next {
		g.next = g.b.MaxNodes + 1
	}
}

// expired is called when nodes ≥ next; it re-arms or reports exhaustion.
func (g *budgetGate) expired(nodes int64) bool {
	if g.done {
		return true
	}
	if g.b.MaxNodes > 0 && nodes > g.b.MaxNodes {
		g.done = true
		return true
	}
	if !g.b.Deadline.IsZero() && time.Now().After(g.b.Deadline) {
		g.done = true
		return true
	}
	if g.b.Ctx != nil && g.b.Ctx.Err() != nil {
		g.done = true
		return true
	}
	g.arm(nodes)
	return false
}
