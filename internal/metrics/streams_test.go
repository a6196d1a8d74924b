package metrics

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// A stream that answered is exported whole; one whose leader did not
// answer only as tessera_stream_up 0 (no stale size), and a stream
// without a byte limit has no tessera_stream_max_bytes.
func TestWatchStreamsExports(t *testing.T) {
	reg := NewRegistry()
	m := NewSolver(reg)
	read := func(context.Context) ([]StreamStats, error) {
		return []StreamStats{
			{Name: "TESSERA_JOBS", Answered: true, Messages: 7, Bytes: 700, MaxBytes: 1000, Replicas: 3, Current: 2,
				Consumers: []ConsumerStats{{Name: "solverd", Pending: 5, AckPending: 2}}},
			{Name: "TESSERA_RESULTS", Answered: false},
			{Name: "TESSERA_DEAD", Answered: true, Replicas: 1, Current: 1},
		}, errors.New("stream TESSERA_RESULTS: context deadline exceeded")
	}
	if err := m.WatchStreams(read); err != nil {
		t.Fatal(err)
	}
	if err := m.WatchStreams(read); err != nil {
		t.Errorf("a second watch: %v", err)
	}
	rec := httptest.NewRecorder()
	Handler(reg).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var got []string
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(l, "tessera_stream_") || strings.HasPrefix(l, "tessera_consumer_") {
			got = append(got, l)
		}
	}
	want := []string{
		`tessera_consumer_ack_pending{consumer="solverd",stream="TESSERA_JOBS"} 2`,
		`tessera_consumer_pending{consumer="solverd",stream="TESSERA_JOBS"} 5`,
		`tessera_stream_bytes{stream="TESSERA_DEAD"} 0`,
		`tessera_stream_bytes{stream="TESSERA_JOBS"} 700`,
		`tessera_stream_max_bytes{stream="TESSERA_JOBS"} 1000`,
		`tessera_stream_messages{stream="TESSERA_DEAD"} 0`,
		`tessera_stream_messages{stream="TESSERA_JOBS"} 7`,
		`tessera_stream_replicas{stream="TESSERA_DEAD"} 1`,
		`tessera_stream_replicas{stream="TESSERA_JOBS"} 3`,
		`tessera_stream_replicas_current{stream="TESSERA_DEAD"} 1`,
		`tessera_stream_replicas_current{stream="TESSERA_JOBS"} 2`,
		`tessera_stream_up{stream="TESSERA_DEAD"} 1`,
		`tessera_stream_up{stream="TESSERA_JOBS"} 1`,
		`tessera_stream_up{stream="TESSERA_RESULTS"} 0`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("exported:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// tessera_ready follows the readiness check at each scrape.
func TestReady(t *testing.T) {
	reg := NewRegistry()
	var fail error
	NewReady(reg, func(context.Context) error { return fail })
	for _, c := range []struct {
		err  error
		want float64
	}{{nil, 1}, {errors.New("not connected to NATS"), 0}, {nil, 1}} {
		fail = c.err
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := -1.0
		for _, mf := range mfs {
			if mf.GetName() == "tessera_ready" {
				got = mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		if got != c.want {
			t.Errorf("ready error %v: tessera_ready %v, want %v", c.err, got, c.want)
		}
	}
}
