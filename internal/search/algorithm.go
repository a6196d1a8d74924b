package search

import (
	"time"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
)

// Request is one solve as an algorithm sees it. The facade (internal/solve)
// has already checked that State is well formed and can reach Goal.
type Request struct {
	State puzzle.State
	// Goal is State.Goal() unless a swap job named another target.
	Goal   puzzle.State
	Mode   result.Mode
	Budget Budget
	// Threads is how many goroutines one search may use (≤ 1: one).
	Threads int
}

// Answer is what an algorithm found and proved. With ErrBudgetExceeded it
// still carries the nodes spent and the lower bound proved.
type Answer struct {
	Moves      []puzzle.Move
	Optimal    bool // Moves is proved shortest
	LowerBound int  // no solution is shorter
	Nodes      int64
	Solver     string // reported in results, e.g. "ida*(pdb-7-8+reflect)"
}

// Algorithm answers requests for the puzzle shapes it was built for. Every
// solving method (distance-table descent, IDA* over each heuristic,
// two-phase, matching, construction) implements it, and the registry of
// internal/solve picks one per puzzle and mode.
type Algorithm interface {
	Answer(req Request) (Answer, error)
}

// FastWindow is about how long a fast-mode search keeps looking for
// shorter answers when the request chose no budget of its own: the
// window the default work budgets (pdb.FastNodes, loopover.FastNodes)
// were calibrated to on one core, and the unit of the time ceiling
// (FastCeiling). The 24-puzzle's fast answers come in well under a second.
const FastWindow = 950 * time.Millisecond

// FastCeiling is the time ceiling of a fast search under a default
// budget: a safety net for a pathologically slow or overloaded host, ten
// of the longest default window, far enough above every default node
// budget (300 ms to a second of one core) that it never decides an answer
// on a normal host, even at a load of several processes per core.
const FastCeiling = 10 * FastWindow

// Fast is the budget of an anytime search whose default is nodes of work:
// b itself when the request chose a limit of its own (Origin), so that a
// user can trade time (--timeout) or nodes (--budget-nodes) for shorter
// answers as well as the reverse; otherwise at most nodes (a host's lower
// max_nodes still applies) and a deadline at most FastCeiling from now (a
// default's or a host's earlier deadline still applies). The node budget,
// not the clock, then ends the search on any normal host, so its answer
// does not depend on the load; TimeLimited tells when the clock ended it
// instead.
func (b Budget) Fast(nodes int64) Budget {
	if b.Origin == OriginChosen && (b.MaxNodes > 0 || !b.Deadline.IsZero()) {
		return b
	}
	if b.MaxNodes == 0 || b.MaxNodes > nodes {
		b.MaxNodes = nodes
	}
	return b.Capped(FastCeiling)
}

// Capped is b with its deadline at most d from now.
func (b Budget) Capped(d time.Duration) Budget {
	if until := time.Now().Add(d); b.Deadline.IsZero() || until.Before(b.Deadline) {
		b.Deadline = until
	}
	return b
}

// TimeLimited reports whether an anytime search under b that stopped
// early after nodes was stopped by its clock or context rather than its
// node budget: then its answer depends on the host's speed, and the
// algorithm says so in the answer's Solver (TimeLimitedName). A search
// stopped by its node budget has spent at least MaxNodes.
func (b Budget) TimeLimited(nodes int64) bool {
	if b.MaxNodes > 0 && nodes >= b.MaxNodes {
		return false
	}
	return !b.Deadline.IsZero() && !time.Now().Before(b.Deadline) || b.Ctx != nil && b.Ctx.Err() != nil
}

// TimeLimitedName is the solver name of an answer whose search the clock
// (a --timeout, a host's solver.timeout or the fast modes' time ceiling)
// ended before its node budget: the row stays solved, and the name tells
// that the answer depends on the host's speed and load.
func TimeLimitedName(name string) string { return name + " (time limit)" }
