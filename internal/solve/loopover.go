package solve

import (
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// newLoopover is loopover.Algorithm for the boards that neither a
// distance table nor the two-phase solver serves, with the optimal search
// of spec where it pays: walking
// distance where its tables fit (4×4, 3×5, 12-cell boards without their
// table file), the displacement bound on 5×5 (budgeted: states of up to
// about 18 moves in seconds). Other boards stay constructive: an optimal
// search there would only run out of budget.
func newLoopover(spec puzzle.Spec) (search.Algorithm, error) {
	_, e1 := loopover.WDSize(spec.Rows, spec.Cols)
	_, e2 := loopover.WDSize(spec.Cols, spec.Rows)
	if e1 != nil || e2 != nil {
		if spec.Rows != 5 || spec.Cols != 5 {
			return loopover.NewAlgorithm(nil), nil
		}
	}
	s, err := loopover.NewOptimal(spec.Rows, spec.Cols)
	if err != nil {
		// No optimal search for this shape: every board still gets the
		// constructive answer.
		return loopover.NewAlgorithm(nil), nil
	}
	s.Prepare()
	return loopover.NewAlgorithm(s), nil
}
