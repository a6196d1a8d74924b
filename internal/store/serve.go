package store

import (
	"context"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
)

// Queries of `results serve` (internal/httpapi) that the CLI does not need.

// ByStatus returns the batch's counters in the order of result.Statuses.
func (b Batch) ByStatus() []int64 {
	return []int64{b.Solved, b.BudgetExceeded, b.Invalid, b.Unsolvable, b.Failed, b.Cancelled}
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
	Cancelled      int64  `json:"cancelled"`
}

// ByStatus returns the summed counters in the order of result.Statuses.
func (t PuzzleTotals) ByStatus() []int64 {
	return []int64{t.Solved, t.BudgetExceeded, t.Invalid, t.Unsolvable, t.Failed, t.Cancelled}
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
			       coalesce(sum(failed), 0)::bigint, coalesce(sum(cancelled), 0)::bigint
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

// BatchFilter selects batches for FindBatches.
type BatchFilter struct {
	Puzzle string // any spec ParseSpec accepts ("": every puzzle)
	State  string // one of BatchStates ("": any)
}

// BatchStates are the values of Batch.State, in lifecycle order.
var BatchStates = []string{"enqueuing", "stalled", "running", "paused", "finished", "cancelled"}

// stateSQL is Batch.State in SQL, with the stall threshold in seconds as
// parameter $1; TestFindBatchesState holds the two to the same answers.
const stateSQL = `CASE WHEN cancelled_at IS NOT NULL THEN 'cancelled'
	WHEN finished_at IS NOT NULL THEN 'finished'
	WHEN paused_at IS NOT NULL THEN 'paused'
	WHEN total IS NULL OR enqueued < total THEN
		CASE WHEN now() - coalesce(updated_at, created_at) > make_interval(secs => $1) THEN 'stalled' ELSE 'enqueuing' END
	ELSE 'running' END`

// FindBatches returns the newest batches that f selects, at most limit.
func (s *Store) FindBatches(ctx context.Context, f BatchFilter, limit int) ([]Batch, error) {
	var p string
	if f.Puzzle != "" {
		p = canonical(f.Puzzle)
	}
	var out []Batch
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT `+batchColumns+` FROM batches
			WHERE ($2 = '' OR puzzle = $2) AND ($3 = '' OR (`+stateSQL+`) = $3)
			ORDER BY id DESC LIMIT $4`, StallAfter.Seconds(), p, f.State, limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Batch, error) { return scanBatch(r) })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find batches: %w", err)
	}
	return out, nil
}

// BatchRows returns up to limit rows of a batch after seq afterSeq (-1:
// from the start), in seq order, only of the given statuses (none: all):
// one page of the status page's table of rows.
func (s *Store) BatchRows(ctx context.Context, batch int64, statuses []string, afterSeq int64, limit int) ([]Solution, error) {
	var out []Solution
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, solutionSelect+`WHERE batch_id = $1 AND seq > $2
			AND (coalesce(cardinality($3::text[]), 0) = 0 OR status = ANY($3::text[])) ORDER BY seq LIMIT $4`,
			batch, afterSeq, statuses, limit)
		if err != nil {
			return err
		}
		out, err = collectSolutions(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rows of batch %d: %w", batch, err)
	}
	return out, nil
}

// DeadLettersAfter returns up to limit dead letters of a batch with an id
// above afterID, oldest first: one page of the status page.
func (s *Store) DeadLettersAfter(ctx context.Context, batch, afterID int64, limit int) ([]DeadLetter, error) {
	var out []DeadLetter
	err := s.EachDeadLetter(ctx, batch, afterID, limit, func(d *DeadLetter) error {
		out = append(out, *d)
		return nil
	})
	return out, err
}

// EachDeadLetter calls f with each dead letter of a batch with an id above
// afterID, oldest first, at most limit (≤ 0: all) of them, streaming: the
// letter passed is reused between calls.
func (s *Store) EachDeadLetter(ctx context.Context, batch, afterID int64, limit int, f func(*DeadLetter) error) error {
	if limit <= 0 {
		limit = math.MaxInt32
	}
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT id, batch_id, seq, coalesce(job_id, ''), source, reason, payload, created_at, key
			FROM dead_letters WHERE batch_id = $1 AND id > $2 ORDER BY id LIMIT $3`, batch, afterID, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		var d DeadLetter
		for rows.Next() {
			d = DeadLetter{}
			if err := rows.Scan(&d.ID, &d.BatchID, &d.Seq, &d.JobID, &d.Source, &d.Reason, &d.Payload, &d.CreatedAt, &d.Key); err != nil {
				return err
			}
			if err := f(&d); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("dead letters of batch %d: %w", batch, err)
	}
	return nil
}

// RowsBefore is the cursor of the page of up to limit rows of batch (of
// statuses, none: all) that ends just before seq: BatchRows after it
// returns that page. It is -1 when that page is the first.
func (s *Store) RowsBefore(ctx context.Context, batch int64, statuses []string, seq int64, limit int) (int64, error) {
	var first *int64
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT min(seq) FROM (SELECT seq FROM solutions WHERE batch_id = $1 AND seq < $2
			AND (coalesce(cardinality($3::text[]), 0) = 0 OR status = ANY($3::text[])) ORDER BY seq DESC LIMIT $4) p`,
			batch, seq, statuses, limit).Scan(&first)
	})
	if err != nil {
		return 0, fmt.Errorf("rows of batch %d before %d: %w", batch, seq, err)
	}
	if first == nil {
		return -1, nil
	}
	// Is anything before that page? If not, it is the first.
	var more bool
	err = s.pool.withConn(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM solutions WHERE batch_id = $1 AND seq < $2
			AND (coalesce(cardinality($3::text[]), 0) = 0 OR status = ANY($3::text[])))`, batch, *first, statuses).Scan(&more)
	})
	if err != nil {
		return 0, fmt.Errorf("rows of batch %d before %d: %w", batch, *first, err)
	}
	if !more {
		return -1, nil
	}
	return *first - 1, nil
}
