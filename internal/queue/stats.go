package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// StreamStats is what the metrics export of one work stream at a scrape:
// the stream's size against its limit, how many of its copies are
// current, and each durable consumer's backlog.
type StreamStats struct {
	Name string
	// Answered: the stream's leader answered within the bound. False
	// when it did not (no leader while a cluster elects one, or no
	// server reachable); nothing else is set then.
	Answered bool
	Messages uint64
	Bytes    uint64
	MaxBytes int64 // 0: none
	// Replicas is the configured number of copies; Current those that
	// hold it now: the leader and each follower that is current and not
	// offline.
	Replicas  int
	Current   int
	Consumers []ConsumerStats
}

// ConsumerStats is one durable consumer's backlog.
type ConsumerStats struct {
	Name string
	// Pending: matching messages not delivered yet; AckPending:
	// delivered and not acknowledged yet.
	Pending    uint64
	AckPending int
}

// ReadStreamStats reads the streams nats.max_bytes governs (TESSERA_JOBS,
// TESSERA_RESULTS, TESSERA_DEAD) at once, each bounded by ctx: a stream
// that does not exist is left out, one that does not answer is there with
// Answered false (the error names the first).
func ReadStreamStats(ctx context.Context, js jetstream.JetStream) ([]StreamStats, error) {
	out := make([]StreamStats, len(limitedStreams))
	errs := make([]error, len(limitedStreams))
	var wg sync.WaitGroup
	for i, name := range limitedStreams {
		wg.Go(func() { out[i], errs[i] = streamStats(ctx, js, name) })
	}
	wg.Wait()
	var kept []StreamStats
	for i, st := range out {
		if errors.Is(errs[i], jetstream.ErrStreamNotFound) {
			continue
		}
		kept = append(kept, st)
	}
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			first = err
			break
		}
	}
	return kept, first
}

func streamStats(ctx context.Context, js jetstream.JetStream, name string) (StreamStats, error) {
	st := StreamStats{Name: name}
	s, err := js.Stream(ctx, name)
	if err != nil {
		return st, fmt.Errorf("stream %s: %w", name, err)
	}
	info := s.CachedInfo()
	st.Answered = true
	st.Messages, st.Bytes, st.MaxBytes = info.State.Msgs, info.State.Bytes, max(info.Config.MaxBytes, 0)
	st.Replicas, st.Current = max(info.Config.Replicas, 1), 1 // the leader answered
	if info.Cluster != nil {
		for _, p := range info.Cluster.Replicas {
			if p.Current && !p.Offline {
				st.Current++
			}
		}
	}
	l := s.ListConsumers(ctx)
	for ci := range l.Info() {
		if ci.Config.Durable == "" {
			continue // a watcher's ephemeral consumer
		}
		st.Consumers = append(st.Consumers, ConsumerStats{Name: ci.Name, Pending: ci.NumPending, AckPending: ci.NumAckPending})
	}
	if err := l.Err(); err != nil {
		return st, fmt.Errorf("consumers of %s: %w", name, err)
	}
	return st, nil
}
