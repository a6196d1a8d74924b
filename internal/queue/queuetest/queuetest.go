// Package queuetest publishes and consumes the way tests of the pipeline
// need to: one job or one job's results at a time, waited for, and the
// normal-priority consumer of a lane.
package queuetest

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/queue"
)

// ErrDuplicate: the server dropped a job because a job with the same id
// (Nats-Msg-Id) was stored within the duplicate window. The states of the
// dropped job are NOT queued; when it was a deliberate re-publish of the
// same job, that is what the caller wanted, otherwise it is a collision.
var ErrDuplicate = errors.New("a job with this id is already queued (duplicate window)")

// PublishJob publishes one job and waits for the server to store it. The
// Nats-Msg-Id is the job id, so publishing a job twice within the duplicate
// window stores it once: the second publish returns an error wrapping
// ErrDuplicate, naming the stored message, rather than pass in silence.
func PublishJob(ctx context.Context, js jetstream.JetStream, j job.Job) error {
	subj, data, err := queue.EncodeJob(j)
	if err != nil {
		return err
	}
	ack, err := js.Publish(ctx, subj, data, jetstream.WithMsgID(j.ID), jetstream.WithExpectStream(queue.JobsStream))
	if err != nil {
		return fmt.Errorf("publish job %s: %w", j.ID, err)
	}
	if ack.Duplicate {
		return fmt.Errorf("publish job %s: %w (stored as %s seq %d); its %d states were not queued again",
			j.ID, ErrDuplicate, queue.JobsStream, ack.Sequence, len(j.States))
	}
	return nil
}

// PublishResults publishes the results of one job under the msg id
// "r-"+job id (queue.PublishResultsID) and waits for the server to store
// them.
func PublishResults(ctx context.Context, js jetstream.JetStream, r job.Results) error {
	return queue.PublishResultsID(ctx, js, r, queue.ResultsMsgIDPrefix+r.JobID)
}

// EnsureJobsConsumer returns the consumer of one lane's normal-priority
// jobs (queue.EnsureJobsConsumerAt).
func EnsureJobsConsumer(ctx context.Context, js jetstream.JetStream, c queue.Config, lane job.Lane) (jetstream.Consumer, error) {
	return queue.EnsureJobsConsumerAt(ctx, js, c, lane, job.PriorityNormal)
}
