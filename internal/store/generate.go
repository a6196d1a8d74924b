package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// DistinctAtLength counts the distinct states of puzzle stored with a
// proved optimal length of exactly length, across every batch: a state
// answered in two batches counts once.
func (s *Store) DistinctAtLength(ctx context.Context, puzzleSpec string, length int) (int64, error) {
	p := canonical(puzzleSpec)
	var n int64
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT count(DISTINCT state) FROM solutions WHERE puzzle = $1 AND length = $2 AND optimal`,
			p, length).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("states of %s at length %d: %w", p, length, err)
	}
	return n, nil
}

// DistinctScrambles returns up to limit distinct states of puzzle with a
// proved optimal length of exactly length, one row each (the first
// stored), in the order they were stored.
func (s *Store) DistinctScrambles(ctx context.Context, puzzleSpec string, length, limit int) ([]Solution, error) {
	p := canonical(puzzleSpec)
	var out []Solution
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT * FROM (`+strings.Replace(solutionSelect, "SELECT ", "SELECT DISTINCT ON (state) ", 1)+`
			WHERE puzzle = $1 AND length = $2 AND optimal ORDER BY state, batch_id, seq
			) AS d ORDER BY batch_id, seq LIMIT $3`, p, length, limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Solution, error) {
			var s Solution
			err := scanSolution(r, &s)
			return s, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("distinct scrambles of %s at length %d: %w", p, length, err)
	}
	return out, nil
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
