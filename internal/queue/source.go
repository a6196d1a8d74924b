package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
)

// ResultsSource adapts a pull consumer (the results consumer) to
// ingest.Source: use ResultsSource[ingest.Msg]. It is generic because
// ingest sits above queue in the dependency order, so queue cannot name
// ingest.Msg; M is any interface that jetstream.Msg implements.
type ResultsSource[M any] struct {
	cons  jetstream.Consumer
	sweep *resultsSweep
}

// resultsSweep is the results writer's sweep of TESSERA_RESULTS.
type resultsSweep struct {
	js     jetstream.JetStream
	every  time.Duration
	next   time.Time
	twice  Twice
	report func(line string, err error)
}

// NewResultsSource wraps cons. It fails if jetstream.Msg does not
// implement M.
func NewResultsSource[M any](cons jetstream.Consumer) (*ResultsSource[M], error) {
	want := reflect.TypeFor[M]()
	if want.Kind() != reflect.Interface || !reflect.TypeFor[jetstream.Msg]().Implements(want) {
		return nil, fmt.Errorf("results source: jetstream.Msg does not implement %v", want)
	}
	return &ResultsSource[M]{cons: cons}, nil
}

// SweepStranded makes Fetch look for stranded messages in TESSERA_RESULTS
// (BelowAckFloor) every `every`, and hand those found in two consecutive
// looks to the writer as if delivered: acknowledging one deletes it,
// Nak leaves it for the next look. report is told once per look that
// hands messages over (how many, which) and of sweep errors (nil: none).
//
// Why the writer owns this sweep rather than solverd's dead-letter
// handler: a message below the writer's ack floor was acknowledged after
// its transaction committed, so deleting it outright would be right too,
// but running it once more through the writer's idempotent insert (ON
// CONFLICT DO NOTHING, counts from the rows actually inserted) costs one
// transaction and stays right even if the ack floor ever ran ahead of a
// commit.
func (s *ResultsSource[M]) SweepStranded(js jetstream.JetStream, every time.Duration, report func(line string, err error)) *ResultsSource[M] {
	s.sweep = &resultsSweep{js: js, every: every, report: report}
	return s
}

// Fetch returns up to max messages, waiting at most wait for the first; see
// the package function Fetch. None with a nil error means wait passed.
func (s *ResultsSource[M]) Fetch(ctx context.Context, max int, wait time.Duration) ([]M, error) {
	if sw := s.sweep; sw != nil && !time.Now().Before(sw.next) {
		sw.next = time.Now().Add(sw.every)
		if msgs := sw.find(ctx, max); len(msgs) > 0 {
			out := make([]M, len(msgs))
			for i, m := range msgs {
				out[i] = any(m).(M) // strandedMsg is a jetstream.Msg
			}
			return out, nil
		}
	}
	msgs, err := Fetch(ctx, s.cons, max, wait)
	out := make([]M, len(msgs))
	for i, m := range msgs {
		out[i] = any(m).(M) // checked by NewResultsSource
	}
	return out, err
}

// find is one look for stranded results messages: those found by the
// previous look too, at most max (the rest stay for the next look).
func (sw *resultsSweep) find(ctx context.Context, max int) []strandedMsg {
	rep, err := BelowAckFloor(ctx, sw.js, ResultsStream)
	if err != nil && sw.report != nil && ctx.Err() == nil {
		sw.report("", err)
	}
	again := sw.twice.Again(rep.Msgs)
	if len(again) == 0 {
		return nil
	}
	st, err := sw.js.Stream(ctx, ResultsStream)
	if err != nil {
		if sw.report != nil && ctx.Err() == nil {
			sw.report("", fmt.Errorf("stranded %s: %w", ResultsStream, err))
		}
		return nil
	}
	var out []strandedMsg
	seqs := make([]uint64, 0, min(len(again), max))
	for _, raw := range again[:min(len(again), max)] {
		out = append(out, strandedMsg{s: st, raw: raw})
		seqs = append(seqs, raw.Sequence)
	}
	if sw.report != nil {
		// One line a look, however many it hands over: a whole-cluster
		// crash can strand hundreds.
		line := fmt.Sprintf("%d results messages were stranded in %s below the writer's ack floor "+
			"(acknowledged, never removed: an unclean server stop), sequences %s; written again idempotently, then removed",
			len(out), ResultsStream, SeqList(seqs, 8))
		if len(out) == 1 {
			line = fmt.Sprintf("results message %d (%s) was stranded in %s below the writer's ack floor "+
				"(acknowledged, never removed: an unclean server stop); written again idempotently, then removed",
				seqs[0], again[0].Header.Get(nats.MsgIdHdr), ResultsStream)
		}
		if rest := len(again) - len(out); rest > 0 {
			line += fmt.Sprintf("; %d more in the next look", rest)
		}
		sw.report(line, nil)
	}
	return out
}

// SeqList writes sequences for a log line: all of them up to most, else
// the first most, an ellipsis and the last.
func SeqList(seqs []uint64, most int) string {
	parts := make([]string, 0, min(len(seqs), most)+2)
	for i, s := range seqs {
		if i == most-1 && len(seqs) > most {
			parts = append(parts, "…", strconv.FormatUint(seqs[len(seqs)-1], 10))
			break
		}
		parts = append(parts, strconv.FormatUint(s, 10))
	}
	return strings.Join(parts, ", ")
}

// DeadJobsSource adapts a consumer of TESSERA_DEAD's job copies
// (EnsureDeadCopiesConsumer) to ingest.Source: each message's Data is a
// job.DeadJob in JSON, built from the copy and its headers.
type DeadJobsSource[M any] struct {
	cons jetstream.Consumer
}

// NewDeadJobsSource wraps cons; it fails if jetstream.Msg does not
// implement M.
func NewDeadJobsSource[M any](cons jetstream.Consumer) (*DeadJobsSource[M], error) {
	if _, err := NewResultsSource[M](cons); err != nil {
		return nil, err
	}
	return &DeadJobsSource[M]{cons: cons}, nil
}

// Fetch is ResultsSource.Fetch, with every message's Data a job.DeadJob.
func (s *DeadJobsSource[M]) Fetch(ctx context.Context, max int, wait time.Duration) ([]M, error) {
	msgs, err := Fetch(ctx, s.cons, max, wait)
	out := make([]M, len(msgs))
	for i, m := range msgs {
		seq, _ := strconv.ParseUint(m.Headers().Get(HeaderSeq), 10, 64)
		reason := m.Headers().Get(HeaderReason)
		if reason == "" {
			reason = "copied to " + DeadStream + " without a reason"
		}
		data, _ := json.Marshal(job.DeadJob{Reason: reason, Subject: m.Headers().Get(HeaderSubject), StreamSeq: seq, Data: m.Data()})
		out[i] = any(deadJobMsg{m, data}).(M)
	}
	return out, err
}

type deadJobMsg struct {
	jetstream.Msg
	data []byte
}

func (d deadJobMsg) Data() []byte { return d.data }
