package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
)

// ResultsSource adapts a pull consumer (the results consumer) to
// ingest.Source: use ResultsSource[ingest.Msg]. It is generic because
// ingest sits above queue in the dependency order, so queue cannot name
// ingest.Msg; M is any interface that jetstream.Msg implements.
type ResultsSource[M any] struct {
	cons jetstream.Consumer
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

// Fetch returns up to max messages, waiting at most wait for the first; see
// the package function Fetch. None with a nil error means wait passed.
func (s *ResultsSource[M]) Fetch(ctx context.Context, max int, wait time.Duration) ([]M, error) {
	msgs, err := Fetch(ctx, s.cons, max, wait)
	out := make([]M, len(msgs))
	for i, m := range msgs {
		out[i] = any(m).(M) // checked by NewResultsSource
	}
	return out, err
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
