package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/result"

	"github.com/tessera-solver/tessera/internal/ingest"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// memSource is an in-memory stand-in for a work-queue consumer: Nak puts
// a message back, Ack and Term remove it, and every outcome is recorded.
type memSource struct {
	mu      sync.Mutex
	queue   []*memMsg
	acks    map[string]int // by message data
	terms   map[string]int
	naks    int
	inProg  atomic.Int64
	closeAt bool // return ErrClosed once the queue is empty
	fetches int
	got     []int // messages returned by each fetch
}

type memMsg struct {
	src  *memSource
	data []byte
}

func newSource(closeWhenEmpty bool, msgs ...[]byte) *memSource {
	s := &memSource{acks: map[string]int{}, terms: map[string]int{}, closeAt: closeWhenEmpty}
	for _, m := range msgs {
		s.queue = append(s.queue, &memMsg{s, m})
	}
	return s
}

func (s *memSource) Fetch(ctx context.Context, max int, wait time.Duration) ([]ingest.Msg, error) {
	s.mu.Lock()
	s.fetches++
	n := min(max, len(s.queue))
	out := make([]ingest.Msg, n)
	for i := range out {
		out[i] = s.queue[i]
	}
	s.queue = s.queue[n:]
	s.got = append(s.got, n)
	empty := n == 0
	s.mu.Unlock()
	if empty {
		if s.closeAt {
			return nil, fmt.Errorf("mem: %w", ingest.ErrClosed)
		}
		select {
		case <-time.After(min(wait, 5*time.Millisecond)):
		case <-ctx.Done():
		}
	}
	return out, nil
}

func (m *memMsg) Data() []byte { return m.data }
func (m *memMsg) Ack() error {
	m.src.mu.Lock()
	m.src.acks[string(m.data)]++
	m.src.mu.Unlock()
	return nil
}
func (m *memMsg) Term() error {
	m.src.mu.Lock()
	m.src.terms[string(m.data)]++
	m.src.mu.Unlock()
	return nil
}
func (m *memMsg) Nak() error {
	m.src.mu.Lock()
	m.src.naks++
	m.src.queue = append(m.src.queue, m)
	m.src.mu.Unlock()
	return nil
}
func (m *memMsg) InProgress() error { m.src.inProg.Add(1); return nil }

func results(batch, seq int64, lengths ...int) job.Results {
	rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-%d", batch, seq), BatchID: batch, Puzzle: "sliding:3x3", FirstSeq: seq}
	for i, l := range lengths {
		rs.Results = append(rs.Results, result.Result{Puzzle: "sliding:3x3", State: fmt.Sprint("s", seq+int64(i)),
			Status: result.StatusSolved, Length: l, Optimal: true, Solver: "test"})
	}
	return rs
}

func encode(t *testing.T, rs job.Results) []byte {
	t.Helper()
	b, err := json.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func opts() ingest.Options {
	return ingest.Options{FetchBatch: 4, FetchWait: 10 * time.Millisecond, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)}
}

// oneBatch is a fresh store, a context for the test and one 8-puzzle
// batch of total states in that store.
func oneBatch(t *testing.T, total int64) (*store.Store, context.Context, int64) {
	t.Helper()
	st := storetest.NewStore(t)
	ctx := ctxT(t)
	id, err := st.CreateBatch(ctx, "8", "optimal", total)
	if err != nil {
		t.Fatal(err)
	}
	return st, ctx, id
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func dist(t *testing.T, st *store.Store, id int64) map[int]int64 {
	t.Helper()
	d, err := st.BatchDistribution(ctxT(t), id)
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]int64{}
	for _, c := range d.Counts {
		m[c.Length] = c.Count
	}
	return m
}

// The same job delivered three times — in separate fetches and within one
// fetch — yields one row per state and counts of one; every copy is acked.
func TestRedeliveredThreeTimes(t *testing.T) {
	t.Parallel()
	st := storetest.NewStore(t)
	ctx := ctxT(t)
	id, err := st.CreateBatch(ctx, "8", "optimal", 5)
	if err != nil {
		t.Fatal(err)
	}
	a := encode(t, results(id, 0, 3, 4, 5))
	b := encode(t, results(id, 3, 5, 6))
	// Fetch 1 = a (a first fetch takes one message), fetch 2 = a a b a
	// (three copies in one transaction), fetch 3 = b a (redeliveries in a
	// later transaction).
	src := newSource(true, a, a, a, b, a, b, a)
	in := ingest.New(src, st, opts())
	if err := in.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if src.acks[string(a)] != 5 || src.acks[string(b)] != 2 || len(src.terms) != 0 {
		t.Errorf("acks %v terms %v", src.acks, src.terms)
	}
	if got, want := dist(t, st, id), map[int]int64{3: 1, 4: 1, 5: 2, 6: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("counts = %v, want %v", got, want)
	}
	s := in.Stats()
	if s.Messages != 7 || s.Rows != 19 || s.Inserted != 5 || s.Batches != 3 || s.Rejected != 0 {
		t.Errorf("stats %+v", s)
	}
	if p, _ := st.BatchProgress(ctx, id); p.Done != 5 || !p.Finished() {
		t.Errorf("progress %+v", p)
	}
}

// Malformed messages are terminated (after OnReject), counted, and do not
// hold back the good ones fetched with them.
func TestMalformedTerminated(t *testing.T) {
	t.Parallel()
	st, ctx, id := oneBatch(t, 2)
	badVersion := results(id, 0, 1)
	badVersion.V = 7
	badStatus := results(id, 0, 1)
	badStatus.Results[0].Status = "mystery"
	bads := [][]byte{[]byte("{not json"), encode(t, badVersion), encode(t, badStatus), []byte(`{"v":1,"batch":0}`)}
	good := encode(t, results(id, 0, 2, 3))
	src := newSource(true, bads[0], bads[1], good, bads[2], bads[3])
	var rejected [][]byte
	o := opts()
	o.OnReject = func(data []byte, err error) {
		if !errors.Is(err, store.ErrRejected) {
			t.Errorf("OnReject err %v does not wrap ErrRejected", err)
		}
		rejected = append(rejected, data)
	}
	in := ingest.New(src, st, o)
	if err := in.Run(ctx); err != nil {
		t.Fatal(err)
	}
	for _, b := range bads {
		if src.terms[string(b)] != 1 || src.acks[string(b)] != 0 {
			t.Errorf("%s: terms %d acks %d", b, src.terms[string(b)], src.acks[string(b)])
		}
	}
	if src.acks[string(good)] != 1 || len(rejected) != len(bads) || in.Stats().Rejected != int64(len(bads)) {
		t.Errorf("good acks %d, rejected %d, stats %+v", src.acks[string(good)], len(rejected), in.Stats())
	}
	if got := dist(t, st, id); !reflect.DeepEqual(got, map[int]int64{2: 1, 3: 1}) {
		t.Errorf("counts %v", got)
	}
}

// flaky fails its first n calls as an unavailable database would, and
// checks that nothing was acknowledged before the write succeeded.
type flaky struct {
	ingest.Sink
	n     atomic.Int64
	calls atomic.Int64
	check func()
}

func (f *flaky) InsertResults(ctx context.Context, b []job.Results) (int, error) {
	f.calls.Add(1)
	if f.check != nil {
		f.check()
	}
	if f.n.Add(-1) >= 0 {
		return 0, errors.New("connect: connection refused")
	}
	return f.Sink.InsertResults(ctx, b)
}

func TestRetriesWhileDatabaseUnavailable(t *testing.T) {
	t.Parallel()
	st, ctx, id := oneBatch(t, 4)
	// c, alone in the first fetch, teaches the loop that messages are
	// small; a and b then come in one fetch, held while the database is
	// down.
	c, a, b := encode(t, results(id, 3, 4)), encode(t, results(id, 0, 1, 2)), encode(t, results(id, 2, 3))
	src := newSource(true, c, a, b)
	f := &flaky{Sink: st}
	f.check = func() {
		src.mu.Lock()
		defer src.mu.Unlock()
		if len(src.acks) > 1 { // c's only
			t.Error("acknowledged before the transaction committed")
		}
	}
	o := opts()
	o.OnCommit = func(s ingest.Stats) {
		if s.Batches == 1 {
			f.n.Store(5)
		}
	}
	in := ingest.New(src, f, o)
	if err := in.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if s := in.Stats(); s.Retries != 5 || s.Inserted != 4 || s.Messages != 3 || s.Batches != 2 {
		t.Errorf("stats %+v", s)
	}
	if src.acks[string(a)] != 1 || src.acks[string(b)] != 1 || src.acks[string(c)] != 1 || src.naks != 0 {
		t.Errorf("acks %v naks %d", src.acks, src.naks)
	}
	if src.inProg.Load() != 10 { // each held message, on each failed attempt
		t.Errorf("InProgress calls = %d, want 10", src.inProg.Load())
	}
	if got := dist(t, st, id); !reflect.DeepEqual(got, map[int]int64{1: 1, 2: 1, 3: 1, 4: 1}) {
		t.Errorf("counts %v", got)
	}
}

// Shutting down during an outage hands the held messages back (Nak) and
// returns nil; nothing is acknowledged or written.
func TestCancelDuringOutageNaks(t *testing.T) {
	t.Parallel()
	st := storetest.NewStore(t)
	id, _ := st.CreateBatch(ctxT(t), "8", "optimal", 2)
	a := encode(t, results(id, 0, 1, 2))
	src := newSource(false, a)
	f := &flaky{Sink: st}
	f.n.Store(1 << 40)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- runIngest(ctx, src, f, opts()) }()
	for f.calls.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if src.naks != 1 || len(src.acks) != 0 || len(src.queue) != 1 {
		t.Errorf("naks %d acks %v queue %d", src.naks, src.acks, len(src.queue))
	}
	if p, _ := st.BatchProgress(ctxT(t), id); p.Done != 0 {
		t.Errorf("rows written: %+v", p)
	}
}

// picky rejects any transaction containing the poisoned job, as
// PostgreSQL would for data it refuses.
type picky struct {
	ingest.Sink
	poison string
}

func (p *picky) InsertResults(ctx context.Context, b []job.Results) (int, error) {
	for _, r := range b {
		if r.JobID == p.poison {
			return 0, fmt.Errorf("check violation: %w", store.ErrRejected)
		}
	}
	return p.Sink.InsertResults(ctx, b)
}

// A message the database refuses is isolated by splitting the batch: the
// others are written and acked, only it is terminated.
func TestDatabaseRejectionIsolated(t *testing.T) {
	t.Parallel()
	st, ctx, id := oneBatch(t, 4)
	msgs := [][]byte{encode(t, results(id, 0, 1)), encode(t, results(id, 1, 2)), encode(t, results(id, 2, 3)), encode(t, results(id, 3, 4))}
	src := newSource(true, msgs...)
	in := ingest.New(src, &picky{Sink: st, poison: fmt.Sprintf("%d-2", id)}, opts())
	if err := in.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if src.terms[string(msgs[2])] != 1 || len(src.terms) != 1 || len(src.acks) != 3 {
		t.Errorf("terms %v acks %v", src.terms, src.acks)
	}
	if got := dist(t, st, id); !reflect.DeepEqual(got, map[int]int64{1: 1, 2: 1, 4: 1}) {
		t.Errorf("counts %v", got)
	}
}

// erring fails every fetch until it is told to stop.
type erring struct{ n atomic.Int64 }

func (e *erring) Fetch(ctx context.Context, max int, wait time.Duration) ([]ingest.Msg, error) {
	if e.n.Add(1) > 3 {
		return nil, ingest.ErrClosed
	}
	return nil, errors.New("nats: connection closed")
}

func TestFetchErrorsRetried(t *testing.T) {
	t.Parallel()
	in := ingest.New(&erring{}, nil, opts())
	if err := in.Run(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if in.Stats().Retries != 3 {
		t.Errorf("stats %+v", in.Stats())
	}
}

func TestDecode(t *testing.T) {
	good := results(1, 0, 1)
	b, _ := json.Marshal(good)
	got, err := ingest.Decode(b)
	if err != nil || !reflect.DeepEqual(got, good) {
		t.Fatalf("Decode = %+v, %v", got, err)
	}
	for _, bad := range []string{"", "null", "[]", `{"v":2}`, `{"v":1,"batch":1,"puzzle":"x","results":[{"status":"?"}]}`} {
		if _, err := ingest.Decode([]byte(bad)); !errors.Is(err, store.ErrRejected) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := json.Marshal(results(1, 0, 1, 2))
	f.Add(good)
	f.Add([]byte(`{"v":1,"batch":3,"seq":0,"results":[]}`))
	f.Add([]byte(`{"v":1,"batch":3,"puzzle":"8","results":[{"status":"solved","state":"\u0000"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ingest.Decode(data)
		if err != nil {
			if !errors.Is(err, store.ErrRejected) {
				t.Fatalf("error %v does not wrap ErrRejected", err)
			}
			return
		}
		if err := store.ValidateResults(rs); err != nil {
			t.Fatalf("Decode accepted what ValidateResults refuses: %v", err)
		}
	})
}

// A message the writer cannot store whole keeps its valid rows: only the
// bad row is dead-lettered (reason and the row), with a failed row in its
// place so the batch finishes; an unreadable message is one dead letter
// holding the whole payload. Redelivery adds nothing.
func TestRefusedMessageKeepsValidRows(t *testing.T) {
	t.Parallel()
	st, ctx, id := oneBatch(t, 3)
	mixed := results(id, 0, 5, 6, 7)
	mixed.Results[1].Status = "mystery"
	data := encode(t, mixed)
	junk := []byte("{not json at all")
	src := newSource(true, data, junk, data)
	in := ingest.New(src, st, opts())
	if err := in.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := dist(t, st, id); !reflect.DeepEqual(got, map[int]int64{5: 1, 7: 1}) {
		t.Errorf("counts %v", got)
	}
	p, _ := st.BatchProgress(ctx, id)
	if p.Solved != 2 || p.Failed != 1 || !p.Finished() {
		t.Errorf("progress %+v", p)
	}
	ls, err := st.DeadLetters(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 {
		t.Fatalf("%d dead letters, want 2: %+v", len(ls), ls)
	}
	row, whole := ls[0], ls[1]
	if row.Source != store.DeadResults || row.BatchID == nil || *row.BatchID != id || *row.Seq != 1 ||
		!strings.Contains(row.Reason, "mystery") || !strings.Contains(string(row.Payload), `"status":"mystery"`) {
		t.Errorf("row letter %+v %s", row, row.Payload)
	}
	if whole.BatchID != nil || string(whole.Payload) != string(junk) || !strings.Contains(whole.Reason, "decode") {
		t.Errorf("whole letter %+v", whole)
	}
	if s := in.Stats(); s.Rejected != 3 || s.Dead != 2 {
		t.Errorf("stats %+v", s)
	}
}

// Rows the database itself refuses (beyond validation) are found by
// bisecting the message; the others are stored.
func TestDatabaseRefusedRowsBisected(t *testing.T) {
	t.Parallel()
	st, ctx, id := oneBatch(t, 4)
	rs := results(id, 0, 1, 2, 3, 4)
	src := newSource(true, encode(t, rs))
	in := ingest.New(src, &refuseState{Sink: st, state: "s2"}, opts())
	if err := in.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := dist(t, st, id); !reflect.DeepEqual(got, map[int]int64{1: 1, 2: 1, 4: 1}) {
		t.Errorf("counts %v", got)
	}
	ls, _ := st.DeadLetters(ctx, id, 0)
	if len(ls) != 1 || *ls[0].Seq != 2 {
		t.Errorf("letters %+v", ls)
	}
}

// refuseState refuses any write containing a solved row of state.
type refuseState struct {
	ingest.Sink
	state string
}

func (r *refuseState) InsertResults(ctx context.Context, b []job.Results) (int, error) {
	for _, rs := range b {
		for _, x := range rs.Results {
			if x.State == r.state && x.Status == result.StatusSolved {
				return 0, fmt.Errorf("check violation: %w", store.ErrRejected)
			}
		}
	}
	return r.Sink.InsertResults(ctx, b)
}

// Job copies solverd put in TESSERA_DEAD end up in dead_letters, once.
func TestDeadJobCopiesRecorded(t *testing.T) {
	t.Parallel()
	st := storetest.NewStore(t)
	ctx := ctxT(t)
	orig := []byte(`{"v":1,"id":"9-4","batch":9,"seq":4,"states":[]}`)
	copyMsg, _ := json.Marshal(job.DeadJob{Reason: "job 9-4: no states", Subject: "tessera.jobs.sliding.3x3", StreamSeq: 12, Data: orig})
	src := newSource(true, copyMsg, copyMsg)
	if err := ingest.RunDeadJobs(ctx, src, st, opts()); err != nil {
		t.Fatal(err)
	}
	ls, _ := st.DeadLetters(ctx, 9, 0)
	if len(ls) != 1 || ls[0].Source != store.DeadJobs || ls[0].JobID != "9-4" || *ls[0].Seq != 4 ||
		!strings.Contains(ls[0].Reason, "no states") || string(ls[0].Payload) != string(orig) {
		t.Fatalf("letters %+v", ls)
	}
	if len(src.acks) != 1 || src.acks[string(copyMsg)] != 2 {
		t.Errorf("acks %v", src.acks)
	}
}

// slowRows records the rows of each transaction and takes its time, as a
// busy database would.
type slowRows struct {
	ingest.Sink
	mu   sync.Mutex
	rows []int
	wait time.Duration
}

func (s *slowRows) InsertResults(ctx context.Context, b []job.Results) (int, error) {
	n := 0
	for _, rs := range b {
		n += len(rs.Results)
	}
	s.mu.Lock()
	s.rows = append(s.rows, n)
	s.mu.Unlock()
	time.Sleep(s.wait)
	return n, nil
}

// A fetch of big messages is written in transactions of at most MaxRows
// rows (a message bigger than that alone), later fetches shrink to fit,
// and the messages waiting for their transaction are kept alive meanwhile.
func TestTransactionsBounded(t *testing.T) {
	t.Parallel()
	var msgs [][]byte
	for i := range 12 {
		ls := make([]int, 1000)
		msgs = append(msgs, encode(t, results(1, int64(i*1000), ls...)))
	}
	src := newSource(true, msgs...)
	sink := &slowRows{wait: 20 * time.Millisecond}
	o := opts()
	o.FetchBatch, o.MaxRows, o.Heartbeat = 8, 2500, 5*time.Millisecond
	if err := runIngest(ctxT(t), src, sink, o); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range sink.rows {
		if n > o.MaxRows {
			t.Errorf("a transaction of %d rows, MaxRows %d", n, o.MaxRows)
		}
		total += n
	}
	if total != 12000 || len(src.acks) != 12 {
		t.Fatalf("wrote %d rows, acked %d messages; transactions %v", total, len(src.acks), sink.rows)
	}
	// The first fetch asks for one message; later ones only what fits (2),
	// so 12 messages take 1 + 6 + more.
	if src.fetches < 7 {
		t.Errorf("%d fetches: later fetches did not shrink to MaxRows", src.fetches)
	}
	if src.inProg.Load() == 0 {
		t.Error("messages waiting for their transaction were not kept alive")
	}
}

// A writer restarting into a backlog of big messages holds no more than
// MaxRows of them at once, from its very first fetch on (before it knows
// their size, a fetch of FetchBatch such messages would hold far more).
func TestFirstFetchBounded(t *testing.T) {
	t.Parallel()
	var msgs [][]byte
	for i := range 12 {
		msgs = append(msgs, encode(t, results(1, int64(i*1000), make([]int, 1000)...)))
	}
	src := newSource(true, msgs...)
	o := opts()
	o.FetchBatch, o.MaxRows = 8, 2500
	if err := runIngest(ctxT(t), src, &slowRows{}, o); err != nil {
		t.Fatal(err)
	}
	if len(src.acks) != 12 {
		t.Fatalf("acked %d messages of 12", len(src.acks))
	}
	for i, n := range src.got {
		if n*1000 > o.MaxRows && n > 1 {
			t.Errorf("fetch %d held %d messages of 1000 rows, MaxRows %d (fetches %v)", i+1, n, o.MaxRows, src.got)
		}
	}
}

// gated holds each write until the test lets it go (or ctx ends).
type gated struct {
	ingest.Sink
	in   chan int // the rows of each write, as it starts
	gate chan struct{}
}

func (g *gated) InsertResults(ctx context.Context, b []job.Results) (int, error) {
	n := 0
	for _, rs := range b {
		n += len(rs.Results)
	}
	g.in <- n
	select {
	case <-g.gate:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return g.Sink.InsertResults(ctx, b)
}

// The next messages are fetched and decoded while a write is held, and
// none is acknowledged before its own transaction commits; when the
// writer stops, both the held write and the one fetched ahead are Nak'ed.
func TestFetchAheadOfWrite(t *testing.T) {
	t.Parallel()
	st, _, id := oneBatch(t, 3)
	a, b, c := encode(t, results(id, 0, 1)), encode(t, results(id, 1, 2)), encode(t, results(id, 2, 3))
	src := newSource(false, a, b, c)
	g := &gated{Sink: st, in: make(chan int), gate: make(chan struct{})}
	o := opts()
	o.FetchBatch, o.MaxRows = 1, 1 // one message a fetch and a transaction
	ctx, cancel := context.WithCancel(ctxT(t))
	done := make(chan error)
	go func() { done <- runIngest(ctx, src, g, o) }()
	<-g.in // a's write started
	waitFor(t, func() bool { src.mu.Lock(); defer src.mu.Unlock(); return len(src.queue) == 1 })
	src.mu.Lock()
	if len(src.acks) != 0 {
		t.Errorf("acks %v before any commit", src.acks)
	}
	src.mu.Unlock()
	g.gate <- struct{}{} // a commits
	<-g.in               // b's write started; c is fetched meanwhile
	waitFor(t, func() bool { src.mu.Lock(); defer src.mu.Unlock(); return len(src.queue) == 0 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if src.acks[string(a)] != 1 || len(src.acks) != 1 || src.naks != 2 || len(src.queue) != 2 {
		t.Errorf("acks %v naks %d queue %d: want a acked, b and c handed back", src.acks, src.naks, len(src.queue))
	}
	if p, _ := st.BatchProgress(ctxT(t), id); p.Done != 1 {
		t.Errorf("rows written: %+v, want a's", p)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// hung blocks its first n writes until their context ends, as a commit
// does on a promoted standby still waiting for the synchronous standby
// its old primary named.
type hung struct {
	ingest.Sink
	n     atomic.Int64
	calls atomic.Int64
}

func (h *hung) InsertResults(ctx context.Context, b []job.Results) (int, error) {
	h.calls.Add(1)
	if h.n.Add(-1) >= 0 {
		<-ctx.Done()
		return 0, fmt.Errorf("commit: %w", ctx.Err())
	}
	return h.Sink.InsertResults(ctx, b)
}

// A write that never returns is cut at WriteTimeout, logged and retried;
// what was fetched ahead meanwhile is handed back rather than held, and
// nothing more is fetched until a write succeeds. Then every message is
// written and acknowledged once. (Without the timeout the loop waited for
// ever, heartbeating the messages it held.)
func TestHungWriteCutAndRetried(t *testing.T) {
	t.Parallel()
	st, _, id := oneBatch(t, 4)
	var msgs [][]byte
	for i := range 4 {
		msgs = append(msgs, encode(t, results(id, int64(i), i+1)))
	}
	src := newSource(true, msgs...)
	h := &hung{Sink: st}
	h.n.Store(3)
	var logs syncBuffer
	o := opts()
	o.FetchBatch, o.MaxRows = 1, 1 // one message a fetch and a transaction: a fetch ahead
	o.WriteTimeout, o.Heartbeat = 250*time.Millisecond, 10*time.Millisecond
	o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	in := ingest.New(src, h, o)
	if err := in.Run(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	s := in.Stats()
	// Inserted may fall short of 4 on a loaded machine: a real write
	// that commits just as its timeout cuts it is retried and then finds
	// its row stored. The rows in the database are checked below.
	if s.Messages != 4 || s.Retries < 3 {
		t.Errorf("stats %+v", s)
	}
	for _, m := range msgs {
		if src.acks[string(m)] != 1 {
			t.Errorf("acks %v: want each message once", src.acks)
			break
		}
	}
	if s.HandedBack == 0 || src.naks == 0 {
		t.Errorf("handed back %d (naks %d): the message fetched ahead was held while the write hung", s.HandedBack, src.naks)
	}
	out := logs.String()
	if n := strings.Count(out, "write results failed; retrying"); n < 3 || !strings.Contains(out, "write timed out") {
		t.Errorf("%d retry lines, want one for each of the 3 hung writes, naming the timeout:\n%s", n, out)
	}
	if !strings.Contains(out, "handed back the results fetched ahead") {
		t.Errorf("no line for the messages handed back:\n%s", out)
	}
	if p, _ := st.BatchProgress(ctxT(t), id); p.Done != 4 {
		t.Errorf("rows written: %+v, want 4", p)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// bytesSink records the most the writer held during any write.
type bytesSink struct {
	ingest.Sink
	in   *ingest.Ingester
	most atomic.Int64
}

func (b *bytesSink) InsertResults(ctx context.Context, rs []job.Results) (int, error) {
	if h := b.in.Held(); h > b.most.Load() {
		b.most.Store(h)
	}
	time.Sleep(2 * time.Millisecond) // the fetcher runs ahead meanwhile
	n := 0
	for _, r := range rs {
		n += len(r.Results)
	}
	return n, nil
}

// What the writer holds (fetched ahead, decoded, being written) stays
// within MaxBytes, and comes back to zero when it is done.
func TestHeldBytesBounded(t *testing.T) {
	t.Parallel()
	var msgs [][]byte
	for i := range 40 {
		msgs = append(msgs, encode(t, results(1, int64(i*100), make([]int, 100)...)))
	}
	rs, _ := ingest.Decode(msgs[0])
	one := ingest.Cost(len(msgs[0]), &rs)
	src := newSource(true, msgs...)
	o := opts()
	o.FetchBatch, o.MaxRows, o.MaxBytes = 1000, 1_000_000, 6*one
	sink := &bytesSink{}
	in := ingest.New(src, sink, o)
	sink.in = in
	if err := in.Run(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if len(src.acks) != 40 {
		t.Fatalf("acked %d of 40", len(src.acks))
	}
	if m := sink.most.Load(); m > o.MaxBytes || m < one {
		t.Errorf("held at most %d bytes, MaxBytes %d (a message costs %d)", m, o.MaxBytes, one)
	}
	if in.Held() != 0 {
		t.Errorf("held %d bytes after the end", in.Held())
	}
	for i, n := range src.got[1:] {
		if n > 3 {
			t.Errorf("fetch %d asked for %d messages: more than half of MaxBytes (fetches %v)", i+2, n, src.got)
		}
	}
}

// runIngest runs a new Ingester of src into sink until ctx ends.
func runIngest(ctx context.Context, src ingest.Source, sink ingest.Sink, o ingest.Options) error {
	return ingest.New(src, sink, o).Run(ctx)
}
