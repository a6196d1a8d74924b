package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/queue"
)

// batchJobs describes the jobs of one batch.
type batchJobs struct {
	batch  int64
	puzzle string // canonical spec
	mode   string
	budget job.Budget // per state, as the producer's flags asked
	chunk  int
	goal   string // swap boards: explicit target, "" for the standard one
	split  bool   // every state a split search (producer --split)
	prio   job.Priority
	// maxBytes bounds the states of one job message, in JSON bytes (0: no
	// bound): the server refuses a message over its max payload, and one
	// refused job must not fail the whole enqueue.
	maxBytes int
	// oversize is called for a state whose JSON alone exceeds maxBytes,
	// with its seq: it returns a shorter text meaning the same state to
	// enqueue instead, or "" when the state was refused (and recorded).
	oversize func(seq int64, text string) (string, error)
	// onDuplicate sees a job the server dropped because a job with its id
	// was already queued (queue.Publisher.OnDuplicate).
	onDuplicate func(jobID string, states int, storedSeq uint64)
	// from is where a resumed enqueue starts: states before it are skipped.
	from int64
	// onStored sees, after each job the server stored, the sequence number
	// before which every state is stored (jobs are acknowledged in order).
	onStored func(upTo int64)
	// onFull hears when TESSERA_JOBS starts and stops refusing jobs for
	// being full (queue.Publisher.OnFull); enqueue waits meanwhile.
	onFull func(full bool)
}

// jobOverhead is room kept in a job message for its other fields and headers.
const jobOverhead = 2048

// jsonLen is the length of text as a JSON string.
func jsonLen(text string) int {
	return job.StringLen(text) + 1 // and a comma
}

// enqueue publishes every state of src as jobs of b.chunk consecutive
// states (job id "<batch>-<first seq>", also the Nats-Msg-Id, so running
// it again publishes nothing new within the duplicate window), keeping
// window publishes in flight. onAck sees the number of states of each job
// stored. It returns the number of states enqueued.
func enqueue(ctx context.Context, js jetstream.JetStream, b batchJobs, src states, window int, onAck func(int)) (int64, error) {
	p := queue.NewPublisher(js, window)
	var ends []int64 // end seq of each job in flight, in publish order
	p.OnAck = func(k int) {
		end := ends[0]
		ends = ends[1:]
		if onAck != nil {
			onAck(k)
		}
		if b.onStored != nil {
			b.onStored(end)
		}
	}
	p.OnDuplicate = b.onDuplicate
	p.OnFull = b.onFull
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
			FirstSeq: first, States: buf, Mode: b.mode, Budget: b.budget, Goal: b.goal,
			Split: b.split, Priority: b.prio,
		}
		ends = append(ends, first+int64(len(buf)))
		if err := p.Publish(ctx, j); err != nil {
			return err
		}
		// The Publisher holds the encoded message, not the slice.
		buf = make([]string, 0, b.chunk)
		first = seq
		return nil
	}
	size := 0
	err := src.each(func(text string) error {
		if seq < b.from { // stored by the run this one resumes
			seq++
			first = seq
			return nil
		}
		if b.maxBytes > 0 {
			n := jsonLen(text)
			if n > b.maxBytes && b.oversize != nil {
				short, err := b.oversize(seq, text)
				if err != nil {
					return err
				}
				if short == "" || jsonLen(short) > b.maxBytes {
					// Refused and recorded: the job ranges skip its seq.
					if err := flush(); err != nil {
						return err
					}
					size = 0
					seq++
					first = seq
					return nil
				}
				text, n = short, jsonLen(short)
			}
			if len(buf) > 0 && size+n > b.maxBytes {
				if err := flush(); err != nil {
					return err
				}
				size = 0
			}
			size += n
		}
		buf = append(buf, text)
		seq++
		if len(buf) == b.chunk {
			size = 0
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

// fullNotice tells the operator that TESSERA_JOBS is full and the
// producer waits, in one line, repeated at most every fullEvery while the
// stream keeps filling up (it fills again each time the solvers have
// taken a few jobs).
type fullNotice struct {
	w    io.Writer
	last time.Time
}

// fullEvery spaces the repetitions of the full-stream line.
const fullEvery = 30 * time.Second

func (n *fullNotice) onFull(full bool) {
	if !full || !n.last.IsZero() && time.Since(n.last) < fullEvery {
		return
	}
	n.last = time.Now()
	fmt.Fprintf(n.w, "producer: %s is full (its byte limit, nats.max_bytes): waiting for the solvers to take jobs\n", queue.JobsStream)
}

// pollEvery is how often --wait reads the batch's progress.
var pollEvery = 200 * time.Millisecond

// localPollEvery is pollEvery for a batch of the local pipeline.
const localPollEvery = 50 * time.Millisecond
