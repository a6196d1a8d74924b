package solve

import (
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/optimal"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// newLoopover is loopover.Algorithm over the optimal search of a board
// its family routes to one (policy.RouteSearch): walking distance where
// its tables fit (4×4 also its pattern database, 3×5, 12-cell boards
// without their table file), the displacement bound on 5×5 (budgeted).
// In fast mode the algorithm falls back to the constructive answer.
func newLoopover(spec puzzle.Spec) (search.Algorithm, error) {
	s, err := optimal.New(spec.Rows, spec.Cols)
	if err != nil {
		// No optimal search for this shape (TestLoopoverRoutes says the
		// family routes none such here): the constructive answer still.
		return loopover.NewAlgorithm(nil), nil
	}
	s.Prepare()
	return loopover.NewAlgorithm(s), nil
}
