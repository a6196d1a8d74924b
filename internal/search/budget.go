// Package search holds what every search shares: the Budget it runs
// under, the Outcome it proves, the per-node budget Gate, and the IDA*
// driver (Deepen) with its parallel iteration (IterateParallel).
package search

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrBudgetExceeded is returned when a search runs out of nodes, time or is
// cancelled before proving an answer. The Outcome still carries the best
// lower bound proved and the nodes spent.
var ErrBudgetExceeded = errors.New("budget exceeded")

// Budget is one solve's budget from the flag or job that names it to the
// search's checkpoint: MaxNodes and Timeout (zero: no limit), where they
// came from (Origin), and once the solve starts (Start) its Deadline and
// context. It is the one form a budget takes below the wire: a job's
// max_nodes and timeout_ms are read into it once, at decode.
type Budget struct {
	MaxNodes int64
	// Timeout counts from the start of the solve; Start turns it into
	// Deadline, which is what the searches read (a budget never started
	// has no clock).
	Timeout time.Duration
	// Origin says whose decision the limits are (Grant sets it); an
	// anytime (fast-mode) search spends a chosen budget and keeps its
	// default window under any other (see Fast).
	Origin   Origin
	Deadline time.Time
	Ctx      context.Context
	// Progress, when set, receives the nodes expanded so far, added at
	// each checkpoint of every Gate under this budget (a parallel
	// search's workers too): what an observer reads while the search runs
	// (the registry of workers' "nodes so far"). It lags the search by up
	// to CheckEvery nodes per gate and is never read by the search.
	Progress *atomic.Int64
}

// Origin is whose decision a budget is. The zero value is OriginChosen:
// a budget written down by its caller (a test, a benchmark, a request) is
// that caller's own.
type Origin uint8

const (
	// OriginChosen: the request's own (a --timeout or --budget-nodes, a
	// job's max_nodes or timeout_ms), also when the host granted less.
	OriginChosen Origin = iota
	// OriginDefault: the request named none; the limit is its puzzle's
	// default (policy.DefaultTimeout).
	OriginDefault
	// OriginCeiling: the request named none, and the host's ceiling
	// (solver.max_nodes, solver.timeout) is below or beside the default.
	OriginCeiling
)

func (o Origin) String() string {
	switch o {
	case OriginChosen:
		return "chosen"
	case OriginDefault:
		return "default"
	case OriginCeiling:
		return "ceiling"
	}
	return fmt.Sprintf("Origin(%d)", uint8(o))
}

// Grant is the budget a host grants a request: the one place where a
// budget is defaulted and capped. req's non-zero limits are the request's
// own (OriginChosen), and a request that names nodes but no time still
// gets the default time, so that every solve ends. A request that names
// neither gets def (OriginDefault). Then each of host's non-zero limits
// caps the budget; a budget the request did not choose that the host
// lowers, or limits where it had no limit, is the host's (OriginCeiling),
// while a chosen budget stays chosen however much the host cuts it (the
// request asked to search long: fast mode spends what it is granted).
// def 0 means no default: with no request and no host limits the budget
// is unlimited.
func Grant(req Budget, def time.Duration, host Budget) Budget {
	b := Budget{MaxNodes: req.MaxNodes, Timeout: req.Timeout}
	if b.MaxNodes == 0 && b.Timeout == 0 {
		b.Origin = OriginDefault
	}
	if b.Timeout == 0 {
		b.Timeout = def
	}
	capped := false
	if host.MaxNodes > 0 && (b.MaxNodes == 0 || b.MaxNodes > host.MaxNodes) {
		b.MaxNodes, capped = host.MaxNodes, true
	}
	if host.Timeout > 0 && (b.Timeout == 0 || b.Timeout > host.Timeout) {
		b.Timeout, capped = host.Timeout, true
	}
	if capped && b.Origin == OriginDefault {
		b.Origin = OriginCeiling
	}
	return b
}

// Start is b armed at the start of a solve under ctx: its Timeout, if
// any, becomes a Deadline from now.
func (b Budget) Start(ctx context.Context) Budget {
	b.Ctx = ctx
	if b.Timeout > 0 {
		b.Deadline = time.Now().Add(b.Timeout)
	}
	return b
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
	return b.ExhaustedAt(nodes, time.Now()) || b.Ctx != nil && b.Ctx.Err() != nil
}

// ExhaustedAt reports whether nodes are more than MaxNodes or now is past
// the Deadline: Exhausted without the context, on a clock the caller
// reads (a split search's record, judged by whichever process holds it).
func (b Budget) ExhaustedAt(nodes int64, now time.Time) bool {
	return b.MaxNodes > 0 && nodes > b.MaxNodes || !b.Deadline.IsZero() && now.After(b.Deadline)
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

// Gate is the one per-node checkpoint of every search: the dfs loops
// count each node with Visit, which compares the count with the next
// checkpoint and only there looks at the budget (the clock, the context,
// MaxNodes, and for a worker of a parallel iteration the count over every
// worker and the others' news).
type Gate struct {
	Nodes int64 // nodes expanded
	// Stopped is set when the search must unwind: its budget ran out, or,
	// for a worker, another worker reached the goal or ran out (the dfs
	// loops set it too when a work item's claim says so).
	Stopped  bool
	next     int64 // Nodes at which the budget is looked at next
	b        Budget
	sh       *Shared // a parallel worker's: nil alone
	reported int64   // Nodes added to sh.Nodes so far
	shown    int64   // Nodes added to b.Progress so far
}

// NewGate is the gate of a search alone under b, armed for the first
// check.
func NewGate(b Budget) Gate {
	return Gate{b: b, next: b.FirstCheck(CheckEvery)}
}

// Worker is the gate of one goroutine of a parallel iteration over sh,
// under g's budget counted over every worker: its own count from zero,
// and a look at the shared flags at once.
func (g *Gate) Worker(sh *Shared) Gate {
	return Gate{b: g.b, sh: sh, next: 1}
}

// Visit counts a node and reports whether the search must stop before
// expanding it; the node is then not counted and Stopped is set. Small
// enough to inline into the dfs loops.
func (g *Gate) Visit() bool {
	g.Nodes++
	return g.Nodes >= g.next && g.expired()
}

// expired is Visit's slow path, kept out of line so that Visit inlines.
// MaxNodes nodes may be expanded; the check fires on the one after them.
//
//go:noinline
func (g *Gate) expired() bool {
	if p := g.b.Progress; p != nil {
		p.Add(g.Nodes - g.shown)
		g.shown = g.Nodes
	}
	var out bool
	if g.sh != nil {
		out = g.sh.Report(g.b, g.Nodes, &g.reported)
	} else {
		out = g.b.Exhausted(g.Nodes)
	}
	if !out {
		g.next = g.b.NextCheck(g.Nodes, CheckEvery)
		return false
	}
	g.Nodes--
	g.Stopped = true
	return true
}

// ErrNoSolution means the search space was exhausted: the state cannot reach
// the goal (callers check solvability first, so this signals a bug or
// unchecked input).
var ErrNoSolution = errors.New("no solution exists")
