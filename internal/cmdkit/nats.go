package cmdkit

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/queue"
)

// QueueConfig is the streams' and consumers' configuration from the nats
// keys, the same in every command that creates or checks them.
func QueueConfig(c config.NATS) queue.Config {
	qc := queue.WithDeliveries(c.MaxDeliver, c.AckWait)
	qc.Replicas = c.Replicas
	qc.MaxBytes = c.MaxBytes
	return qc
}

// Conn is a NATS connection with its JetStream context and the streams'
// settings from the same keys.
type Conn struct {
	NC    *nats.Conn
	JS    jetstream.JetStream
	Queue queue.Config
}

// Watch is the connection-health settings of c (nats.ping_interval,
// nats.max_pings_out), with the connection's events logged to log and its
// state kept in link; either may be nil.
func Watch(c config.NATS, log *slog.Logger, link *queue.Link) queue.Watch {
	return queue.Watch{PingInterval: c.PingInterval, MaxPingsOut: c.MaxPingsOut, Log: log, Link: link}
}

// Connect connects to c.URL as name with the config's auth and
// connection-health settings, logging nothing, and opens JetStream; it
// ensures nothing (see Ensure).
func Connect(c config.NATS, name string) (*Conn, error) {
	return ConnectWatched(c, name, Watch(c, nil, nil))
}

// ConnectWatched is Connect with w's log and link (Watch, Health.Watch).
func ConnectWatched(c config.NATS, name string, w queue.Watch) (*Conn, error) {
	nc, err := queue.ConnectWatched(c.URL, name, queue.Auth(c.NATSAuth), w)
	if err != nil {
		return nil, err
	}
	return Adopt(nc, c)
}

// Adopt wraps a connection made elsewhere (the in-process server of
// --local) as Connect does.
func Adopt(nc *nats.Conn, c config.NATS) (*Conn, error) {
	js, err := queue.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &Conn{NC: nc, JS: js, Queue: QueueConfig(c)}, nil
}

// Ensure creates the streams that are missing and checks the others.
func (c *Conn) Ensure(ctx context.Context) error {
	return queue.EnsureStreams(ctx, c.JS, c.Queue)
}

// Close closes the connection without draining it.
func (c *Conn) Close() { c.NC.Close() }

// Dial connects as name and readies the connection with setup (ensure
// the streams, the consumers), retrying both at StartBackoff while NATS
// cannot be reached or setup fails: a service may start before its
// server, or while a cluster re-elects. It gives up when ctx ends and on
// settings NATS keeps refusing (queue.Refusals: credentials, CA, URL), so
// that a supervisor sees the failure; retrying hears of every attempt
// that failed, with the wait before the next. The connection logs its
// events and keeps its state as w says (Health.Watch).
func Dial(ctx context.Context, c config.NATS, name string, w queue.Watch, setup func(context.Context, *Conn) error, retrying func(delay time.Duration, err error)) (*Conn, error) {
	refusals := queue.Refusals()
	var conn *Conn
	err := backoff.Retry(ctx, StartBackoff, func() error {
		cn, err := ConnectWatched(c, name, w)
		if err == nil {
			if err = setup(ctx, cn); err != nil {
				cn.Close()
			}
		}
		if err != nil {
			return refusals.Check(err)
		}
		conn = cn
		return nil
	}, func(_ int, delay time.Duration, err error) { retrying(delay, err) })
	if err != nil {
		return nil, err
	}
	return conn, nil
}
