package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// pool is a small bounded pool of pgx connections.
//
// Why not pgxpool: it needs github.com/jackc/puddle/v2, which go.mod does
// not list yet. The store's needs are modest (one writer, a few readers),
// and every use goes through withConn, so moving to pgxpool later touches
// this file and Open only.
type pool struct {
	cfg   *pgx.ConnConfig
	slots chan struct{} // one token per connection in use

	mu     sync.Mutex
	idle   []idleConn
	closed bool
}

type idleConn struct {
	c     *pgx.Conn
	since time.Time
}

// checkAfter: an idle connection older than this is pinged before reuse,
// so a restarted server costs one reconnect instead of a failed query.
const checkAfter = 30 * time.Second

var errClosed = errors.New("store is closed")

func newPool(cfg *pgx.ConnConfig, max int) *pool {
	if max <= 0 {
		max = max4(runtime.NumCPU())
	}
	return &pool{cfg: cfg, slots: make(chan struct{}, max)}
}

func max4(n int) int {
	if n < 4 {
		return 4
	}
	return n
}

func (p *pool) acquire(ctx context.Context) (*pgx.Conn, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			<-p.slots
			return nil, errClosed
		}
		var ic idleConn
		ok := len(p.idle) > 0
		if ok {
			ic = p.idle[len(p.idle)-1]
			p.idle = p.idle[:len(p.idle)-1]
		}
		p.mu.Unlock()
		if !ok {
			break
		}
		if time.Since(ic.since) < checkAfter || ic.c.Ping(ctx) == nil {
			return ic.c, nil
		}
		ic.c.Close(context.Background())
	}
	c, err := pgx.ConnectConfig(ctx, p.cfg)
	if err != nil {
		<-p.slots
		return nil, fmt.Errorf("connect: %w", err)
	}
	return c, nil
}

// release returns c for reuse unless it is broken or mid-transaction (a
// cancelled context makes pgx close the connection, so both happen).
func (p *pool) release(c *pgx.Conn) {
	reusable := !c.IsClosed() && c.PgConn().TxStatus() == 'I'
	p.mu.Lock()
	if reusable && !p.closed {
		p.idle = append(p.idle, idleConn{c, time.Now()})
		c = nil
	}
	p.mu.Unlock()
	if c != nil {
		c.Close(context.Background())
	}
	<-p.slots
}

func (p *pool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, ic := range idle {
		ic.c.Close(context.Background())
	}
}

// withConn runs f on a pooled connection.
func (p *pool) withConn(ctx context.Context, f func(*pgx.Conn) error) error {
	c, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	defer p.release(c)
	return f(c)
}
