package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
)

// Replacing results (job.Results.Replace, from `results requeue`) overwrite
// a stored row only with a better answer: proved optimal beats solved,
// which beats budget_exceeded, which beats failed, which beats cancelled; within a class a shorter
// solution or a higher proved bound wins. The distance counts and the
// batch counters move with the row, so they stay exact.

// answerRank orders answers, best last; answerKey breaks ties in a class.
const (
	answerRank = `(CASE WHEN %[1]sstatus = 'solved' AND %[1]soptimal THEN 3 WHEN %[1]sstatus = 'solved' THEN 2
	                     WHEN %[1]sstatus = 'budget_exceeded' THEN 1 WHEN %[1]sstatus = 'cancelled' THEN -1 ELSE 0 END)`
	answerKey = `(CASE WHEN %[1]sstatus = 'solved' THEN -%[1]slength ELSE %[1]slower_bound END)`
)

func rankOf(prefix string) string { return fmt.Sprintf(answerRank, prefix) }
func keyOf(prefix string) string  { return fmt.Sprintf(answerKey, prefix) }

// replaceFromStaging replaces the rows that the staged answers improve and
// moves the counts with them. It returns the number of rows replaced.
var replaceFromStaging = `
WITH new AS (
    SELECT DISTINCT ON (batch_id, seq) * FROM tessera_replace
    ORDER BY batch_id, seq, ` + rankOf("") + ` DESC, ` + keyOf("") + ` DESC
), old AS (
    SELECT s.batch_id, s.seq, s.puzzle, s.status, s.optimal, s.length, s.lower_bound
    FROM solutions s JOIN new USING (batch_id, seq)
    FOR UPDATE OF s
), better AS (
    SELECT n.*, o.puzzle AS old_puzzle, o.status AS old_status, o.optimal AS old_optimal, o.length AS old_length
    FROM new n JOIN old o USING (batch_id, seq)
    WHERE (` + rankOf("n.") + `, ` + keyOf("n.") + `) > (` + rankOf("o.") + `, ` + keyOf("o.") + `)
), upd AS (
    UPDATE solutions s SET puzzle = b.puzzle, moves = b.moves, length = b.length, optimal = b.optimal,
        lower_bound = b.lower_bound, nodes = b.nodes, solve_ms = b.solve_ms, solver = b.solver,
        status = b.status, error = b.error, solved_at = now()
    FROM better b WHERE s.batch_id = b.batch_id AND s.seq = b.seq
), delta AS (
    SELECT puzzle, batch_id, length, sum(delta)::bigint AS n FROM (
        SELECT puzzle, batch_id, length, 1 AS delta FROM better WHERE optimal
        UNION ALL
        SELECT old_puzzle, batch_id, old_length, -1 FROM better WHERE old_optimal
    ) AS x
    GROUP BY puzzle, batch_id, length
), fall AS (
    -- Counts that fall are updated, those that rise upserted: an upsert
    -- of a negative count fails the CHECK (count >= 0) before it finds
    -- the row to add to (an optimal row made shorter was refused so).
    UPDATE distance_counts AS d SET count = d.count + delta.n FROM delta
    WHERE delta.n < 0 AND d.puzzle = delta.puzzle AND d.batch_id = delta.batch_id AND d.length = delta.length
), dist AS (
    INSERT INTO distance_counts AS d (puzzle, batch_id, length, count)
    SELECT puzzle, batch_id, length, n FROM delta WHERE n > 0
    ORDER BY puzzle, batch_id, length
    ON CONFLICT (puzzle, batch_id, length) DO UPDATE SET count = d.count + excluded.count
), progress AS (
    UPDATE batches AS b SET
        ` + statusSums + `,
        updated_at = now()
    FROM (SELECT batch_id, ` + statusDeltas + `
          FROM better GROUP BY batch_id) AS p
    WHERE b.id = p.batch_id
)
SELECT count(*) FROM better`

// statusDeltas is, per status, the rows entering it minus those leaving.
var statusDeltas = statusSQL(",\n    ", func(s string, _ int) string {
	return "count(*) FILTER (WHERE status = '" + s + "') - count(*) FILTER (WHERE old_status = '" + s + "') AS " + s
})

// replaceBetter applies the replacing results of batch (already inserted
// where their rows were missing) and returns how many rows improved.
func replaceBetter(ctx context.Context, tx pgx.Tx, batch []job.Results) (int, error) {
	var repl []job.Results
	n := 0
	for _, rs := range batch {
		if rs.Replace {
			repl = append(repl, rs)
			n += len(rs.Results)
		}
	}
	if n == 0 {
		return 0, nil
	}
	if _, err := tx.Exec(ctx, createTemp("tessera_replace")); err != nil {
		return 0, fmt.Errorf("replace table: %w", err)
	}
	if err := copyIn(ctx, tx, "tessera_replace", appendCopyRows(nil, repl), n); err != nil {
		return 0, fmt.Errorf("copy %d replacing rows: %w", n, rejected(err))
	}
	// Lock the rows first, in a statement of their own: replaceFromStaging's
	// snapshot then holds every count that another writer's replacement of
	// the same rows made, so the UPDATE of a falling count finds its row
	// (one created after the snapshot would be missed, losing the -1).
	if _, err := tx.Exec(ctx, `SELECT 1 FROM solutions s
		JOIN (SELECT DISTINCT batch_id, seq FROM tessera_replace) AS r USING (batch_id, seq)
		ORDER BY s.batch_id, s.seq FOR UPDATE OF s`); err != nil {
		return 0, fmt.Errorf("lock %d rows to replace: %w", n, err)
	}
	var replaced int
	if err := tx.QueryRow(ctx, replaceFromStaging).Scan(&replaced); err != nil {
		return 0, fmt.Errorf("replace %d rows: %w", n, rejected(err))
	}
	// A length whose last optimal row moved away keeps no zero row.
	if _, err := tx.Exec(ctx, `DELETE FROM distance_counts WHERE count = 0`); err != nil {
		return 0, fmt.Errorf("drop empty counts: %w", err)
	}
	return replaced, nil
}

// EachState calls f with the sequence number and state of every row of
// batch whose status is one of statuses, in sequence order. It streams:
// a batch of millions of rows is not held in memory.
func (s *Store) EachState(ctx context.Context, batch int64, statuses []result.Status, f func(seq int64, state string) error) error {
	names := make([]string, len(statuses))
	for i, st := range statuses {
		names[i] = string(st)
	}
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT seq, state FROM solutions WHERE batch_id = $1 AND status = ANY($2) ORDER BY seq`, batch, names)
		if err != nil {
			return err
		}
		defer rows.Close()
		var seq int64
		var state string
		for rows.Next() {
			if err := rows.Scan(&seq, &state); err != nil {
				return err
			}
			if err := f(seq, state); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("states of batch %d: %w", batch, err)
	}
	return nil
}
