package main

import (
	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/queue"
)

// queueConfig is the streams' and consumers' configuration from the nats
// keys, the same in every command that creates or checks them.
func queueConfig(c config.NATS) queue.Config {
	qc := queue.WithDeliveries(c.MaxDeliver, c.AckWait)
	qc.Replicas = c.Replicas
	return qc
}
