package swap

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/search"
)

// MaxMoves caps the move list of one answer: a random 1000×1000 board
// needs about 125 M swaps, a gigabyte move string no consumer wants.
// Larger answers report their exact length as the lower bound instead.
const MaxMoves = 5_000_000

// checkCells is the board size from which the distance is computed
// before the move list, to refuse oversized answers cheaply.
const checkCells = 100 * 100

// Matching answers swap boards exactly: min-cost matching for the
// distance, the relabelling construction for a move list of that length.
type Matching struct{}

// Answer is the proved-minimal move list from req.State to req.Goal.
func (Matching) Answer(req search.Request) (search.Answer, error) {
	a := search.Answer{Solver: "matching"}
	sp := req.State.Spec
	if sp.Cells() >= checkCells {
		d, err := Distance(sp.Rows, sp.Cols, req.State.Cells, req.Goal.Cells)
		if err != nil {
			return a, err
		}
		if d > MaxMoves {
			a.LowerBound = d
			return a, fmt.Errorf("%w: the answer has exactly %d swaps, more than the %d a move list may hold",
				search.ErrBudgetExceeded, d, MaxMoves)
		}
	}
	moves, err := Solve(sp.Rows, sp.Cols, req.State.Cells, req.Goal.Cells)
	if err != nil {
		return a, err
	}
	a.Moves, a.Optimal, a.LowerBound = moves, true, len(moves)
	return a, nil
}
