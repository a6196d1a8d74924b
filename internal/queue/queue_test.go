package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/ingest"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/result"
)

func setup(t testing.TB, c queue.Config) (context.Context, jetstream.JetStream) {
	t.Helper()
	_, nc := natstest.Server(t)
	return streamsOn(t, nc, c)
}

// streamsOn ensures c's streams over nc and returns a context of 30 s,
// cancelled at t's end, and the JetStream client.
func streamsOn(t testing.TB, nc *nats.Conn, c queue.Config) (context.Context, jetstream.JetStream) {
	t.Helper()
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := queue.EnsureStreams(ctx, js, c); err != nil {
		t.Fatalf("ensure streams: %v", err)
	}
	return ctx, js
}

func msgs(t *testing.T, ctx context.Context, js jetstream.JetStream, stream string) uint64 {
	t.Helper()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

func testJob(batch, seq int64, states ...string) job.Job {
	return job.Job{ID: fmt.Sprintf("%d-%d", batch, seq), BatchID: batch, Puzzle: "sliding:3x3", FirstSeq: seq, States: states, Mode: "optimal"}
}

func TestEnsureStreamsIdempotent(t *testing.T) {
	c := queue.DefaultConfig()
	ctx, js := setup(t, c)
	// A second process starting with the same config must not fail.
	if err := queue.EnsureStreams(ctx, js, c); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
			if _, err := queuetest.EnsureJobsConsumer(ctx, js, c, lane); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := queue.EnsureResultsConsumer(ctx, js, c); err != nil {
			t.Fatal(err)
		}
		if _, err := queue.EnsureDeadConsumer(ctx, js, c); err != nil {
			t.Fatal(err)
		}
	}
	s, err := js.Stream(ctx, queue.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	if cfg.Retention != jetstream.WorkQueuePolicy || cfg.Storage != jetstream.FileStorage || cfg.Duplicates != c.DuplicateWindow {
		t.Errorf("jobs stream config: %+v", cfg)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := queue.DefaultConfig()
	if err := ok.Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	bad := []func(*queue.Config){
		func(c *queue.Config) { c.MaxDeliver = 0 },
		func(c *queue.Config) { c.MaxDeliver = 2 }, // 4 backoff entries
		func(c *queue.Config) { c.BackOff = []time.Duration{time.Second, 0} },
		func(c *queue.Config) { c.DuplicateWindow = 0 },
		func(c *queue.Config) { c.AckWait = -1 },
		func(c *queue.Config) { c.MaxAckPending = 0 },
		func(c *queue.Config) { c.Replicas = 0 },
	}
	for i, f := range bad {
		c := queue.DefaultConfig()
		f(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("case %d: invalid config %+v accepted", i, c)
		}
	}
}

func TestAckDeadline(t *testing.T) {
	cc := jetstream.ConsumerConfig{AckWait: 7 * time.Second}
	if got := queue.AckDeadline(cc, 3); got != 7*time.Second {
		t.Errorf("no backoff: %v", got)
	}
	cc.BackOff = []time.Duration{time.Second, 2 * time.Second}
	for n, want := range map[uint64]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 9: 2 * time.Second} {
		if got := queue.AckDeadline(cc, n); got != want {
			t.Errorf("delivery %d: %v, want %v", n, got, want)
		}
	}
}

func TestSubjects(t *testing.T) {
	lo45 := puzzle.Spec{Kind: puzzle.Loopover, Rows: 4, Cols: 5}
	for _, tc := range []struct {
		lane job.Lane
		prio job.Priority
		want string
	}{
		{job.LaneHeavy, job.PriorityHigh, "tessera.jobs.high.heavy.loopover.4x5"},
		{job.LaneQuick, job.PriorityLow, "tessera.jobs.low.quick.loopover.4x5"},
		{job.LaneQuick, "", "tessera.jobs.quick.loopover.4x5"},
	} {
		if got := queue.JobSubject(lo45, tc.lane, tc.prio); got != tc.want {
			t.Errorf("JobSubject(%s, %s) = %s, want %s", tc.lane, tc.prio, got, tc.want)
		}
	}
	if got := queue.JobSubject(lo45, job.LaneHeavy, job.PriorityNormal); got != "tessera.jobs.loopover.4x5" {
		t.Errorf("JobSubject: %s", got)
	}
	if got := queue.JobSubject(lo45, job.LaneQuick, job.PriorityNormal); got != "tessera.jobs.quick.loopover.4x5" {
		t.Errorf("JobSubject: %s", got)
	}
	if got := queue.ResultsSubject("15"); got != "tessera.results.sliding.4x4" {
		t.Errorf("ResultsSubject: %s", got)
	}
	if got := queue.ResultsSubject("cube:3"); got != "tessera.results.unknown" {
		t.Errorf("ResultsSubject of a bad puzzle: %s", got)
	}
}

func TestEncodeJobRejects(t *testing.T) {
	if _, _, err := queue.EncodeJob(job.Job{Puzzle: "8"}); err == nil {
		t.Error("job without id accepted")
	}
	if _, _, err := queue.EncodeJob(job.Job{ID: "1-0", Puzzle: "cube:3x3"}); err == nil {
		t.Error("job with unknown puzzle accepted")
	}
	if _, _, err := queue.EncodeJob(job.Job{ID: "1-0", Puzzle: "8", Mode: "quickly"}); err == nil {
		t.Error("job with unknown mode accepted")
	}
	subj, data, err := queue.EncodeJob(testJob(1, 0, "1 2 3/4 5 6/7 8 0"))
	if err != nil {
		t.Fatal(err)
	}
	var back job.Job
	if err := json.Unmarshal(data, &back); err != nil || back.V != job.Version || subj != "tessera.jobs.quick.sliding.3x3" {
		t.Errorf("encoded %s %s: %v", subj, data, err)
	}
}

// The same job published three times (a producer retry) is stored once;
// the same results published three times (a job solved three times) too.
func TestPublishDeduplicates(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	j := testJob(7, 100, "1 2 3/4 5 6/7 0 8")
	if err := queuetest.PublishJob(ctx, js, j); err != nil {
		t.Fatal(err)
	}
	// The same id again is dropped by the server, and says so.
	other := testJob(7, 200, "1 2 3/4 5 6/0 7 8")
	other.ID = j.ID
	for _, again := range []job.Job{j, other} {
		if err := queuetest.PublishJob(ctx, js, again); !errors.Is(err, queuetest.ErrDuplicate) || !strings.Contains(err.Error(), "seq 1") {
			t.Fatalf("duplicate publish: %v", err)
		}
	}
	r := job.Results{JobID: j.ID, BatchID: 7, Puzzle: j.Puzzle, FirstSeq: 100,
		Results: []result.Result{{Puzzle: j.Puzzle, State: j.States[0], Status: result.StatusSolved, Moves: "L", Length: 1}}}
	for range 3 {
		if err := queuetest.PublishResults(ctx, js, r); err != nil {
			t.Fatal(err)
		}
	}
	if n := msgs(t, ctx, js, queue.JobsStream); n != 1 {
		t.Errorf("jobs stream holds %d messages, want 1", n)
	}
	if n := msgs(t, ctx, js, queue.ResultsStream); n != 1 {
		t.Errorf("results stream holds %d messages, want 1", n)
	}
	if err := queuetest.PublishResults(ctx, js, job.Results{}); err == nil {
		t.Error("results without a job id accepted")
	}
}

func TestPublisherWindow(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	p := queue.NewPublisher(js, 8)
	states, jobs, dups := 0, 0, 0
	p.OnAck = func(n int) { states += n; jobs++ }
	p.OnDuplicate = func(string, int, uint64) { dups++ }
	const n = 200
	for i := range n {
		if err := p.Publish(ctx, testJob(3, int64(2*i), "a", "b")); err != nil {
			t.Fatal(err)
		}
	}
	// Half of them again: duplicates, stored once.
	for i := range n / 2 {
		if err := p.Publish(ctx, testJob(3, int64(2*i), "a", "b")); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if jobs != n+n/2 || dups != n/2 || states != 2*(n+n/2) {
		t.Errorf("acked %d jobs (%d duplicates, %d states), want %d (%d, %d)", jobs, dups, states, n+n/2, n/2, 2*(n+n/2))
	}
	if got := msgs(t, ctx, js, queue.JobsStream); got != n {
		t.Errorf("jobs stream holds %d messages, want %d", got, n)
	}
}

func TestFetchReturnsEarly(t *testing.T) {
	c := queue.DefaultConfig()
	ctx, js := setup(t, c)
	cons, err := queuetest.EnsureJobsConsumer(ctx, js, c, job.LaneQuick) // testJob's 8-puzzles
	if err != nil {
		t.Fatal(err)
	}
	// Nothing there: an empty answer, no error.
	got, err := queue.Fetch(ctx, cons, 10, 50*time.Millisecond)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty stream: %d messages, %v", len(got), err)
	}
	for i := range 3 {
		if err := queuetest.PublishJob(ctx, js, testJob(1, int64(i), "x")); err != nil {
			t.Fatal(err)
		}
	}
	// Three available, ten asked for: each call returns what is ready
	// (a no-wait pull may hand over fewer than are stored) without waiting
	// out the (long) wait. A regression would hang here for a minute.
	for total := 0; total < 3; {
		got, err = queue.Fetch(ctx, cons, 10, time.Minute)
		if err != nil || len(got) == 0 || total+len(got) > 3 {
			t.Fatalf("got %d messages after %d, %v; want 3 in all", len(got), total, err)
		}
		total += len(got)
		for _, m := range got {
			if err := m.Ack(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A single pull takes exactly one.
	for i := range 2 {
		if err := queuetest.PublishJob(ctx, js, testJob(2, int64(i), "x")); err != nil {
			t.Fatal(err)
		}
	}
	got, err = queue.Fetch(ctx, cons, 1, time.Minute)
	if err != nil || len(got) != 1 {
		t.Fatalf("single pull: %d messages, %v", len(got), err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := queue.Fetch(cancelled, cons, 1, time.Second); err == nil {
		t.Error("fetch with a cancelled context succeeded")
	}
}

// The facts the dead-letter path is built on: a job that exhausts
// MaxDeliver stays in the work-queue stream, and the server's advisory is
// captured in TESSERA_DEAD with the job's stream sequence.
func TestMaxDeliveriesAdvisoryCaptured(t *testing.T) {
	c := queue.DefaultConfig()
	c.MaxDeliver = 2
	c.BackOff = []time.Duration{50 * time.Millisecond}
	ctx, js := setup(t, c)
	cons, err := queuetest.EnsureJobsConsumer(ctx, js, c, job.LaneQuick) // testJob's 8-puzzles
	if err != nil {
		t.Fatal(err)
	}
	dead, err := queue.EnsureDeadConsumer(ctx, js, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := queuetest.PublishJob(ctx, js, testJob(1, 0, "x")); err != nil {
		t.Fatal(err)
	}
	var adv queue.MaxDeliveriesAdvisory
	for deliveries := 0; adv.StreamSeq == 0; {
		// Never ack: let the ack deadline pass each time.
		got, err := queue.Fetch(ctx, cons, 1, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		deliveries += len(got)
		if deliveries > c.MaxDeliver {
			t.Fatalf("delivered %d times with MaxDeliver %d", deliveries, c.MaxDeliver)
		}
		ads, err := queue.Fetch(ctx, dead, 1, 10*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ads {
			if err := json.Unmarshal(m.Data(), &adv); err != nil {
				t.Fatal(err)
			}
			if err := m.Ack(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if adv.Stream != queue.JobsStream || adv.Consumer != queue.QuickConsumer || adv.StreamSeq != 1 || adv.Deliveries != uint64(c.MaxDeliver) {
		t.Errorf("advisory %+v", adv)
	}
	if n := msgs(t, ctx, js, queue.JobsStream); n != 1 {
		t.Errorf("jobs stream holds %d messages after max deliveries, want 1 (the fact the handler relies on)", n)
	}
}

func TestDeadJobCopy(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	if err := queue.PublishDeadJob(ctx, js, []byte("{junk"), "tessera.jobs.sliding.3x3", 42, "not JSON"); err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, queue.DeadStream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(ctx, queue.DeadJobsSubject)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Data) != "{junk" || m.Header.Get(queue.HeaderReason) != "not JSON" || m.Header.Get(queue.HeaderSeq) != "42" {
		t.Errorf("dead copy %q %v", m.Data, m.Header)
	}
}

// stopAtEnd closes nc and stops s, waiting for it, at t's end.
func stopAtEnd(t *testing.T, s *server.Server, nc *nats.Conn) {
	t.Cleanup(func() {
		nc.Close()
		s.Shutdown()
		s.WaitForShutdown()
	})
}

func TestStartEmbedded(t *testing.T) {
	s, nc, err := queue.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, s, nc)
	if s.Addr() != nil {
		t.Errorf("embedded server listens on %v", s.Addr())
	}
	ctx, js := streamsOn(t, nc, queue.DefaultConfig())
	if err := queuetest.PublishJob(ctx, js, testJob(1, 0, "x")); err != nil {
		t.Fatal(err)
	}
}

func TestStartServerListening(t *testing.T) {
	s, nc, err := queue.StartServer(queue.ServerOptions{StoreDir: t.TempDir(), Listen: true})
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, s, nc)
	// Another client reaches it over TCP on the random port.
	other, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	if s.ClientURL() == nats.DefaultURL {
		t.Error("listening server took the default port")
	}
}

func TestWithDeliveries(t *testing.T) {
	c := queue.WithDeliveries(5, 30*time.Second)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := queue.DefaultConfig().BackOff
	if fmt.Sprint(c.BackOff) != fmt.Sprint(want) || c.MaxDeliver != 5 {
		t.Errorf("WithDeliveries(5, 30s) = %v, want the default %v", c.BackOff, want)
	}
	// Every delivery count the config accepts must be one the server
	// accepts too (it wants fewer BackOff entries than deliveries).
	for n := 1; n <= 6; n++ {
		c := queue.WithDeliveries(n, time.Second)
		if err := c.Validate(); err != nil {
			t.Fatalf("WithDeliveries(%d, 1s): %v", n, err)
		}
		ctx, js := setup(t, c)
		if _, err := queuetest.EnsureJobsConsumer(ctx, js, c, job.LaneHeavy); err != nil {
			t.Errorf("WithDeliveries(%d, 1s) = %v: the server refuses it: %v", n, c.BackOff, err)
		}
	}
}

var _ ingest.Source = (*queue.ResultsSource[ingest.Msg])(nil)

func TestResultsSource(t *testing.T) {
	c := queue.DefaultConfig()
	ctx, js := setup(t, c)
	cons, err := queue.EnsureResultsConsumer(ctx, js, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := queue.NewResultsSource[io.Reader](cons); err == nil {
		t.Error("a source of a type jetstream.Msg does not implement was built")
	}
	src, err := queue.NewResultsSource[ingest.Msg](cons)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		r := job.Results{JobID: fmt.Sprintf("1-%d", i), BatchID: 1, Puzzle: "8", FirstSeq: int64(i)}
		if err := queuetest.PublishResults(ctx, js, r); err != nil {
			t.Fatal(err)
		}
	}
	var got []ingest.Msg
	for len(got) < 3 {
		msgs, err := src.Fetch(ctx, 10, time.Second)
		if err != nil || len(msgs) == 0 {
			t.Fatalf("fetch: %d, %v", len(msgs), err)
		}
		got = append(got, msgs...)
	}
	for _, m := range got {
		var r job.Results
		if err := json.Unmarshal(m.Data(), &r); err != nil || r.V != job.Version {
			t.Errorf("results message %s: %v", m.Data(), err)
		}
		if err := m.Ack(); err != nil {
			t.Fatal(err)
		}
	}
}

// Results larger than the server's max payload are split into ranges that
// together cover the job, deterministically (a retry adds nothing).
func TestPublishResultsSplitsLarge(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	big := strings.Repeat("U ", 400)
	n := int(js.Conn().MaxPayload())/len(big)*3 + 7 // about three messages' worth
	r := job.Results{JobID: "5-100", BatchID: 5, Puzzle: "15", FirstSeq: 100}
	for i := range n {
		r.Results = append(r.Results, result.Result{Puzzle: "sliding:4x4", State: fmt.Sprint(i), Status: result.StatusSolved, Moves: big})
	}
	for range 2 {
		if err := queuetest.PublishResults(ctx, js, r); err != nil {
			t.Fatal(err)
		}
	}
	cons, err := queue.EnsureResultsConsumer(ctx, js, queue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	stored := msgs(t, ctx, js, queue.ResultsStream)
	if stored < 4 {
		t.Fatalf("%d messages: not split", stored)
	}
	next := r.FirstSeq
	for range stored {
		got, err := queue.Fetch(ctx, cons, 1, time.Second)
		if err != nil || len(got) != 1 {
			t.Fatalf("fetch: %d, %v", len(got), err)
		}
		var part job.Results
		if err := json.Unmarshal(got[0].Data(), &part); err != nil {
			t.Fatal(err)
		}
		if part.JobID != r.JobID || part.FirstSeq != next || part.Results[0].State != fmt.Sprint(next-r.FirstSeq) {
			t.Fatalf("part %s from %d (%s), want from %d", part.JobID, part.FirstSeq, part.Results[0].State, next)
		}
		next += int64(len(part.Results))
		_ = got[0].Ack()
	}
	if next != r.FirstSeq+int64(n) {
		t.Errorf("parts cover up to %d, want %d", next, r.FirstSeq+int64(n))
	}
}

// EnsureStreams updates a stream whose settings changed, in place.
func TestEnsureStreamsUpdates(t *testing.T) {
	c := queue.DefaultConfig()
	ctx, js := setup(t, c)
	s, err := js.Stream(ctx, queue.DeadStream)
	if err != nil {
		t.Fatal(err)
	}
	created := s.CachedInfo().Created
	if err := queue.EnsureStreams(ctx, js, c); err != nil {
		t.Fatal(err)
	}
	c.DuplicateWindow = 3 * time.Minute
	if err := queue.EnsureStreams(ctx, js, c); err != nil {
		t.Fatal(err)
	}
	s, err = js.Stream(ctx, queue.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CachedInfo().Config.Duplicates; got != 3*time.Minute {
		t.Errorf("duplicate window %v after update", got)
	}
	if s, err = js.Stream(ctx, queue.DeadStream); err != nil || !s.CachedInfo().Created.Equal(created) {
		t.Errorf("dead stream recreated: %v", err)
	}
}

// Two different job messages with the same id get different results msg
// ids (the writer then sees both and records a collision); the same job
// message always gets the same one.
func TestResultsMsgIDPerJobMessage(t *testing.T) {
	a, b := queue.ResultsMsgID("1-0", []byte("job a")), queue.ResultsMsgID("1-0", []byte("job b"))
	if a == b || a != queue.ResultsMsgID("1-0", []byte("job a")) || !strings.HasPrefix(a, "r-1-0-") {
		t.Errorf("ids %q %q", a, b)
	}
}

// A single result larger than the max payload is published cut down, never
// refused: moves first, then the error text, then the state.
func TestPublishResultsFitsOversizedResult(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	limit := int(js.Conn().MaxPayload())
	r := job.Results{JobID: "5-0", BatchID: 5, Puzzle: "swap:4x4", Results: []result.Result{{
		Puzzle: "swap:4x4", State: "1100/0000/0000/0011", Status: result.StatusSolved,
		Moves: strings.Repeat("1,1R ", limit/2), Length: limit / 2, Optimal: true}}}
	if err := queuetest.PublishResults(ctx, js, r); err != nil {
		t.Fatal(err)
	}
	huge := r
	huge.JobID = "5-1"
	huge.Results = []result.Result{{Puzzle: "swap:4x4", State: strings.Repeat("1", limit+10), Status: result.StatusInvalid, Error: strings.Repeat("e", 5000)}}
	if err := queuetest.PublishResults(ctx, js, huge); err != nil {
		t.Fatal(err)
	}
	cons, err := queue.EnsureResultsConsumer(ctx, js, queue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	got, err := queue.Fetch(ctx, cons, 2, time.Second)
	if err != nil || len(got) != 2 {
		t.Fatalf("fetch %d %v", len(got), err)
	}
	var a, b job.Results
	_ = json.Unmarshal(got[0].Data(), &a)
	_ = json.Unmarshal(got[1].Data(), &b)
	if x := a.Results[0]; x.Status != result.StatusBudgetExceeded || x.Moves != "" || x.LowerBound != limit/2 || !strings.Contains(x.Error, "does not fit") {
		t.Errorf("moves not dropped: %+v", x)
	}
	if x := b.Results[0]; x.Status != result.StatusFailed || len(x.State) >= limit || !strings.Contains(x.Error, "stored cut") {
		t.Errorf("state not cut: status %s, %d bytes, %q", x.Status, len(x.State), x.Error[:min(len(x.Error), 200)])
	}
}

// The jobs consumers' settings are shared: a process starting with other
// settings leaves them alone (and can see the drift); Apply changes them.
func TestJobsConsumerSettingsHaveOneOwner(t *testing.T) {
	first := queue.WithDeliveries(5, 30*time.Second)
	ctx, js := setup(t, first)
	for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
		if _, err := queuetest.EnsureJobsConsumer(ctx, js, first, lane); err != nil {
			t.Fatal(err)
		}
	}
	other := queue.WithDeliveries(3, 7*time.Second)
	cons, err := queuetest.EnsureJobsConsumer(ctx, js, other, job.LaneHeavy)
	if err != nil {
		t.Fatal(err)
	}
	if got := cons.CachedInfo().Config.MaxDeliver; got != 5 {
		t.Errorf("a second process rewrote max_deliver to %d", got)
	}
	drift, err := queue.JobsConsumerDrift(ctx, js, other)
	if err != nil || len(drift) == 0 || !strings.Contains(strings.Join(drift, "; "), "max_deliver: 5 on the server, 3 here") {
		t.Errorf("drift %q, %v", drift, err)
	}
	if err := queue.ApplyJobsConsumers(ctx, js, other); err != nil {
		t.Fatal(err)
	}
	if drift, err := queue.JobsConsumerDrift(ctx, js, other); err != nil || len(drift) != 0 {
		t.Errorf("after Apply, drift %q, %v", drift, err)
	}
	info, err := js.Consumer(ctx, queue.JobsStream, queue.QuickConsumer)
	if err != nil || info.CachedInfo().Config.MaxDeliver != 3 {
		t.Errorf("after Apply, quick consumer %+v, %v", info, err)
	}
}

// A deployment from before lanes has an unfiltered solverd consumer and
// jobs on the old subjects: ensuring either lane refuses with
// ErrPreLanesConsumer, whose message is the command to run; once the
// operator has removed the consumer, both lanes are created and the
// queued job is still delivered.
func TestPreLanesConsumerRefused(t *testing.T) {
	c := queue.DefaultConfig()
	ctx, js := setup(t, c)
	if _, err := js.CreateConsumer(ctx, queue.JobsStream, jetstream.ConsumerConfig{Durable: queue.JobsConsumer, AckPolicy: jetstream.AckExplicitPolicy}); err != nil {
		t.Fatal(err)
	}
	j := testJob(3, 0, "1 2 3/4 5 6/7 8 0")
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "tessera.jobs.sliding.3x3", data); err != nil { // the pre-lanes subject
		t.Fatal(err)
	}
	for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
		_, err := queuetest.EnsureJobsConsumer(ctx, js, c, lane)
		if !errors.Is(err, queue.ErrPreLanesConsumer) || !strings.Contains(err.Error(), "nats consumer rm TESSERA_JOBS solverd") {
			t.Fatalf("%s lane: %v, want ErrPreLanesConsumer naming the command", lane, err)
		}
	}
	if err := js.DeleteConsumer(ctx, queue.JobsStream, queue.JobsConsumer); err != nil {
		t.Fatal(err)
	}
	if _, err := queuetest.EnsureJobsConsumer(ctx, js, c, job.LaneQuick); err != nil {
		t.Fatal(err)
	}
	heavy, err := queuetest.EnsureJobsConsumer(ctx, js, c, job.LaneHeavy)
	if err != nil {
		t.Fatal(err)
	}
	got, err := queue.Fetch(ctx, heavy, 1, time.Second)
	if err != nil || len(got) != 1 {
		t.Fatalf("queued pre-lanes job: %d messages, %v", len(got), err)
	}
}

// MemoryConsumers (producer --local's throw-away server) reaches every
// consumer tessera creates; by default their state is on file.
func TestMemoryConsumers(t *testing.T) {
	for _, mem := range []bool{false, true} {
		c := queue.DefaultConfig()
		c.MemoryConsumers = mem
		ctx, js := setup(t, c)
		var got []jetstream.Consumer
		for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
			cons, err := queuetest.EnsureJobsConsumer(ctx, js, c, lane)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, cons)
		}
		for _, ensure := range []func(context.Context, jetstream.JetStream, queue.Config) (jetstream.Consumer, error){
			queue.EnsureSplitConsumer, queue.EnsureResultsConsumer, queue.EnsureDeadConsumer, queue.EnsureDeadCopiesConsumer,
		} {
			cons, err := ensure(ctx, js, c)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, cons)
		}
		for _, cons := range got {
			if cfg := cons.CachedInfo().Config; cfg.MemoryStorage != mem {
				t.Errorf("MemoryConsumers %v: consumer %s has MemoryStorage %v", mem, cfg.Durable, cfg.MemoryStorage)
			}
		}
	}
}
