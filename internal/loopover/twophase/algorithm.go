package twophase

import "github.com/tessera-solver/tessera/internal/search"

// Answer is the best two-phase answer to a 5×5 board found within
// DefaultTime (less when the request's budget is tighter).
func (s *Solver) Answer(req search.Request) (search.Answer, error) {
	moves, lower, err := s.Solve(req.State.Cells, req.Budget.Capped(DefaultTime))
	if err != nil {
		return search.Answer{}, err
	}
	return search.Answer{Moves: moves, LowerBound: lower, Optimal: len(moves) == lower, Solver: s.Name()}, nil
}
