package steer

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/queue"
)

// Lazy is the NATS connection of a long-running server that works without
// NATS (results serve): it connects on first use and keeps the
// connection; while NATS does not answer it tries again at most every
// retry, answering the last failure in between, so a page that asks
// often is not slowed by a connect timeout each time.
type Lazy struct {
	connect func() (*cmdkit.Conn, error)
	retry   time.Duration

	mu    sync.Mutex
	conn  *cmdkit.Conn
	tried time.Time
	err   error
}

// NewLazy connects to c as name on first use (Close closes it).
func NewLazy(c config.NATS, name string, retry time.Duration) *Lazy {
	return &Lazy{connect: func() (*cmdkit.Conn, error) { return cmdkit.Connect(c, name) }, retry: retry}
}

// Adopt is a Lazy over a connection made elsewhere (tests, a server that
// already has one).
func Adopt(conn *cmdkit.Conn) *Lazy { return &Lazy{conn: conn} }

// Dial is the Lazy's connection as a Dial; release does nothing, the
// connection stays.
func (l *Lazy) Dial() (*cmdkit.Conn, func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil && time.Since(l.tried) >= l.retry {
		l.tried = time.Now()
		l.conn, l.err = l.connect()
	}
	if l.conn == nil {
		return nil, nil, fmt.Errorf("NATS not reachable (tried again every %s): %w", l.retry, l.err)
	}
	return l.conn, func() {}, nil
}

// Close closes the connection, if one was made.
func (l *Lazy) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		l.conn.Close()
	}
}

// Workers lists the live processes of the registry (queue.WorkersBucket)
// on the Lazy's connection.
func (l *Lazy) Workers(ctx context.Context) ([]queue.WorkerEntry, error) {
	conn, release, err := l.Dial()
	if err != nil {
		return nil, err
	}
	defer release()
	return queue.Workers(ctx, conn.JS)
}
