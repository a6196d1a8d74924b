package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// StreamStats is one work stream as read at a scrape (queue.StreamStats).
type StreamStats struct {
	Name      string
	Answered  bool // false: the stream's leader did not answer; nothing else is set
	Messages  uint64
	Bytes     uint64
	MaxBytes  int64 // 0: none
	Replicas  int
	Current   int
	Consumers []ConsumerStats
}

// ConsumerStats is one durable consumer's backlog.
type ConsumerStats struct {
	Name       string
	Pending    uint64
	AckPending int
}

// streamsWait bounds the read of the streams at one scrape.
const streamsWait = 2 * time.Second

var (
	streamUp = prometheus.NewDesc("tessera_stream_up",
		"1 when the tessera stream's leader answered this scrape, 0 when it did not (no leader elected, or no server reachable).", []string{"stream"}, nil)
	streamMessages = prometheus.NewDesc("tessera_stream_messages",
		"Messages a tessera stream holds, as its leader reports them at scrape time.", []string{"stream"}, nil)
	streamBytes = prometheus.NewDesc("tessera_stream_bytes",
		"Bytes a tessera stream holds, as its leader reports them at scrape time.", []string{"stream"}, nil)
	streamMaxBytes = prometheus.NewDesc("tessera_stream_max_bytes",
		"Byte limit of a tessera stream (nats.max_bytes; absent when it has none): a stream at it refuses new messages.", []string{"stream"}, nil)
	streamReplicas = prometheus.NewDesc("tessera_stream_replicas",
		"Copies a tessera stream is configured to keep (nats.replicas).", []string{"stream"}, nil)
	streamCurrent = prometheus.NewDesc("tessera_stream_replicas_current",
		"Copies of a tessera stream that are current now: its leader and each follower neither offline nor behind.", []string{"stream"}, nil)
	consumerPending = prometheus.NewDesc("tessera_consumer_pending",
		"Messages of a stream that a durable consumer has not delivered yet.", []string{"stream", "consumer"}, nil)
	consumerAckPending = prometheus.NewDesc("tessera_consumer_ack_pending",
		"Messages a durable consumer delivered that are not acknowledged yet (being worked on, or held by a dead worker until ack_wait).", []string{"stream", "consumer"}, nil)
)

// streams reads the streams at each scrape: the server holds the numbers,
// and a copy refreshed by a loop would only be older.
type streams struct {
	read func(context.Context) ([]StreamStats, error)
}

func (c streams) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{streamUp, streamMessages, streamBytes, streamMaxBytes, streamReplicas, streamCurrent, consumerPending, consumerAckPending} {
		ch <- d
	}
}

func (c streams) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), streamsWait)
	defer cancel()
	all, _ := c.read(ctx) // what was read; the streams that did not answer say so in tessera_stream_up
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, s := range all {
		if !s.Answered {
			gauge(streamUp, 0, s.Name)
			continue
		}
		gauge(streamUp, 1, s.Name)
		gauge(streamMessages, float64(s.Messages), s.Name)
		gauge(streamBytes, float64(s.Bytes), s.Name)
		if s.MaxBytes > 0 {
			gauge(streamMaxBytes, float64(s.MaxBytes), s.Name)
		}
		gauge(streamReplicas, float64(s.Replicas), s.Name)
		gauge(streamCurrent, float64(s.Current), s.Name)
		for _, cs := range s.Consumers {
			gauge(consumerPending, float64(cs.Pending), s.Name, cs.Name)
			gauge(consumerAckPending, float64(cs.AckPending), s.Name, cs.Name)
		}
	}
}

// WatchStreams exports, labelled by stream, whether each work stream
// answers (tessera_stream_up), its messages, bytes and byte limit, its
// configured and current copies, and each durable consumer's pending and
// ack-pending messages, from read at each scrape: alerting sees a stream
// near its limit (tessera_stream_bytes / tessera_stream_max_bytes), one
// without a leader or short of a copy, and a backlog that does not move.
// A nil m (no /metrics) does nothing; a second call is ignored.
func (m *Solver) WatchStreams(read func(context.Context) ([]StreamStats, error)) error {
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
