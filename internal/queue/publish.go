package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
)

// EncodeJob returns the subject and payload of j, filling in the wire
// version when it is unset.
func EncodeJob(j job.Job) (subject string, data []byte, err error) {
	if j.ID == "" {
		return "", nil, errors.New("encode job: empty id (it is the Nats-Msg-Id)")
	}
	spec, err := puzzle.ParseSpec(j.Puzzle)
	if err != nil {
		return "", nil, fmt.Errorf("encode job %s: %w", j.ID, err)
	}
	mode, err := result.ParseMode(j.Mode)
	if err != nil {
		return "", nil, fmt.Errorf("encode job %s: %w", j.ID, err)
	}
	if j.V == 0 {
		j.V = job.Version
	}
	data, err = job.MarshalJob(j)
	if err != nil {
		return "", nil, fmt.Errorf("encode job %s: %w", j.ID, err)
	}
	prio, err := job.ParsePriority(string(j.Priority))
	if err != nil {
		return "", nil, fmt.Errorf("encode job %s: %w", j.ID, err)
	}
	return JobSubject(spec, policy.LaneOf(spec, mode, j.Timeout()), prio), data, nil
}

// ResultsMsgID is the Nats-Msg-Id of the results of the job message
// jobData with id jobID: "r-<job id>-<digest of the job message>". The
// same job solved twice (a redelivery, or the dead-letter handler racing a
// late worker) publishes one Results message; two DIFFERENT jobs that
// share an id do not hide each other's results, so the writer sees both
// and records the collision.
func ResultsMsgID(jobID string, jobData []byte) string {
	h := sha256.Sum256(jobData)
	return ResultsMsgIDPrefix + jobID + "-" + hex.EncodeToString(h[:8])
}

// PublishResultsID publishes the results of one job and waits for the
// server to store them, with the Nats-Msg-Id id (ResultsMsgID of the job
// message, so a job solved twice is stored once within the duplicate
// window; the results writer is idempotent beyond it).
//
// Results too large for one message (the server's max payload) are split
// into consecutive ranges, each its own Results message with the msg id
// "<id>@<first seq>"; the split is deterministic, so a retry publishes the
// same messages.
//
// A single result too large for a message on its own loses what makes it
// large rather than never being recorded: its move list first (the row
// becomes budget_exceeded with the length as lower_bound and the reason),
// then a long error text, and as a last resort its state is cut (status
// failed, saying so). See FitResult.
func PublishResultsID(ctx context.Context, js jetstream.JetStream, r job.Results, id string) error {
	if r.JobID == "" {
		return errors.New("publish results: empty job id (it makes the Nats-Msg-Id)")
	}
	if r.V == 0 {
		r.V = job.Version
	}
	limit := int(js.Conn().MaxPayload())
	return publishResults(ctx, js, r, id, limit)
}

// resultsHeadroom leaves room in a message for headers.
const resultsHeadroom = 1024

func publishResults(ctx context.Context, js jetstream.JetStream, r job.Results, id string, limit int) error {
	data, err := job.MarshalResults(r)
	if err != nil {
		return fmt.Errorf("encode results of job %s: %w", r.JobID, err)
	}
	if limit > 0 && len(data)+resultsHeadroom > limit && len(r.Results) == 1 {
		one := r
		one.Results = []result.Result{FitResult(r.Results[0], limit-resultsHeadroom-(len(data)-resultLen(r.Results[0])))}
		if data, err = job.MarshalResults(one); err != nil {
			return fmt.Errorf("encode results of job %s: %w", r.JobID, err)
		}
	}
	if limit > 0 && len(data)+resultsHeadroom > limit && len(r.Results) > 1 {
		h := len(r.Results) / 2
		lo, hi := r, r
		lo.Results, hi.Results = r.Results[:h], r.Results[h:]
		hi.FirstSeq = r.FirstSeq + int64(h)
		base := id + "@"
		if strings.Contains(id, "@") {
			base = id[:strings.LastIndexByte(id, '@')+1]
		}
		if err := publishResults(ctx, js, lo, base+strconv.FormatInt(lo.FirstSeq, 10), limit); err != nil {
			return err
		}
		return publishResults(ctx, js, hi, base+strconv.FormatInt(hi.FirstSeq, 10), limit)
	}
	_, err = js.Publish(ctx, ResultsSubject(r.Puzzle), data, jetstream.WithMsgID(id), jetstream.WithExpectStream(ResultsStream))
	if err != nil {
		return fmt.Errorf("publish results of job %s (%d from seq %d): %w", r.JobID, len(r.Results), r.FirstSeq, err)
	}
	return nil
}

func resultLen(x result.Result) int {
	b, _ := json.Marshal(x)
	return len(b)
}

// FitResult returns x cut to at most room bytes of JSON, dropping first the
// move list (budget_exceeded: the length, which the solver found, becomes
// the lower bound only when it was proved optimal), then the error text
// beyond 1 KB, then the state beyond what fits (failed). Every step says
// what was dropped in Error.
func FitResult(x result.Result, room int) result.Result {
	if resultLen(x) <= room {
		return x
	}
	if x.Moves != "" {
		why := fmt.Sprintf("answer found (%d moves) but its move list of %d bytes does not fit in one results message (NATS max payload); not stored",
			x.Length, len(x.Moves))
		if x.Optimal && x.Length > x.LowerBound {
			x.LowerBound = x.Length
		}
		x.Status, x.Moves, x.Length, x.Optimal = result.StatusBudgetExceeded, "", 0, false
		x.Error = joinReason(why, x.Error)
		if resultLen(x) <= room {
			return x
		}
	}
	const maxError = 1024
	if len(x.Error) > maxError {
		x.Error = strings.ToValidUTF8(x.Error[:maxError], "") + "…"
		if resultLen(x) <= room {
			return x
		}
	}
	over := resultLen(x) - room
	keep := max(0, len(x.State)-over-200)
	x.Error = joinReason(fmt.Sprintf("state of %d bytes too large for a results message; stored cut to %d bytes", len(x.State), keep), x.Error)
	x.State = strings.ToValidUTF8(x.State[:keep], "") + "…"
	x.Status, x.Moves, x.Length, x.Optimal = result.StatusFailed, "", 0, false
	return x
}

func joinReason(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// PublishDeadJob stores a copy of a job message that cannot be turned into
// results (undecodable), with the reason, before the caller terminates it.
func PublishDeadJob(ctx context.Context, js jetstream.JetStream, data []byte, subject string, streamSeq uint64, reason string) error {
	m := nats.NewMsg(DeadJobsSubject)
	m.Data = data
	m.Header.Set(HeaderReason, reason)
	m.Header.Set(HeaderSubject, subject)
	seq := strconv.FormatUint(streamSeq, 10)
	m.Header.Set(HeaderSeq, seq)
	if _, err := js.PublishMsg(ctx, m, jetstream.WithMsgID("dead-"+JobsStream+"-"+seq), jetstream.WithExpectStream(DeadStream)); err != nil {
		return fmt.Errorf("publish dead letter for job message %s: %w", seq, err)
	}
	return nil
}

// Publisher publishes jobs asynchronously with a bounded window of
// publishes awaiting the server's ack, for the producer's throughput. A
// publish that fails is retried with the same Nats-Msg-Id, which the
// duplicate window makes safe. Not safe for concurrent use.
type Publisher struct {
	js     jetstream.JetStream
	window int
	queue  []inflight // FIFO: the oldest publish is waited for first

	// OnAck, when set, is called with the number of states of each job the
	// server has stored (for a progress bar).
	OnAck func(states int)
	// OnDuplicate, when set, is called for each job the server dropped on
	// its FIRST publish because a job with the same id was already stored
	// within the duplicate window: its states are not queued by this
	// publish. (A duplicate on a retry is this Publisher's own earlier
	// attempt, and is not reported.)
	OnDuplicate func(jobID string, states int, storedSeq uint64)
	// OnFull, when set, is called with true when the server first refuses
	// a job because TESSERA_JOBS is full (IsStoreFull), and with false at
	// the next job stored after that: the Publisher waits out a full
	// stream, publishing again with growing delays for as long as ctx
	// lasts, and says so through OnFull once each way.
	OnFull func(full bool)

	full bool
}

type inflight struct {
	f      jetstream.PubAckFuture
	msg    *nats.Msg
	states int
	tries  int
	fulls  int // refusals for a full stream, which tries does not count
}

// publishTries is how many times one job is published before the
// Publisher gives up.
const publishTries = 5

// publishBackoff paces the republishing of a job: 100 ms more per try.
var publishBackoff = backoff.Policy{Min: 100 * time.Millisecond, Max: 5 * time.Second, Linear: true}

// fullBackoff paces the republishing of a job refused by a full stream:
// the solvers free room at their pace, so the wait grows to 5 s.
var fullBackoff = backoff.Policy{Min: 250 * time.Millisecond, Max: 5 * time.Second}

// NewPublisher returns a Publisher keeping at most window publishes in
// flight (256 when window < 1).
func NewPublisher(js jetstream.JetStream, window int) *Publisher {
	if window < 1 {
		window = 256
	}
	return &Publisher{js: js, window: window}
}

// Publish queues j. It blocks while the window is full, returning the
// error of a publish that failed for good.
func (p *Publisher) Publish(ctx context.Context, j job.Job) error {
	subj, data, err := EncodeJob(j)
	if err != nil {
		return err
	}
	m := nats.NewMsg(subj)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, j.ID)
	m.Header.Set(jetstream.ExpectedStreamHeader, JobsStream)
	for len(p.queue) >= p.window {
		if err := p.waitOldest(ctx); err != nil {
			return err
		}
	}
	in := inflight{msg: m, states: len(j.States)}
	if err := p.send(&in); err != nil {
		return err
	}
	p.queue = append(p.queue, in)
	return nil
}

// Flush waits until every queued job is stored.
func (p *Publisher) Flush(ctx context.Context) error {
	for len(p.queue) > 0 {
		if err := p.waitOldest(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (p *Publisher) send(in *inflight) error {
	in.tries++
	f, err := p.js.PublishMsgAsync(in.msg)
	if err != nil {
		return fmt.Errorf("publish job %s: %w", in.msg.Header.Get(jetstream.MsgIDHeader), err)
	}
	in.f = f
	return nil
}

func (p *Publisher) waitOldest(ctx context.Context) error {
	in := &p.queue[0]
	select {
	case ack := <-in.f.Ok():
		if p.full {
			p.full = false
			if p.OnFull != nil {
				p.OnFull(false)
			}
		}
		if ack.Duplicate {
			if in.tries == 1 && p.OnDuplicate != nil {
				p.OnDuplicate(in.msg.Header.Get(jetstream.MsgIDHeader), in.states, ack.Sequence)
			}
		}
		if p.OnAck != nil {
			p.OnAck(in.states)
		}
		p.queue[0] = inflight{}
		p.queue = p.queue[1:]
		return nil
	case err := <-in.f.Err():
		id := in.msg.Header.Get(jetstream.MsgIDHeader)
		if IsStoreFull(err) {
			if !p.full {
				p.full = true
				if p.OnFull != nil {
					p.OnFull(true)
				}
			}
			in.tries-- // not the job's fault: it is sent again as often as it takes
			in.fulls++
			if !backoff.Sleep(ctx, fullBackoff.Delay(in.fulls)) {
				return fmt.Errorf("publish job %s: %s %w; gave up waiting: %w", id, JobsStream, ErrStoreFull, ctx.Err())
			}
			return p.send(in)
		}
		if in.tries >= publishTries {
			return fmt.Errorf("publish job %s: gave up after %d tries: %w", id, in.tries, err)
		}
		// Retrying only the failed message reorders it after later ones;
		// job order carries no meaning, and the msg id keeps it single.
		if !backoff.Sleep(ctx, publishBackoff.Delay(in.tries)) {
			return fmt.Errorf("publish job %s: %w", id, ctx.Err())
		}
		return p.send(in)
	case <-ctx.Done():
		return fmt.Errorf("publish jobs: %w", ctx.Err())
	}
}
