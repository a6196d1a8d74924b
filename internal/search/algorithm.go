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

// FastWindow is how long a fast-mode search keeps looking for shorter
// answers (counted from its start) before it settles, when the request
// chose no budget of its own (see Budget.Fast): the 24-puzzle's
// fast answers come in well under a second, and 50 ms under a second
// leaves room for the budget checks and the replay, so a solve stays
// within a second.
const FastWindow = 950 * time.Millisecond

// Fast is the budget of an anytime search whose default window is d
// (search.FastWindow, the 5×5 two-phase solver's DefaultTime): b itself
// when the request chose a limit of its own (Origin), so that a user can
// trade time for shorter answers as well as the reverse; otherwise b with
// its deadline at most d from now (a default's or a host's limits still
// apply).
func (b Budget) Fast(d time.Duration) Budget {
	if b.Origin == OriginChosen && (b.MaxNodes > 0 || !b.Deadline.IsZero()) {
		return b
	}
	return b.Capped(d)
}

// Capped is b with its deadline at most d from now.
func (b Budget) Capped(d time.Duration) Budget {
	if until := time.Now().Add(d); b.Deadline.IsZero() || until.Before(b.Deadline) {
		b.Deadline = until
	}
	return b
}
