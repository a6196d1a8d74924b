package main

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/queue"
)

// stallNote is how long --wait sees no progress before it asks the queue
// why (idleReason) and says so, once per stall.
var stallNote = 10 * time.Second

// idleReason says why a batch makes no progress, as far as the queue can
// tell: jobs wait and no solverd has a pull request open for them (a
// waiting pull is ConsumerInfo.NumWaiting; a busy one holds acks
// pending), or results wait and no writer pulls them. "" when it cannot
// tell: solvers busy, or the server unreachable.
func idleReason(ctx context.Context, js jetstream.JetStream) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	jobs, solvers, _ := backlog(ctx, js, queue.JobsStream, queue.JobsConsumer, queue.QuickConsumer)
	if jobs > 0 && !solvers {
		return fmt.Sprintf("no solverd is consuming %s (%d jobs wait, and no solver is pulling or holding one): start `solverd run` against this NATS server",
			queue.JobsStream, jobs)
	}
	results, writer, _ := backlog(ctx, js, queue.ResultsStream, queue.ResultsConsumer)
	if results > 0 && !writer {
		return fmt.Sprintf("no results writer is consuming %s (%d results wait): start `results run` against this NATS server and database",
			queue.ResultsStream, results)
	}
	return ""
}

// backlog is how many messages of stream wait for the consumers named and
// whether any of those has a pull request open or messages in hand.
// Consumers not created yet count as absent.
func backlog(ctx context.Context, js jetstream.JetStream, stream string, consumers ...string) (waiting uint64, active, ok bool) {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return 0, false, false
	}
	waiting = s.CachedInfo().State.Msgs
	for _, name := range consumers {
		c, err := s.Consumer(ctx, name)
		if err != nil {
			continue
		}
		info, err := c.Info(ctx)
		if err != nil {
			return 0, true, false // cannot tell: say nothing
		}
		if info.NumWaiting > 0 || info.NumAckPending > 0 {
			active = true
		}
	}
	return waiting, active, true
}
