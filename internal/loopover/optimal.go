package loopover

import (
	"fmt"

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

var (
	_ Optimal = (*Solver)(nil)
	_ Optimal = (*Solver44)(nil)
)

// NewOptimal is the optimal solver of rows×cols, strongest bound first;
// the one place in the package that chooses by shape:
//   - 4×4: Solver44, walking distance maxed with a six-piece pattern
//     database (built by Prepare or the first Solve; the table sets
//     loopover-4x4-pdb7 and -pdb8 give NewSolver44With a bigger one);
//   - boards whose two walking-distance tables fit in memory (the other
//     boards up to 2×6 and 3×5, and their transposes): Solver with
//     walking distance;
//   - otherwise where its tables fit (3×6, 4×5, 5×5 and transposes):
//     Solver with the enhanced Manhattan distance, weaker but small (a
//     process with the 5×5 walking-distance table file gets
//     NewWDSolverWith over it from the table catalogue instead);
//   - an error for the rest (2×7, 4×6 and larger).
//
// Which boards deserve an optimal search at all, given the budget, is
// their family's choice (puzzle.Family.Route).
func NewOptimal(rows, cols int) (Optimal, error) {
	if rows == 4 && cols == 4 {
		s, err := NewSolver44()
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	_, e1 := WDSize(rows, cols)
	_, e2 := WDSize(cols, rows)
	if e1 == nil && e2 == nil {
		s, err := NewWDSolver(rows, cols)
		if err != nil {
			return nil, err // not a nil *Solver in a non-nil interface
		}
		return s, nil
	}
	s, err := NewEMDSolver(rows, cols)
	if err != nil {
		wd := e1
		if wd == nil {
			wd = e2
		}
		return nil, fmt.Errorf("%w (and %v)", err, wd)
	}
	return s, nil
}
