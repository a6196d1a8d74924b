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
	"github.com/tessera-solver/tessera/internal/search"
)

// deadRetry is the redelivery delay of an advisory whose handling failed
// (NATS or the jobs stream briefly unavailable).
const deadRetry = 5 * time.Second

// RecordExhausted runs until ctx is cancelled, turning every
// MAX_DELIVERIES advisory of TESSERA_JOBS (captured in TESSERA_DEAD) into
// failed results for the job's whole range, then deleting the job message:
// on a work-queue stream a message that exhausted its deliveries would
// otherwise stay forever, and its states would never get a row. Any
// number of processes may run it; they share one durable consumer. It also
// sweeps TESSERA_JOBS for stranded messages every StrandedEvery
// (Stranded.SweepStranded).
//
// The failed results carry the job's results msg id, so when a slow worker
// did finish the job after all, whichever Results message came first is
// the one kept.
func RecordExhausted(ctx context.Context, js jetstream.JetStream, c queue.Config, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("dead letters: %w", err)
	}
	var (
		cons jetstream.Consumer
		jobs jetstream.Stream
	)
	err := setUp(ctx, log, "dead letters", func() error {
		var err error
		if cons, err = queue.EnsureDeadConsumer(ctx, js, c); err != nil {
			return err
		}
		if jobs, err = js.Stream(ctx, queue.JobsStream); err != nil {
			return fmt.Errorf("stream %s: %w", queue.JobsStream, err)
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // stopped while setting up
		}
		return fmt.Errorf("dead letters: %w", err)
	}
	swept := make(chan struct{})
	go func() { defer close(swept); sweepLoop(ctx, js, log) }()
	defer func() { <-swept }()
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
	ctx, cancel := context.WithTimeout(ctx, queue.PublishTimeout)
	defer cancel()
	raw, err := jobs.GetMsg(ctx, adv.StreamSeq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		// Acknowledged late by its worker, or already recorded.
		return nil
	}
	if err != nil {
		return fmt.Errorf("job message %d: %w", adv.StreamSeq, err)
	}
	d := decodeJob(raw.Data, search.Budget{}) // classified only: no budget is granted here
	if d.dead != "" {
		reason := fmt.Sprintf("exhausted %d deliveries; %s", adv.Deliveries, d.dead)
		if err := queue.PublishDeadJob(ctx, js, raw.Data, raw.Subject, adv.StreamSeq, reason); err != nil {
			return err
		}
	} else {
		reason := fmt.Sprintf("job %s gave up after %d deliveries: its workers crashed, hung or failed each time", d.job.ID, adv.Deliveries)
		res := uniform(d.job, result.StatusFailed, reason)
		for i := range res.Results {
			res.Results[i].Attempts = int(adv.Deliveries)
		}
		storable(&res)
		// Same msg id as the worker's results: whichever comes first is kept.
		if err := queue.PublishResultsID(ctx, js, res, queue.ResultsMsgID(d.job.ID, raw.Data)); err != nil {
			return err
		}
	}
	if err := jobs.DeleteMsg(ctx, adv.StreamSeq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("delete exhausted job message %d: %w", adv.StreamSeq, err)
	}
	return nil
}

// StrandedEvery is how often the dead-letter handler looks for stranded
// job messages (see SweepStranded).
const StrandedEvery = queue.StrandedEvery

// Stranded tracks job messages that were below their consumer's ack floor
// at the last sweep: only those seen twice are acted on, so a message that
// was just acked (and is being removed) is never mistaken for one.
type Stranded struct {
	twice queue.Twice
}

// SweepStranded finds job messages that stay in TESSERA_JOBS although
// their consumer has acknowledged past them (queue.BelowAckFloor: after a
// kill -9 of nats-server the consumer's ack floor can be persisted while
// the work-queue removal of the acked messages is lost, and such a message
// is never delivered again). A message found in this sweep and the
// previous one is answered like an exhausted job (failed results under the
// job's results msg id, or a dead-letter copy if it is malformed) and
// deleted. The writer keeps any row already stored for it (same state: a
// no-op), so states that were solved keep their answers and only lost ones
// are recorded failed. It returns a line per message it removed; a message
// it cannot read or answer is skipped (and tried again next sweep), never
// the end of the sweep.
func (s *Stranded) SweepStranded(ctx context.Context, js jetstream.JetStream) ([]string, error) {
	found, ferr := queue.BelowAckFloor(ctx, js, queue.JobsStream)
	if ctx.Err() != nil {
		return nil, ferr
	}
	jobs, err := js.Stream(ctx, queue.JobsStream)
	if err != nil {
		return nil, fmt.Errorf("stranded jobs: %w", err)
	}
	var report []string
	var errs []error
	if ferr != nil {
		errs = append(errs, ferr)
	}
	for _, raw := range s.twice.Again(found.Msgs) {
		line, err := answerStranded(ctx, js, jobs, raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("stranded job message %d: %w", raw.Sequence, err))
			continue // found again next sweep, and answered then
		}
		report = append(report, line)
	}
	return report, errors.Join(errs...)
}

func answerStranded(ctx context.Context, js jetstream.JetStream, jobs jetstream.Stream, raw *jetstream.RawStreamMsg) (string, error) {
	d := decodeJob(raw.Data, search.Budget{}) // classified only: no budget is granted here
	why := fmt.Sprintf("job message %d was stranded in %s below its consumer's ack floor (acknowledged, never removed: an unclean server stop)", raw.Sequence, queue.JobsStream)
	var line string
	if d.dead != "" {
		if err := queue.PublishDeadJob(ctx, js, raw.Data, raw.Subject, raw.Sequence, why+"; "+d.dead); err != nil {
			return "", err
		}
		line = why + "; copied to " + queue.DeadStream + ": " + d.dead
	} else {
		res := uniform(d.job, result.StatusFailed, why+"; no answer was recorded for this state (results requeue runs it again)")
		storable(&res)
		if err := queue.PublishResultsID(ctx, js, res, queue.ResultsMsgID(d.job.ID, raw.Data)); err != nil {
			return "", err
		}
		line = fmt.Sprintf("%s; removed: job %s, batch %d seq %d..%d keep their stored rows, any state without one is recorded failed",
			why, d.job.ID, d.job.BatchID, d.job.FirstSeq, d.job.FirstSeq+int64(len(d.job.States))-1)
	}
	if err := jobs.DeleteMsg(ctx, raw.Sequence); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return "", err
	}
	return line, nil
}

// sweepLoop runs SweepStranded every StrandedEvery until ctx ends,
// logging what each look removed and what it could not, one line each
// however many messages there were: a whole-cluster crash strands
// hundreds.
func sweepLoop(ctx context.Context, js jetstream.JetStream, log *slog.Logger) {
	var s Stranded
	t := time.NewTicker(StrandedEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		lines, err := s.SweepStranded(ctx, js)
		if err != nil && ctx.Err() == nil {
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			log.Warn("dead letters: stranded-job sweep failed (tried again next look)", "errors", len(errs), "first", errs[0])
		}
		if len(lines) > 0 {
			log.Warn("dead letters: stranded job messages answered and removed", "messages", len(lines), "first", lines[0])
		}
	}
}

// setUpPatience bounds how long set-up calls are retried: long enough for
// a cluster to elect leaders after losing or restarting a node (seconds),
// short enough that a server that keeps refusing shows as a failure to
// whatever supervises the process.
const setUpPatience = 2 * time.Minute

// setUp runs f, retrying failures for up to setUpPatience: on a cluster
// that is electing a leader, creating or reading a consumer times out for
// a few seconds, and giving up at once would end the whole solverd (seen
// in the rolling-restart fault scenario on nats-server 2.9.10). A replica
// count the cluster cannot place, and a consumer from before the lanes,
// are not retried: only the operator can fix them.
func setUp(ctx context.Context, log *slog.Logger, what string, f func() error) error {
	pctx, cancel := context.WithTimeout(ctx, setUpPatience)
	defer cancel()
	return backoff.Retry(pctx, pullBackoff, func() error {
		err := f()
		if errors.Is(err, queue.ErrReplicas) || errors.Is(err, queue.ErrPreLanesConsumer) {
			return backoff.Permanent(err)
		}
		return err
	}, func(_ int, delay time.Duration, err error) {
		log.Warn(what+": set-up failed, retrying", "err", err, "delay", delay)
	})
}
