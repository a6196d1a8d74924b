package main

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/queue"
)

// batchJobs describes the jobs of one batch.
type batchJobs struct {
	batch     int64
	puzzle    string // canonical spec
	mode      string
	maxNodes  int64
	timeoutMS int64
	chunk     int
	goal      string // swap boards: explicit target, "" for the standard one
}

// enqueue publishes every state of src as jobs of b.chunk consecutive
// states (job id "<batch>-<first seq>", also the Nats-Msg-Id, so running
// it again publishes nothing new within the duplicate window), keeping
// window publishes in flight. onAck sees the number of states of each job
// stored. It returns the number of states enqueued.
func enqueue(ctx context.Context, js jetstream.JetStream, b batchJobs, src states, window int, onAck func(int)) (int64, error) {
	p := queue.NewPublisher(js, window)
	p.OnAck = onAck
	var (
		seq   int64
		first int64
		buf   = make([]string, 0, b.chunk)
	)
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		j := job.Job{
			V: job.Version, ID: fmt.Sprintf("%d-%d", b.batch, first), BatchID: b.batch, Puzzle: b.puzzle,
			FirstSeq: first, States: buf, Mode: b.mode, MaxNodes: b.maxNodes, TimeoutMS: b.timeoutMS, Goal: b.goal,
		}
		if err := p.Publish(ctx, j); err != nil {
			return err
		}
		// The Publisher holds the encoded message, not the slice.
		buf = make([]string, 0, b.chunk)
		first = seq
		return nil
	}
	err := src.each(func(text string) error {
		buf = append(buf, text)
		seq++
		if len(buf) == b.chunk {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return seq, fmt.Errorf("enqueue batch %d: %w", b.batch, err)
	}
	if err := p.Flush(ctx); err != nil {
		return seq, fmt.Errorf("enqueue batch %d: %w", b.batch, err)
	}
	return seq, nil
}

// pollEvery is how often --wait reads the batch's progress.
var pollEvery = 200 * time.Millisecond
