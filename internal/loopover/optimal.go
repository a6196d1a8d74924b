package loopover

import (
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// Optimal is an optimal IDA* solver for one board shape, as the solve
// facade uses it. Implementations are safe for concurrent use; each keeps
// its search concrete inside Solve, so the interface costs one call per
// solve, none per node.
type Optimal interface {
	// Prepare builds now any table the solver would otherwise build on its
	// first Solve. Optional.
	Prepare()
	// Solve searches from cells (1..n row-major) to the goal under the
	// budget: move codes for Moves, or search.ErrBudgetExceeded with the
	// lower bound proved so far.
	Solve(cells []uint8, b search.Budget) (search.Outcome, error)
	// Moves converts a path of move codes to puzzle moves.
	Moves(path []uint8) []puzzle.Move
	// Name describes the search and its bound, for a Result's solver field.
	Name() string
}

// Parallel is an Optimal search that can split its iterations over
// workers goroutines: the general one (3×5, 5×5, 12-cell boards without
// their table), the 4×4 and the 5×5 ones.
type Parallel interface {
	Optimal
	SolveParallel(cells []uint8, b search.Budget, workers int) (search.Outcome, error)
}

var _ Parallel = (*Solver)(nil)
