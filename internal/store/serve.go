package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Queries of `results serve` (internal/httpapi) that the CLI does not need.

// ByStatus returns the batch's counters in the order of result.Statuses.
func (b Batch) ByStatus() []int64 {
	return []int64{b.Solved, b.BudgetExceeded, b.Invalid, b.Unsolvable, b.Failed}
}

// PuzzleTotals sums the counters of every batch of one puzzle.
type PuzzleTotals struct {
	Puzzle         string `json:"puzzle"`
	Batches        int64  `json:"batches"`
	Finished       int64  `json:"finished"` // batches with every row in
	Solved         int64  `json:"solved"`
	BudgetExceeded int64  `json:"budget_exceeded"`
	Invalid        int64  `json:"invalid"`
	Unsolvable     int64  `json:"unsolvable"`
	Failed         int64  `json:"failed"`
}

// ByStatus returns the summed counters in the order of result.Statuses.
func (t PuzzleTotals) ByStatus() []int64 {
	return []int64{t.Solved, t.BudgetExceeded, t.Invalid, t.Unsolvable, t.Failed}
}

// Totals sums the batch counters per puzzle, ordered by puzzle. It reads
// the batches table only (one row per producer run), never solutions, so
// its cost does not grow with the number of stored rows. Rows whose batch
// row is missing (solutions has no foreign key) are not counted.
func (s *Store) Totals(ctx context.Context) ([]PuzzleTotals, error) {
	var out []PuzzleTotals
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `
			SELECT puzzle, count(*), count(finished_at),
			       coalesce(sum(solved), 0)::bigint, coalesce(sum(budget_exceeded), 0)::bigint,
			       coalesce(sum(invalid), 0)::bigint, coalesce(sum(unsolvable), 0)::bigint,
			       coalesce(sum(failed), 0)::bigint
			FROM batches GROUP BY puzzle ORDER BY puzzle`)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowToStructByPos[PuzzleTotals])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("batch totals: %w", err)
	}
	return out, nil
}
