package fulltable

import "github.com/tessera-solver/tessera/internal/search"

// Answer is the optimal answer of req by descent through the table.
func (t *Table) Answer(req search.Request) (search.Answer, error) {
	moves, err := t.Solve(req.State.Cells)
	if err != nil {
		return search.Answer{}, err
	}
	return search.Answer{Moves: moves, Optimal: true, LowerBound: len(moves), Nodes: int64(len(moves)), Solver: "bfs-table"}, nil
}
