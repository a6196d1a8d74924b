// Package optimal chooses the optimal Loopover search for a board shape:
// the one place that does. It is pure: no I/O.
package optimal

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/ida44"
)

var _ loopover.Optimal = (*ida44.Solver)(nil)

// New is the optimal solver of rows×cols, strongest bound first:
//   - 4×4: ida44.Solver, walking distance maxed with a six-piece pattern
//     database (built by Prepare or the first Solve; the table sets
//     loopover-4x4-pdb7 and -pdb8 give ida44.NewWith a bigger one);
//   - boards whose two walking-distance tables fit in memory (the other
//     boards up to 2×6 and 3×5, and their transposes): loopover.Solver
//     with walking distance;
//   - otherwise where its tables fit (3×6, 4×5, 5×5 and transposes):
//     loopover.Solver with the enhanced Manhattan distance, weaker but
//     small (a process with the 5×5 walking-distance table file gets
//     ida55's search over it from the table catalogue instead);
//   - an error for the rest (2×7, 4×6 and larger).
//
// Which boards deserve an optimal search at all, given the budget, is
// their family's route (policy.Of).
func New(rows, cols int) (loopover.Optimal, error) {
	if rows == 4 && cols == 4 {
		s, err := ida44.New()
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	_, e1 := loopover.WDSize(rows, cols)
	_, e2 := loopover.WDSize(cols, rows)
	if e1 == nil && e2 == nil {
		s, err := loopover.NewWDSolver(rows, cols)
		if err != nil {
			return nil, err // not a nil *Solver in a non-nil interface
		}
		return s, nil
	}
	s, err := loopover.NewEMDSolver(rows, cols)
	if err != nil {
		wd := e1
		if wd == nil {
			wd = e2
		}
		return nil, fmt.Errorf("%w (and %v)", err, wd)
	}
	return s, nil
}
