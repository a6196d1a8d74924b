package main

import (
	"context"
	"fmt"
	"strings"
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
	jobs, solvers, _ := backlog(ctx, js, queue.JobsStream, queue.JobsConsumers()...)
	if jobs > 0 && !solvers {
		// The registry tells a fleet that is there but not pulling (cut
		// off from JetStream, failing, draining) from no fleet at all.
		if alive := registered(ctx, js, "solverd"); len(alive) > 0 {
			return fmt.Sprintf("%d jobs wait in %s and no solver is pulling or holding one, but %s registered: %s; "+
				"see their logs or `solverd workers`", jobs, queue.JobsStream, count(len(alive), "solverd is", "solverd are"), doing(alive))
		}
		return fmt.Sprintf("no solverd is consuming %s (%d jobs wait, and no solver is pulling or holding one): start `solverd run` against this NATS server",
			queue.JobsStream, jobs)
	}
	results, writer, _ := backlog(ctx, js, queue.ResultsStream, queue.ResultsConsumer)
	if results > 0 && !writer {
		if alive := registered(ctx, js, "results"); len(alive) > 0 {
			return fmt.Sprintf("%d results wait in %s and no writer is pulling them, but %s registered: %s; "+
				"see their logs or `solverd workers`", results, queue.ResultsStream, count(len(alive), "results writer is", "results writers are"), doing(alive))
		}
		return fmt.Sprintf("no results writer is consuming %s (%d results wait): start `results run` against this NATS server and database",
			queue.ResultsStream, results)
	}
	return ""
}

// registered is the live processes of role in the registry of workers
// (none when it cannot be read).
func registered(ctx context.Context, js jetstream.JetStream, role string) []queue.WorkerEntry {
	ws, err := queue.Workers(ctx, js)
	if err != nil {
		return nil
	}
	var out []queue.WorkerEntry
	for _, w := range ws {
		if w.Role == role {
			out = append(out, w)
		}
	}
	return out
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// doing is what each process is doing, as its entry says: "host pid 12:
// 2 jobs in flight, last error \"…\" 3s ago", at most three of them.
func doing(ws []queue.WorkerEntry) string {
	var parts []string
	for i, w := range ws {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ws)-i))
			break
		}
		p := fmt.Sprintf("%s pid %d: %d jobs in flight", w.Host, w.PID, len(w.Jobs))
		if w.LastError != "" {
			msg := []rune(w.LastError)
			if len(msg) > 120 {
				msg = append(msg[:119], '…')
			}
			p += fmt.Sprintf(", last error %q %v ago", string(msg), time.Since(w.LastErrorAt).Round(time.Second))
		} else {
			p += ", no error logged"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
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
