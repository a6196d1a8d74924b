package loopover

import (
	"errors"
	"fmt"

	"github.com/tessera-solver/tessera/internal/loopover/construct"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// Algorithm answers Loopover boards with an optimal search where one is
// given, under the budget (in fast mode within the request's own budget,
// else FastNodes under search.FastCeiling; then the
// constructive answer), and otherwise
// with the constructive solver, whose answers are not proved optimal but
// never refused for the board's size.
type Algorithm struct {
	ida Optimal // nil: construction only
}

// FastNodes is the default work budget of the optimal search before a
// fast answer falls back to construction: about search.FastWindow of one
// core of the reference machine (docs/BENCHMARKS.md, "Fast mode by
// default: counted in nodes"), so the same board gets the same answer at
// any load.
const FastNodes = 3_500_000

// NewAlgorithm is the Algorithm over ida (nil: construction only).
func NewAlgorithm(ida Optimal) Algorithm { return Algorithm{ida: ida} }

func (l Algorithm) Answer(req search.Request) (search.Answer, error) {
	spec := req.State.Spec
	lower := ShiftBound(spec.Rows, spec.Cols, req.State.Cells)
	var nodes int64
	timed := false // the clock, not the node budget, ended the search
	if l.ida != nil {
		b := req.Budget
		if req.Mode == result.ModeFast {
			b = b.Fast(FastNodes)
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
		timed = b.TimeLimited(nodes)
	}
	moves, err := construct.Solve(spec.Rows, spec.Cols, req.State.Cells)
	if err != nil {
		return search.Answer{}, fmt.Errorf("%s: %w", spec, err)
	}
	name := "loopover-construct"
	if timed {
		name = search.TimeLimitedName(name)
	}
	// A constructive answer as short as a proved bound is optimal too.
	return search.Answer{Moves: moves, Solver: name, Nodes: nodes, LowerBound: lower, Optimal: len(moves) == lower}, nil
}

func (l Algorithm) solve(cells []uint8, b search.Budget, threads int) (search.Outcome, error) {
	if p, ok := l.ida.(Parallel); ok && threads > 1 {
		return p.SolveParallel(cells, b, threads)
	}
	return l.ida.Solve(cells, b)
}
