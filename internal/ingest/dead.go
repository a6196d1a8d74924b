package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/store"
)

// RunDeadJobs records the job messages solverd copied to TESSERA_DEAD
// (jobs too malformed to answer with rows) in dead_letters, so that
// `results dead` lists them beside everything else that is not a row. src
// delivers job.DeadJob messages (queue.DeadJobsSource). Each message is
// acked after its letter is committed; recording is idempotent. It returns
// nil when ctx ends or src reports ErrClosed.
func RunDeadJobs(ctx context.Context, src Source, sink Sink, opt Options) error {
	opt.defaults()
	in := New(src, sink, opt)
	for ctx.Err() == nil {
		var msgs []Msg
		err := backoff.Retry(ctx, in.policy(), func() error {
			var err error
			msgs, err = src.Fetch(ctx, 100, opt.FetchWait)
			if errors.Is(err, ErrClosed) {
				return backoff.Permanent(err)
			}
			return err
		}, func(_ int, delay time.Duration, err error) {
			opt.Logger.Warn("fetch dead job copies failed; retrying", "err", err, "delay", delay)
		})
		closed := err != nil && ctx.Err() == nil
		for _, m := range msgs {
			l := DeadJobLetter(m.Data())
			var n int
			if err := in.letters(ctx, []store.DeadLetter{l}, &n); err != nil {
				_ = m.Nak()
				continue
			}
			if n > 0 {
				opt.Logger.Warn("job dead-lettered by solverd", "reason", l.Reason, "job", l.JobID)
			}
			_ = m.Ack()
		}
		if closed {
			return nil
		}
	}
	return nil
}

// DeadJobLetter turns a job.DeadJob message into a dead letter, naming the
// batch, sequence and job id when the original job still says them.
func DeadJobLetter(data []byte) store.DeadLetter {
	var d job.DeadJob
	if err := json.Unmarshal(data, &d); err != nil {
		return store.DeadLetter{Source: store.DeadJobs, Reason: "unreadable copy in TESSERA_DEAD: " + err.Error(),
			Payload: data, Key: "jobs:" + digest(data)}
	}
	l := store.DeadLetter{Source: store.DeadJobs, Reason: d.Reason, Payload: d.Data,
		Key: "jobs:" + strconv.FormatUint(d.StreamSeq, 10) + ":" + digest(d.Data)}
	if d.Subject != "" {
		l.Reason = fmt.Sprintf("%s (subject %s, TESSERA_JOBS seq %d)", d.Reason, d.Subject, d.StreamSeq)
	}
	var j job.Job
	if json.Unmarshal(d.Data, &j) == nil {
		l.JobID = j.ID
		if j.BatchID > 0 {
			l.BatchID = &j.BatchID
			if j.FirstSeq >= 0 {
				l.Seq = &j.FirstSeq
			}
		}
	}
	return l
}
