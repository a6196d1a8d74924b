package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tessera-solver/tessera/internal/result"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/queue"
)

// deadRetry is the redelivery delay of an advisory whose handling failed
// (NATS or the jobs stream briefly unavailable).
const deadRetry = 5 * time.Second

// RecordExhausted runs until ctx is cancelled, turning every
// MAX_DELIVERIES advisory of TESSERA_JOBS (captured in TESSERA_DEAD) into
// failed results for the job's whole range, then deleting the job message:
// on a work-queue stream a message that exhausted its deliveries would
// otherwise stay forever, and its states would never get a row. Any
// number of processes may run it; they share one durable consumer.
//
// The failed results carry the job's results msg id, so when a slow worker
// did finish the job after all, whichever Results message came first is
// the one kept.
func RecordExhausted(ctx context.Context, js jetstream.JetStream, c queue.Config, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	cons, err := queue.EnsureDeadConsumer(ctx, js, c)
	if err != nil {
		return fmt.Errorf("dead letters: %w", err)
	}
	jobs, err := js.Stream(ctx, queue.JobsStream)
	if err != nil {
		return fmt.Errorf("dead letters: stream %s: %w", queue.JobsStream, err)
	}
	for ctx.Err() == nil {
		var msgs []jetstream.Msg
		err := backoff.Retry(ctx, pullBackoff, func() error {
			var err error
			msgs, err = queue.Fetch(ctx, cons, 16, 2*time.Second)
			return err
		}, func(_ int, _ time.Duration, err error) {
			log.Warn("dead letters: pull failed", "err", err)
			if again, cerr := queue.EnsureDeadConsumer(ctx, js, c); cerr == nil {
				cons = again // it may have been deleted
			}
		})
		if err != nil {
			break // Retry gives up only when ctx ended
		}
		for _, m := range msgs {
			if err := recordOne(ctx, js, jobs, m); err != nil {
				log.Warn("dead letters: advisory handling failed, retrying", "err", err)
				if nerr := m.NakWithDelay(deadRetry); nerr != nil {
					log.Warn("dead letters: nak failed", "err", nerr)
				}
				continue
			}
			if err := m.Ack(); err != nil {
				log.Warn("dead letters: ack failed (the advisory will be handled again, harmlessly)", "err", err)
			}
		}
	}
	return ctx.Err()
}

// recordOne handles one advisory. A nil error means the advisory is done
// with (acked by the caller).
func recordOne(ctx context.Context, js jetstream.JetStream, jobs jetstream.Stream, m jetstream.Msg) error {
	var adv queue.MaxDeliveriesAdvisory
	if err := json.Unmarshal(m.Data(), &adv); err != nil {
		// Not an advisory we can read; the copy stays in TESSERA_DEAD.
		return nil
	}
	if adv.Stream != queue.JobsStream || adv.StreamSeq == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	raw, err := jobs.GetMsg(ctx, adv.StreamSeq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		// Acknowledged late by its worker, or already recorded.
		return nil
	}
	if err != nil {
		return fmt.Errorf("job message %d: %w", adv.StreamSeq, err)
	}
	d := decodeJob(raw.Data)
	if d.dead != "" {
		reason := fmt.Sprintf("exhausted %d deliveries; %s", adv.Deliveries, d.dead)
		if err := queue.PublishDeadJob(ctx, js, raw.Data, raw.Subject, adv.StreamSeq, reason); err != nil {
			return err
		}
	} else {
		reason := fmt.Sprintf("job %s gave up after %d deliveries: its workers crashed, hung or failed each time", d.job.ID, adv.Deliveries)
		res := uniform(d.job, result.StatusFailed, reason)
		storable(&res)
		if err := queue.PublishResults(ctx, js, res); err != nil {
			return err
		}
	}
	if err := jobs.DeleteMsg(ctx, adv.StreamSeq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("delete exhausted job message %d: %w", adv.StreamSeq, err)
	}
	return nil
}
