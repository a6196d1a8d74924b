package cmdkit

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// OnSignal is parent until SIGINT or SIGTERM: the one stop of every
// command and service, after which its loops drain and it exits.
func OnSignal(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}
