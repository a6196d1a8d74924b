package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// StreamSize is a stream's bytes and byte limit (0: none).
type StreamSize struct {
	Name     string
	Bytes    uint64
	MaxBytes int64
}

// streamsWait bounds the read of the streams' sizes at one scrape.
const streamsWait = 2 * time.Second

var (
	streamBytes = prometheus.NewDesc("tessera_stream_bytes",
		"Bytes a tessera stream holds, as its leader reports them at scrape time.", []string{"stream"}, nil)
	streamMaxBytes = prometheus.NewDesc("tessera_stream_max_bytes",
		"Byte limit of a tessera stream (nats.max_bytes; absent when it has none): a stream at it refuses new messages.", []string{"stream"}, nil)
)

// streams reads the sizes at each scrape: the server holds them, and a
// copy refreshed by a loop would only be older.
type streams struct {
	read func(context.Context) ([]StreamSize, error)
}

func (c streams) Describe(ch chan<- *prometheus.Desc) {
	ch <- streamBytes
	ch <- streamMaxBytes
}

func (c streams) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), streamsWait)
	defer cancel()
	sizes, _ := c.read(ctx) // what was read; a stream that did not answer is absent
	for _, s := range sizes {
		ch <- prometheus.MustNewConstMetric(streamBytes, prometheus.GaugeValue, float64(s.Bytes), s.Name)
		if s.MaxBytes > 0 {
			ch <- prometheus.MustNewConstMetric(streamMaxBytes, prometheus.GaugeValue, float64(s.MaxBytes), s.Name)
		}
	}
}

// WatchStreams exports tessera_stream_bytes and tessera_stream_max_bytes,
// labelled by stream, from read at each scrape, so alerting sees a stream
// near its limit (tessera_stream_bytes / tessera_stream_max_bytes > 0.9).
// A nil m (no /metrics) does nothing; a second call is ignored.
func (m *Solver) WatchStreams(read func(context.Context) ([]StreamSize, error)) error {
	if m == nil || m.reg == nil {
		return nil
	}
	err := m.reg.Register(streams{read: read})
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		return nil
	}
	return err
}
