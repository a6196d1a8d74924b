package queue_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/queue"
)

// keepAcked replaces stream with a limits-retention one on the same
// subjects: it keeps acknowledged messages, as a work-queue stream does
// after a kill -9 of nats-server lost their removal.
func keepAcked(t *testing.T, ctx context.Context, js jetstream.JetStream, stream, subjects string) {
	t.Helper()
	if err := js.DeleteStream(ctx, stream); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{subjects}}); err != nil {
		t.Fatal(err)
	}
}

func publishN(t *testing.T, ctx context.Context, js jetstream.JetStream, subject string, n int) {
	t.Helper()
	for i := range n {
		if _, err := js.Publish(ctx, subject, []byte{byte('a' + i)}); err != nil {
			t.Fatal(err)
		}
	}
}

func ackN(t *testing.T, ctx context.Context, cons jetstream.Consumer, n int) {
	t.Helper()
	for range n {
		ms, err := queue.Fetch(ctx, cons, 1, time.Second)
		if err != nil || len(ms) != 1 {
			t.Fatal(len(ms), err)
		}
		if err := ms[0].DoubleAck(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// Results messages stranded below the writer's ack floor are handed to the
// writer on the second look (as delivered messages whose ack deletes them),
// across an interior deleted sequence; a deliverable message is left to
// the consumer.
func TestStrandedResultsHandedToWriter(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	keepAcked(t, ctx, js, queue.ResultsStream, queue.ResultsSubjects)
	publishN(t, ctx, js, "tessera.results.sliding.3x3", 4) // a b c d
	s, err := js.Stream(ctx, queue.ResultsStream)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMsg(ctx, 2); err != nil {
		t.Fatal(err)
	}
	cons, err := queue.EnsureResultsConsumer(ctx, js, queue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ackN(t, ctx, cons, 2) // a and c: the ack floor is 3
	src, err := queue.NewResultsSource[jetstream.Msg](cons)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	src.SweepStranded(js, 0, func(line string, err error) {
		if err != nil {
			t.Errorf("sweep: %v", err)
		}
		lines = append(lines, line)
	})
	first, err := src.Fetch(ctx, 10, time.Second)
	if err != nil || len(first) != 1 || string(first[0].Data()) != "d" {
		t.Fatalf("first fetch (first look: nothing acted on) = %d msgs, %v; want d", len(first), err)
	}
	second, err := src.Fetch(ctx, 10, time.Second)
	if err != nil || len(second) != 2 || string(second[0].Data()) != "a" || string(second[1].Data()) != "c" {
		t.Fatalf("second fetch = %d msgs, %v: want the stranded a and c", len(second), err)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "2 results messages") || !strings.Contains(lines[0], "sequences 1, 3") {
		t.Errorf("reports %q", lines)
	}
	for _, m := range second {
		if err := m.Ack(); err != nil {
			t.Fatal(err)
		}
	}
	if n := msgs(t, ctx, js, queue.ResultsStream); n != 1 {
		t.Errorf("%s holds %d messages after the stranded ones were acked, want 1 (d, pending)", queue.ResultsStream, n)
	}
	if third, err := src.Fetch(ctx, 10, 200*time.Millisecond); err != nil || len(third) != 0 {
		t.Errorf("third fetch = %d msgs, %v: want none", len(third), err)
	}
}

// A look that hands many stranded messages over reports them in one line,
// and every one of them is handed over (within the fetch's max, the rest
// on the next look).
func TestStrandedResultsOneLinePerLook(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	keepAcked(t, ctx, js, queue.ResultsStream, queue.ResultsSubjects)
	const n = 25
	publishN(t, ctx, js, "tessera.results.sliding.3x3", n)
	cons, err := queue.EnsureResultsConsumer(ctx, js, queue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ackN(t, ctx, cons, n)
	src, err := queue.NewResultsSource[jetstream.Msg](cons)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	src.SweepStranded(js, 0, func(line string, err error) {
		if err != nil {
			t.Errorf("sweep: %v", err)
		}
		lines = append(lines, line)
	})
	if first, err := src.Fetch(ctx, 20, 100*time.Millisecond); err != nil || len(first) != 0 {
		t.Fatalf("first look handed over %d, %v: want none", len(first), err)
	}
	got := map[string]bool{}
	for look := 0; look < 4 && len(got) < n; look++ {
		ms, err := src.Fetch(ctx, 20, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			got[string(m.Data())] = true
			if err := m.Ack(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(got) != n {
		t.Errorf("handed over %d of %d stranded messages", len(got), n)
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "20 results messages") || !strings.Contains(lines[0], "5 more in the next look") ||
		!strings.Contains(lines[1], "5 results messages") {
		t.Errorf("reports %q: want one line per look", lines)
	}
	if m := msgs(t, ctx, js, queue.ResultsStream); m != 0 {
		t.Errorf("%s holds %d messages after every stranded one was acked", queue.ResultsStream, m)
	}
}

// flakyJS answers every get of sequence bad with an error, as 2.9.10's
// filtered get answered "not found" for a message that was there.
type flakyJS struct {
	jetstream.JetStream
	bad uint64
}

func (f flakyJS) Stream(ctx context.Context, name string) (jetstream.Stream, error) {
	s, err := f.JetStream.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return flakyStream{s, f.bad}, nil
}

type flakyStream struct {
	jetstream.Stream
	bad uint64
}

func (f flakyStream) GetMsg(ctx context.Context, seq uint64, opts ...jetstream.GetMsgOpt) (*jetstream.RawStreamMsg, error) {
	if seq == f.bad {
		return nil, errors.New("unreadable")
	}
	return f.Stream.GetMsg(ctx, seq, opts...)
}

// A message that cannot be read is skipped and counted, not the end of the
// sweep: the stranded messages behind it are still found.
func TestBelowAckFloorSkipsUnreadable(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	keepAcked(t, ctx, js, queue.JobsStream, queue.JobsSubjects)
	publishN(t, ctx, js, "tessera.jobs.sliding.3x3", 4)
	cons, err := js.CreateConsumer(ctx, queue.JobsStream, jetstream.ConsumerConfig{Durable: "c",
		AckPolicy: jetstream.AckExplicitPolicy, FilterSubject: "tessera.jobs.*.*"})
	if err != nil {
		t.Fatal(err)
	}
	ackN(t, ctx, cons, 3)
	rep, err := queue.BelowAckFloor(ctx, flakyJS{js, 1}, queue.JobsStream)
	if err == nil || !strings.Contains(err.Error(), "1 messages unreadable") {
		t.Errorf("error %v: want one unreadable message reported", err)
	}
	if len(rep.Msgs) != 2 || rep.Msgs[0].Sequence != 2 || rep.Msgs[1].Sequence != 3 || rep.Unreadable != 1 || rep.Read != 2 {
		t.Fatalf("report: %d msgs, read %d, unreadable %d: want 2 and 3 found behind the unreadable 1", len(rep.Msgs), rep.Read, rep.Unreadable)
	}
}
