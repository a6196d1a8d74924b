// Package solve is the single entry point for solving: it picks the
// algorithm per puzzle and mode from a registry built at start, replays
// every answer against the input before returning it, and fills in the
// result.Result of the design contract.
package solve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// Options bound one solve. Zero values mean "no limit".
type Options struct {
	Mode result.Mode
	// Budget is the solve's budget (zero fields: no limit), as
	// search.Grant made it for a request; it starts when the solve does.
	// In fast mode a chosen budget is what the anytime search spends,
	// longer or shorter than its default, which applies under a default
	// or a host's ceiling (Budget.Origin, Budget.Fast): a node count
	// (sized to about search.FastWindow of one core), so that answers do not depend on the load.
	Budget search.Budget
	// Goal replaces the standard goal of a swap board (same shape, same
	// number of ones); other puzzles ignore it.
	Goal *puzzle.State
	// Threads is how many goroutines one IDA* search (sliding boards over
	// pattern databases or walking distance; Loopover 3×5, 5×5 and 12-cell
	// boards without their table; not the 4×4 Loopover solver) may use (0
	// or 1: one). It pays for single
	// hard solves such as a hard 15-puzzle or the 24-puzzle; a batch is
	// better spread over states.
	Threads int
}

// Solver solves over the algorithms of its registry. It is safe for
// concurrent use.
type Solver struct {
	reg *Registry
}

// New is a Solver over reg.
func New(reg *Registry) *Solver { return &Solver{reg: reg} }

// SolveText parses text as a state of spec and solves it. Input errors
// become a Result with status invalid or unsolvable and the reason in
// Error; it never panics on bad input.
func (s *Solver) SolveText(ctx context.Context, spec puzzle.Spec, text string, opt Options) result.Result {
	st, err := puzzle.Parse(spec, text)
	if err != nil {
		return Rejected(spec, text, err)
	}
	return s.solve(ctx, st, opt)
}

// Rejected is the Result for input that could not be solved because it is
// malformed or unsolvable.
func Rejected(spec puzzle.Spec, text string, err error) result.Result {
	r := result.Result{Puzzle: spec.String(), State: text, Status: result.StatusInvalid, Error: err.Error()}
	if errors.Is(err, puzzle.ErrUnsolvable) {
		r.Status = result.StatusUnsolvable
	}
	return r
}

// Solve solves a parsed state. The returned moves have been replayed
// against st; an answer that fails the replay is reported as failed, never
// as solved.
func (s *Solver) Solve(ctx context.Context, st puzzle.State, opt Options) result.Result {
	// Searches assume a solvable, well-formed board (IDA* on an unsolvable
	// one never ends): check states that did not come through Parse.
	if err := puzzle.Solvable(st); err != nil {
		return Rejected(st.Spec, st.String(), err)
	}
	return s.solve(ctx, st, opt)
}

// solve solves a state known to be well formed and solvable.
func (s *Solver) solve(ctx context.Context, st puzzle.State, opt Options) result.Result {
	start := time.Now()
	r := result.Result{Puzzle: st.Spec.String(), State: st.String()}
	goal := st.Goal()
	if opt.Goal != nil {
		if err := puzzle.CheckGoal(st, *opt.Goal); err != nil {
			r.Status, r.Error = result.StatusInvalid, err.Error()
			return r
		}
		goal = *opt.Goal
	}
	a, err := s.answer(ctx, st, goal, opt)
	r.Solver, r.Nodes, r.LowerBound, r.Optimal = a.Solver, a.Nodes, a.LowerBound, a.Optimal
	r.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	switch {
	case errors.Is(err, search.ErrBudgetExceeded):
		r.Status, r.Optimal = result.StatusBudgetExceeded, false
		r.Error = fmt.Sprintf("%v after %d nodes; the optimal length is at least %d", err, r.Nodes, r.LowerBound)
		return r
	case errors.Is(err, puzzle.ErrUnsolvable):
		r.Status, r.Error = result.StatusUnsolvable, err.Error()
		return r
	case errors.Is(err, puzzle.ErrMalformed):
		r.Status, r.Error = result.StatusInvalid, err.Error()
		return r
	case err != nil:
		r.Status, r.Error = result.StatusFailed, err.Error()
		return r
	}
	// The answer is replayed as a move list; only a verified one is
	// formatted, once.
	if err := puzzle.VerifyMoves(st, a.Moves, goal); err != nil {
		// A solver bug: never hand out an answer that does not replay.
		return result.Result{Puzzle: r.Puzzle, State: r.State, Status: result.StatusFailed, Nodes: r.Nodes, ElapsedMS: r.ElapsedMS,
			Solver: r.Solver, Error: fmt.Sprintf("internal error: %s answer failed verification: %v", r.Solver, err)}
	}
	r.Moves = puzzle.FormatMoves(st.Spec, a.Moves)
	r.Length = len(a.Moves)
	r.Status = result.StatusSolved
	if r.Optimal {
		r.LowerBound = r.Length
	}
	return r
}

// answer asks the registry's algorithm for st.
func (s *Solver) answer(ctx context.Context, st, goal puzzle.State, opt Options) (search.Answer, error) {
	if err := ctx.Err(); err != nil {
		return search.Answer{}, fmt.Errorf("%w: %v", search.ErrBudgetExceeded, err)
	}
	mode := opt.Mode
	if mode == "" {
		mode = result.ModeOptimal
	}
	alg, err := s.reg.Pick(st.Spec, mode)
	if err != nil {
		return search.Answer{}, err
	}
	req := search.Request{State: st, Goal: goal, Mode: mode, Threads: opt.Threads, Budget: opt.Budget.Start(ctx)}
	return alg.Answer(req)
}
