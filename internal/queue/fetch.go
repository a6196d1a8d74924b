package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Fetch pulls up to max messages from cons, waiting at most wait for the
// first one. It returns as soon as at least one message is there: a pull
// request for max messages would otherwise sit on the server until all max
// arrive or it expires. With max 1 it is a single pull, so an idle worker
// claims exactly one job and no message waits in a local buffer while its
// ack clock runs.
//
// Cancelling ctx returns what has arrived; messages the server sends after
// that are redelivered once their ack wait passes. An empty result with a
// nil error means nothing arrived in time.
func Fetch(ctx context.Context, cons jetstream.Consumer, max int, wait time.Duration) ([]jetstream.Msg, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if max < 1 {
		max = 1
	}
	if wait <= 0 {
		wait = time.Second
	}
	var msgs []jetstream.Msg
	if max > 1 {
		// Under load a no-wait pull of the whole batch is one round trip.
		b, err := cons.FetchNoWait(max)
		if err != nil {
			return nil, fmt.Errorf("fetch from %s: %w", consumerName(cons), err)
		}
		if msgs, err = collect(ctx, b, msgs); len(msgs) > 0 || err != nil {
			return msgs, err
		}
	}
	b, err := cons.Fetch(1, jetstream.FetchMaxWait(wait))
	if err != nil {
		return nil, fmt.Errorf("fetch from %s: %w", consumerName(cons), err)
	}
	if msgs, err = collect(ctx, b, msgs); len(msgs) == 0 || err != nil || max == 1 {
		return msgs, err
	}
	// Something arrived: take whatever else is ready without waiting.
	b, err = cons.FetchNoWait(max - 1)
	if err != nil {
		// The message in hand is valid; the error will recur on the next pull.
		return msgs, nil
	}
	more, _ := collect(ctx, b, nil)
	return append(msgs, more...), nil
}

// FetchReady pulls up to n messages that are ready now, without
// waiting: an empty result with a nil error means none was.
func FetchReady(ctx context.Context, cons jetstream.Consumer, n int) ([]jetstream.Msg, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := cons.FetchNoWait(max(n, 1))
	if err != nil {
		return nil, fmt.Errorf("fetch from %s: %w", consumerName(cons), err)
	}
	return collect(ctx, b, nil)
}

func collect(ctx context.Context, b jetstream.MessageBatch, msgs []jetstream.Msg) ([]jetstream.Msg, error) {
	ch := b.Messages()
	for {
		select {
		case m, ok := <-ch:
			if !ok {
				if err := b.Error(); err != nil && len(msgs) == 0 {
					return nil, fmt.Errorf("fetch: %w", err)
				}
				return msgs, nil
			}
			msgs = append(msgs, m)
		case <-ctx.Done():
			if len(msgs) > 0 {
				return msgs, nil
			}
			return nil, ctx.Err()
		}
	}
}

func consumerName(c jetstream.Consumer) string {
	if info := c.CachedInfo(); info != nil {
		return info.Stream + "/" + info.Name
	}
	return "consumer"
}
