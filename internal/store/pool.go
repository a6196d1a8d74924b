package store

import (
	"context"
	"fmt"
	"runtime"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pool wraps pgxpool so every use goes through withConn with a plain
// *pgx.Conn: the store's code does not depend on how connections are
// pooled. pgxpool pings a connection idle for over a second before handing
// it out and destroys one released broken or mid-transaction.
type pool struct {
	p *pgxpool.Pool
}

func newPool(cfg *pgx.ConnConfig) (*pool, error) {
	pc, err := pgxpool.ParseConfig("")
	if err != nil {
		return nil, err
	}
	pc.ConnConfig = cfg
	pc.MaxConns = int32(max(4, runtime.NumCPU()))
	pc.MinConns = 0 // lazy: a daemon may start before its database
	p, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		return nil, fmt.Errorf("connection pool: %w", err)
	}
	return &pool{p: p}, nil
}

func (p *pool) close() { p.p.Close() }

// withConn runs f on a pooled connection.
func (p *pool) withConn(ctx context.Context, f func(*pgx.Conn) error) error {
	c, err := p.p.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer c.Release()
	return f(c.Conn())
}
