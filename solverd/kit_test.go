package main

import (
	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/queue"
)

// The tests' names for what the command kit holds.
const (
	exitOK       = cmdkit.ExitOK
	exitRejected = cmdkit.ExitFailed
	exitUsage    = cmdkit.ExitUsage
)

func queueConfig(c config.NATS) queue.Config { return cmdkit.QueueConfig(c) }
