package twophase

import "github.com/tessera-solver/tessera/internal/search"

// Answer is the best two-phase answer to a 5×5 board found within the
// request's own budget when it chose one (a --timeout or --budget-nodes,
// longer or shorter than the default), else within DefaultTime under the
// host's ceilings (search.Budget.Fast). A node budget counts the nodes of
// both phases, those of the first answer included; the first answer is
// found whatever the budget (a few thousand nodes, milliseconds), so
// the answer never reports search.ErrBudgetExceeded.
func (s *Solver) Answer(req search.Request) (search.Answer, error) {
	moves, lower, nodes, err := s.solve(req.State.Cells, req.Budget.Fast(DefaultTime))
	if err != nil {
		return search.Answer{}, err
	}
	return search.Answer{Moves: moves, LowerBound: lower, Optimal: len(moves) == lower, Nodes: nodes, Solver: s.Name()}, nil
}
