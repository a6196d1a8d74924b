package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// IdlePIDs are the server process ids of the idle pooled connections.
func (s *Store) IdlePIDs() []uint32 {
	var out []uint32
	for _, c := range s.pool.p.AcquireAllIdle(context.Background()) {
		out = append(out, c.Conn().PgConn().PID())
		c.Release()
	}
	return out
}

// Exec runs one statement (tests only).
func (s *Store) Exec(ctx context.Context, sql string, args ...any) error {
	return s.pool.withConn(ctx, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, sql, args...)
		return err
	})
}

// QueryStrings runs a query and returns each row's columns as text (tests
// only: brute-force oracles over the stored rows).
func (s *Store) QueryStrings(ctx context.Context, sql string, args ...any) ([]string, error) {
	var out []string
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return out, err
}
