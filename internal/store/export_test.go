package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// IdlePIDs are the server process ids of the idle pooled connections.
func (s *Store) IdlePIDs() []uint32 {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	var out []uint32
	for _, ic := range s.pool.idle {
		out = append(out, ic.c.PgConn().PID())
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
