package solve

import (
	"errors"
	"fmt"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/construct"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// loopoverAlg answers the Loopover boards that neither a distance table
// nor the two-phase solver serves: optimal IDA* where its bound fits,
// under the budget (in fast mode within the request's own budget, else
// search.FastWindow; then the constructive answer); otherwise the constructive solver, whose answers
// are not proved optimal but never refused for the board's size.
type loopoverAlg struct {
	ida loopover.Optimal // nil: construction only
}

// newLoopover prepares the optimal search of spec where it pays: walking
// distance where its tables fit (4×4, 3×5, 12-cell boards without their
// table file), the displacement bound on 5×5 (budgeted: states of up to
// about 18 moves in seconds). Other boards stay constructive: an optimal
// search there would only run out of budget.
func newLoopover(spec puzzle.Spec) (search.Algorithm, error) {
	_, e1 := loopover.WDSize(spec.Rows, spec.Cols)
	_, e2 := loopover.WDSize(spec.Cols, spec.Rows)
	if e1 != nil || e2 != nil {
		if spec.Rows != 5 || spec.Cols != 5 {
			return loopoverAlg{}, nil
		}
	}
	s, err := loopover.NewOptimal(spec.Rows, spec.Cols)
	if err != nil {
		// No optimal search for this shape: every board still gets the
		// constructive answer.
		return loopoverAlg{}, nil
	}
	s.Prepare()
	return loopoverAlg{ida: s}, nil
}

func (l loopoverAlg) Answer(req search.Request) (search.Answer, error) {
	spec := req.State.Spec
	lower := loopover.ShiftBound(spec.Rows, spec.Cols, req.State.Cells)
	var nodes int64
	if l.ida != nil {
		b := req.Budget
		if req.Mode == result.ModeFast {
			b = b.Fast(search.FastWindow)
		}
		out, err := l.solve(req.State.Cells, b, req.Threads)
		a := search.Answer{Solver: l.ida.Name(), Nodes: out.Nodes, LowerBound: out.LowerBound, Optimal: out.Optimal}
		if err == nil {
			a.Moves = l.ida.Moves(out.Path)
			return a, nil
		}
		if !errors.Is(err, search.ErrBudgetExceeded) || req.Mode != result.ModeFast {
			return a, err
		}
		// Fast mode: the constructive answer, with the bound the search proved.
		lower, nodes = max(lower, out.LowerBound), out.Nodes
	}
	moves, err := construct.Solve(spec.Rows, spec.Cols, req.State.Cells)
	if err != nil {
		return search.Answer{}, fmt.Errorf("%s: %w", spec, err)
	}
	// A constructive answer as short as a proved bound is optimal too.
	return search.Answer{Moves: moves, Solver: "loopover-construct", Nodes: nodes, LowerBound: lower, Optimal: len(moves) == lower}, nil
}

// parallelSearch is an optimal Loopover search that can split its
// iterations over threads: the general walking-distance or displacement
// search (3×5, 5×5, 12-cell boards without their table). The 4×4 solver
// searches alone.
type parallelSearch interface {
	SolveParallel(cells []uint8, b search.Budget, workers int) (search.Outcome, error)
}

func (l loopoverAlg) solve(cells []uint8, b search.Budget, threads int) (search.Outcome, error) {
	if p, ok := l.ida.(parallelSearch); ok && threads > 1 {
		return p.SolveParallel(cells, b, threads)
	}
	return l.ida.Solve(cells, b)
}
