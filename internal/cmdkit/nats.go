package cmdkit

import (
	"context"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/queue"
)

// QueueConfig is the streams' and consumers' configuration from the nats
// keys, the same in every command that creates or checks them.
func QueueConfig(c config.NATS) queue.Config {
	qc := queue.WithDeliveries(c.MaxDeliver, c.AckWait)
	qc.Replicas = c.Replicas
	return qc
}

// Conn is a NATS connection with its JetStream context and the streams'
// settings from the same keys.
type Conn struct {
	NC    *nats.Conn
	JS    jetstream.JetStream
	Queue queue.Config
}

// Connect connects to c.URL as name with the config's auth and opens
// JetStream; it ensures nothing (see Ensure).
func Connect(c config.NATS, name string) (*Conn, error) {
	nc, err := queue.Connect(c.URL, name, queue.Auth(c.NATSAuth))
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
