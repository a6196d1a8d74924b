package twophase

import "github.com/tessera-solver/tessera/internal/search"

// Answer is the best two-phase answer to a 5×5 board found within the
// request's own budget when it chose one (a --timeout or --budget-nodes,
// longer or shorter than the default), else within s.Default() nodes under
// the host's ceilings and the time ceiling search.FastCeiling
// (search.Budget.Fast), so that the default answer is the same at any
// load. An answer the clock ended says so in its Solver. A node budget counts the nodes of
// both phases, those of the first answer included; the first answer is
// found whatever the budget (a few thousand nodes, milliseconds), so
// the answer never reports search.ErrBudgetExceeded.
func (s *Solver) Answer(req search.Request) (search.Answer, error) {
	moves, lower, nodes, timed, err := s.solveTimed(req.State.Cells, req.Budget.Fast(s.Default()))
	if err != nil {
		return search.Answer{}, err
	}
	name := s.Name()
	if timed {
		name = search.TimeLimitedName(name)
	}
	return search.Answer{Moves: moves, LowerBound: lower, Optimal: len(moves) == lower, Nodes: nodes, Solver: name}, nil
}
