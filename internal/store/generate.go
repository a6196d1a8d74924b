package store

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"
)

// DistinctAtLength counts the distinct states of puzzle whose least
// proved optimal length is exactly length, across every batch: a state
// answered in two batches counts once. It is one bar of
// PuzzleDistribution, read from puzzle_counts.
func (s *Store) DistinctAtLength(ctx context.Context, puzzleSpec string, length int) (int64, error) {
	p := canonical(puzzleSpec)
	var n int64
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT coalesce(sum(count), 0)::bigint FROM puzzle_counts WHERE puzzle = $1 AND length = $2`,
			p, length).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("states of %s at length %d: %w", p, length, err)
	}
	return n, nil
}

// StatesBetween returns up to limit states of puzzle, drawn at random,
// whose proved optimal length is in [lo, hi]: seeds for a search of
// deeper states.
func (s *Store) StatesBetween(ctx context.Context, puzzleSpec string, lo, hi, limit int) ([]string, error) {
	p := canonical(puzzleSpec)
	var out []string
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT state FROM solutions WHERE puzzle = $1 AND optimal AND length BETWEEN $2 AND $3
			ORDER BY random() LIMIT $4`, p, lo, hi, limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("states of %s between %d and %d: %w", p, lo, hi, err)
	}
	return out, nil
}

// SetExact stores the exact distribution of puzzle (counts[d] states at
// distance d), replacing any stored before, in one transaction.
func (s *Store) SetExact(ctx context.Context, puzzleSpec string, counts []int64, source string) error {
	p := canonical(puzzleSpec)
	var lengths []int32
	var ns []int64
	for d, n := range counts {
		if n > 0 {
			lengths, ns = append(lengths, int32(d)), append(ns, n)
		}
	}
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `DELETE FROM exact_distributions WHERE puzzle = $1`, p); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO exact_distributions (puzzle, length, count, source)
				SELECT $1, l, n, $4 FROM unnest($2::integer[], $3::bigint[]) AS u(l, n)`, p, lengths, ns, source)
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("exact distribution of %s: %w", p, err)
	}
	return nil
}

// ExactDistribution is the stored exact distribution of puzzle; Total is 0
// when none is stored.
func (s *Store) ExactDistribution(ctx context.Context, puzzleSpec string) (Distribution, error) {
	p := canonical(puzzleSpec)
	return s.distribution(ctx, p, `SELECT length, count FROM exact_distributions WHERE puzzle = $1 ORDER BY length`, p)
}

// ScrambleQuery selects scrambles for /api/scrambles.
type ScrambleQuery struct {
	Puzzle string
	Length int
	Count  int
	// After is the cursor: only rows after this (batch_id, seq) (zero: from
	// the start).
	AfterBatch, AfterSeq int64
	// Client, when set, excludes the states already served to it and
	// records those returned now, so it never gets a state twice.
	Client string
	// ClientCap bounds the states recorded for Client over all its
	// requests (0: no bound); a request of a client at its cap fails with
	// ErrClientFull, one near it gets only what is left.
	ClientCap int64
	// MinNodes and MaxNodes bound the node count of the proof (0: none),
	// a difficulty beyond length.
	MinNodes, MaxNodes int64
}

// ServeScrambles returns up to q.Count distinct states of q.Puzzle whose
// least proved optimal length is exactly q.Length, each as its first stored
// row of that length (puzzle_states), in (batch_id, seq) order from the
// cursor on; the node bounds apply to that row. It walks the index
// puzzle_states_length, so its cost is the rows returned (and, for a
// client key, those it was served before), not the rows stored. For a
// client key the states returned are recorded in the same statement, and
// only states newly recorded are returned, so two concurrent requests of
// one client never get the same state.
func (s *Store) ServeScrambles(ctx context.Context, q ScrambleQuery) ([]Solution, error) {
	p := canonical(q.Puzzle)
	maxNodes := q.MaxNodes
	if maxNodes <= 0 {
		maxNodes = math.MaxInt64
	}
	cols := strings.Join(SolutionColumns, ", ")
	// The lateral LIMIT 1 keeps the join a nested loop of primary-key
	// lookups: as a plain join the planner may pick a merge join, which
	// walks solutions from the first row of the batch past every row of
	// other lengths, slower the more rows the batch holds.
	pick := `SELECT ` + prefixed("s.", cols) + `, p.state_hash FROM puzzle_states p
		CROSS JOIN LATERAL (SELECT * FROM solutions s WHERE s.batch_id = p.batch_id AND s.seq = p.seq LIMIT 1) AS s
		WHERE p.puzzle = $1 AND p.length = $2 AND (p.batch_id, p.seq) > ($4, $5) AND s.nodes BETWEEN $6 AND $7
		  AND ($3 = '' OR NOT EXISTS (SELECT 1 FROM served_scrambles v
		                              WHERE v.client = $3 AND v.puzzle = $1 AND v.state_hash = p.state_hash))
		ORDER BY p.batch_id, p.seq LIMIT $8`
	query := `SELECT ` + cols + ` FROM (` + pick + `) AS d ORDER BY batch_id, seq`
	if q.Client != "" {
		query = `WITH picked AS (` + pick + `), rec AS (
			INSERT INTO served_scrambles (client, puzzle, state_hash)
			SELECT $3, $1, state_hash FROM picked
			ON CONFLICT DO NOTHING RETURNING state_hash
		) SELECT ` + prefixed("picked.", cols) + ` FROM picked JOIN rec USING (state_hash)
		  ORDER BY batch_id, seq`
	}
	var out []Solution
	collect := func(rows pgx.Rows, err error) error {
		if err != nil {
			return err
		}
		out, err = collectSolutions(rows)
		return err
	}
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		if q.Client == "" {
			return collect(c.Query(ctx, query, p, q.Length, q.Client, q.AfterBatch, q.AfterSeq, q.MinNodes, maxNodes, q.Count))
		}
		return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			// The upsert locks the key's counter row until commit, so two
			// requests of one key take turns and the cap holds exactly.
			var served int64
			if err := tx.QueryRow(ctx, `INSERT INTO served_clients (client) VALUES ($1)
				ON CONFLICT (client) DO UPDATE SET served = served_clients.served RETURNING served`, q.Client).Scan(&served); err != nil {
				return err
			}
			count := int64(q.Count)
			if q.ClientCap > 0 {
				if served >= q.ClientCap {
					return fmt.Errorf("client %q has been served %d states, its cap: %w", q.Client, served, ErrClientFull)
				}
				count = min(count, q.ClientCap-served)
			}
			if err := collect(tx.Query(ctx, query, p, q.Length, q.Client, q.AfterBatch, q.AfterSeq, q.MinNodes, maxNodes, count)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `UPDATE served_clients SET served = served + $2 WHERE client = $1`, q.Client, len(out))
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("scrambles of %s at length %d: %w", p, q.Length, err)
	}
	return out, nil
}

// prefixed qualifies each column of a comma-separated list.
func prefixed(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}
