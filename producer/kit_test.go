package main

import "github.com/tessera-solver/tessera/internal/cmdkit"

// The tests' names for the exit codes, which the command kit now holds.
const (
	exitOK    = cmdkit.ExitOK
	exitError = cmdkit.ExitFailed // includes --strict finding bad lines
	exitUsage = cmdkit.ExitUsage
)
