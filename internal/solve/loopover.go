package solve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tessera-solver/tessera/internal/result"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/construct"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// bfsMaxLoopoverCells: Loopover boards up to 2×5 (10! states) build their
// distance table in memory in well under a second; 12-cell boards need a
// 240 MB table built on purpose (`solverd tables build loopover-3x4-bfs`).
const bfsMaxLoopoverCells = 10

// loopoverIDA is a lazily built optimal solver for one board shape; nil
// when its walking-distance tables are too large to build in memory.
type loopoverIDA struct {
	once sync.Once
	s    loopover.Optimal
}

// loopover picks the solver of a Loopover board, best first:
//   - a full distance table (built in memory up to 10 cells; a loaded
//     table file for 12, in either orientation): optimal by descent;
//   - 5×5 in fast mode: the two-phase solver for up to 300 ms;
//   - optimal IDA* with walking distance where its tables fit (4×4, 3×5,
//     and 12-cell boards without their table file), else the enhanced
//     Manhattan distance (5×5, 4×5, 3×6), under the budget; in fast mode
//     for at most a second, then the constructive answer;
//   - otherwise the constructive solver, whose answers are not proved
//     optimal but never refused for the board's size.
func (s *Solver) loopover(ctx context.Context, st puzzle.State, opt Options, r *result.Result) ([]puzzle.Move, error) {
	spec := st.Spec
	if spec.Cells() <= bfsMaxLoopoverCells {
		return s.byTable(st, r)
	}
	if t, transposed := s.fullTable(spec); t != nil {
		cells := st.Cells
		if transposed {
			cells = loopover.Transpose(spec.Rows, spec.Cols, cells)
		}
		moves, err := t.Solve(cells)
		if err != nil {
			return nil, err
		}
		if transposed {
			moves = loopover.TransposeMoves(moves)
		}
		r.Solver, r.Optimal, r.Nodes, r.LowerBound = "bfs-table", true, int64(len(moves)), len(moves)
		return moves, nil
	}
	if opt.Mode == result.ModeFast && spec.Rows == 5 && spec.Cols == 5 {
		return s.twoPhase(ctx, st, opt, r)
	}
	lower := loopover.ShiftBound(spec.Rows, spec.Cols, st.Cells)
	var nodes int64
	if ida := s.loopoverSolver(spec); ida != nil {
		b := budgetOf(ctx, opt)
		if opt.Mode == result.ModeFast {
			b = capped(b, fastWindow)
		}
		out, err := ida.Solve(st.Cells, b)
		r.Solver, r.Nodes, r.LowerBound, r.Optimal = ida.Name(), out.Nodes, out.LowerBound, out.Optimal
		if err == nil {
			return ida.Moves(out.Path), nil
		}
		if !errors.Is(err, search.ErrBudgetExceeded) || opt.Mode != result.ModeFast {
			return nil, err
		}
		// Fast mode: the constructive answer, with the bound the search proved.
		lower, nodes = max(lower, out.LowerBound), out.Nodes
	}
	moves, err := construct.Solve(spec.Rows, spec.Cols, st.Cells)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	r.Solver, r.Nodes, r.LowerBound = "loopover-construct", nodes, lower
	// A constructive answer as short as a proved bound is optimal too.
	r.Optimal = len(moves) == lower
	return moves, nil
}

// fullTable is the loaded distance table of spec or of its transpose.
func (s *Solver) fullTable(spec puzzle.Spec) (t *fulltable.Table, transposed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.full[spec]; t != nil {
		return t, false
	}
	tr := puzzle.Spec{Kind: spec.Kind, Rows: spec.Cols, Cols: spec.Rows}
	return s.full[tr], s.full[tr] != nil
}

// UseFull makes spec (and its transpose) answer from a distance table over
// every state, loaded by the caller, which keeps it mapped while s is in use.
func (s *Solver) UseFull(spec puzzle.Spec, t *fulltable.Table) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.full[spec] = t
}

// loopoverSolver is the optimal solver of spec, built on first use (4×4
// in about a second with its pattern database, 3×5 and 2×6 in about half
// a second, 5×5 in milliseconds), or nil for boards left to the
// constructive solver.
func (s *Solver) loopoverSolver(spec puzzle.Spec) loopover.Optimal {
	s.mu.Lock()
	e, ok := s.lo[spec]
	if !ok {
		e = &loopoverIDA{}
		s.lo[spec] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		// Walking distance where it fits; 5×5 by the displacement bound
		// (budgeted: states of up to about 18 moves in seconds). Other
		// boards stay constructive: an optimal search there would only
		// run out of budget.
		_, e1 := loopover.WDSize(spec.Rows, spec.Cols)
		_, e2 := loopover.WDSize(spec.Cols, spec.Rows)
		if e1 == nil && e2 == nil || spec.Rows == 5 && spec.Cols == 5 {
			e.s, _ = loopover.NewOptimal(spec.Rows, spec.Cols)
			if e.s != nil {
				e.s.Prepare()
			}
		}
	})
	return e.s
}

// capped is b with its deadline at most d from now.
func capped(b search.Budget, d time.Duration) search.Budget {
	if until := time.Now().Add(d); b.Deadline.IsZero() || until.Before(b.Deadline) {
		b.Deadline = until
	}
	return b
}

// budgetOf is the search budget of one solve.
func budgetOf(ctx context.Context, opt Options) search.Budget {
	b := search.Budget{MaxNodes: opt.MaxNodes, Ctx: ctx}
	if opt.Timeout > 0 {
		b.Deadline = time.Now().Add(opt.Timeout)
	}
	return b
}

// twoPhase answers a 5×5 board in fast mode: the best combination of a
// 3×3-block phase and a finishing phase found within 300 ms (less when the
// job's budget is tighter), over the loaded phase-1 table when there is
// one.
func (s *Solver) twoPhase(ctx context.Context, st puzzle.State, opt Options, r *result.Result) ([]puzzle.Move, error) {
	tp, err := s.twoPhaseSolver()
	if err != nil {
		return nil, err
	}
	moves, lower, err := tp.Solve(st.Cells, capped(budgetOf(ctx, opt), twophase.DefaultTime))
	if err != nil {
		return nil, err
	}
	r.Solver, r.LowerBound = tp.Name(), lower
	r.Optimal = len(moves) == lower
	return moves, nil
}

// twoPhaseSolver is the loaded two-phase solver, or the one over small
// in-memory bounds (built on first use, about half a second).
func (s *Solver) twoPhaseSolver() (*twophase.Solver, error) {
	s.mu.Lock()
	tp := s.tp
	s.mu.Unlock()
	if tp != nil {
		return tp, nil
	}
	s.tpOnce.Do(func() { s.tpMem, s.tpErr = twophase.New(nil) })
	return s.tpMem, s.tpErr
}

// UseTwoPhase makes 5×5 fast solves use tp (over a phase-1 table loaded by
// the caller, which keeps it mapped while s is in use); nil stops that.
func (s *Solver) UseTwoPhase(tp *twophase.Solver) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tp = tp
}
