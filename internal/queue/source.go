package queue

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/nats-io/nats.go/jetstream"
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
