package main

import (
	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/cmdkit/solverkit"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/worker"
)

// The tests' names for what the command kit now holds.
const (
	exitOK       = cmdkit.ExitOK
	exitRejected = cmdkit.ExitFailed
	exitUsage    = cmdkit.ExitUsage
)

func capBudget(s config.Solver, solveText worker.SolveFunc) worker.SolveFunc {
	return solverkit.CapBudget(s, solveText)
}

func queueConfig(c config.NATS) queue.Config { return cmdkit.QueueConfig(c) }
