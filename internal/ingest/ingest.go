// Package ingest is the results loop: fetch results messages in batches,
// write each batch in one database transaction, and only then acknowledge
// the messages. It is transport-agnostic — the JetStream adapter
// (internal/queue) implements Source — and is run by `results run` and
// in-process by `producer --local`.
//
// Delivery guarantees: a message is acknowledged only after the
// transaction holding its rows committed; the store's inserts are
// idempotent, so a message delivered again (ack lost, consumer restarted,
// ack wait expired during a database outage) adds nothing and counts
// nothing. While PostgreSQL is unavailable the same batch is retried with
// growing delays and nothing is acknowledged.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// Msg is one delivered results message. jetstream.Msg satisfies it.
type Msg interface {
	Data() []byte
	Ack() error
	Nak() error
	Term() error
}

// progressor is implemented by messages whose redelivery clock can be
// reset (jetstream.Msg.InProgress); ingest uses it while it waits for the
// database, so held messages are not redelivered meanwhile.
type progressor interface{ InProgress() error }

// Source delivers results messages.
type Source interface {
	// Fetch returns up to max messages, waiting at most wait for them; it
	// may return fewer, or none with a nil error when wait passes. An error
	// wrapping ErrClosed means no message will ever come again.
	Fetch(ctx context.Context, max int, wait time.Duration) ([]Msg, error)
}

// ErrClosed is returned (wrapped) by a Source that is finished for good.
var ErrClosed = errors.New("source closed")

// ErrWriteTimeout wraps the error of a write attempt cut at
// Options.WriteTimeout (logged, then retried).
var ErrWriteTimeout = errors.New("write timed out")

// Sink stores results; *store.Store is the real one. InsertResults must be
// idempotent and all-or-nothing, return the number of new rows, and wrap
// store.ErrRejected when the data itself is unacceptable.
type Sink interface {
	InsertResults(ctx context.Context, batch []job.Results) (int, error)
	// AddDeadLetters records what cannot be stored as rows; idempotent by
	// DeadLetter.Key.
	AddDeadLetters(ctx context.Context, letters []store.DeadLetter) (int, error)
}

// reporter is implemented by sinks that report collisions (a row whose
// place holds a different state), as *store.Store does.
type reporter interface {
	InsertResultsReport(ctx context.Context, batch []job.Results) (store.Report, error)
}

var _ Sink = (*store.Store)(nil)

// Options tune Run. Zero values take the defaults noted.
type Options struct {
	FetchBatch int // messages per fetch and transaction, at most (1000)
	// MaxRows bounds the rows of one transaction (20,000): a transaction
	// must commit well within the results ack wait, or its messages come
	// back and are written again. Fetches shrink to what fits, judged by
	// the rows per message seen so far, so memory stays flat too (the
	// writer holds two fetches: one being written, the next decoded).
	MaxRows int
	// MaxBytes bounds what the writer holds at once, fetched, decoded and
	// being committed together, in bytes as Cost counts them (16 MiB).
	// A fetch asks for no more than half of it, and the next fetch waits
	// until what is held leaves room for it; a single message bigger than
	// the bound is still taken, alone.
	MaxBytes int64
	// Heartbeat is how often messages held for a transaction (written or
	// waiting their turn) have their ack clock reset (10s; the results
	// consumer's ack wait is 30s).
	Heartbeat time.Duration
	// WriteTimeout bounds one attempt at a transaction (30s): an attempt
	// that has not committed by then is cancelled, logged and retried, so
	// a commit that never returns (a primary waiting for a synchronous
	// standby that is gone, a connection to a vanished host) cannot hold
	// its messages forever.
	WriteTimeout time.Duration
	FetchWait    time.Duration // longest wait for a batch to fill (1s)
	MinBackoff   time.Duration // first delay after a failed write or fetch (100ms)
	MaxBackoff   time.Duration // the delay doubles up to this (5s)
	Logger       *slog.Logger  // slog.Default()
	// OnReject, if set, sees every message about to be terminated as
	// malformed, e.g. to keep a dead-letter copy (Term deletes it from a
	// work-queue stream).
	OnReject func(data []byte, err error)
	// OnCommit, if set, is called after each committed batch with the
	// running totals.
	OnCommit func(Stats)
}

func (o *Options) defaults() {
	if o.FetchBatch <= 0 {
		o.FetchBatch = 1000
	}
	if o.MaxRows <= 0 {
		o.MaxRows = 20_000
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 10 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.FetchWait <= 0 {
		o.FetchWait = time.Second
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(5*time.Second, o.MinBackoff)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Defaults of Options.MaxBytes and Options.WriteTimeout (the
// results.max_bytes and results.write_timeout keys).
const (
	DefaultMaxBytes     = 16 << 20
	DefaultWriteTimeout = 30 * time.Second
)

// Stats are running totals of one Ingester.
type Stats struct {
	Messages   int64 `json:"messages"`    // messages written and acknowledged (including duplicates)
	Rows       int64 `json:"rows"`        // results in those messages
	Inserted   int64 `json:"inserted"`    // rows new to the database (Rows - Inserted were redeliveries)
	Batches    int64 `json:"batches"`     // committed transactions
	Rejected   int64 `json:"rejected"`    // messages that could not be stored whole (their good rows were, the rest dead-lettered)
	Dead       int64 `json:"dead"`        // dead letters recorded (refused messages and rows, collisions)
	Retries    int64 `json:"retries"`     // failed writes or fetches retried
	HandedBack int64 `json:"handed_back"` // messages fetched ahead and handed back because writes were failing
	AckErrors  int64 `json:"ack_errors"`  // acknowledgements that failed (the message comes back; harmless)
	FetchEmpty int64 `json:"fetch_empty"` // fetches that returned nothing
}

// Ingester runs the loop and keeps its statistics.
type Ingester struct {
	src  Source
	sink Sink
	opt  Options

	mu    sync.Mutex
	stats Stats
	// rowsPerMsg and costPerMsg are running estimates of the rows and the
	// bytes (Cost) a message carries, which size the next fetch (only the
	// fetch goroutine uses them).
	rowsPerMsg, costPerMsg float64

	// held is what the fetched messages not yet settled cost, in bytes;
	// freed is signalled when it drops.
	held  atomic.Int64
	freed chan struct{}
	// failing is whether the last write attempt failed; while it does,
	// the fetcher hands back what it fetched ahead and fetches nothing.
	health health
}

// New returns an Ingester reading src and writing sink.
func New(src Source, sink Sink, opt Options) *Ingester {
	opt.defaults()
	return &Ingester{src: src, sink: sink, opt: opt, freed: make(chan struct{}, 1)}
}

// Stats returns a snapshot of the running totals.
func (in *Ingester) Stats() Stats {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.stats
}

// Held is what the messages the writer holds (fetched, decoded or being
// committed) cost, in bytes as Cost counts them.
func (in *Ingester) Held() int64 { return in.held.Load() }

func (in *Ingester) add(f func(*Stats)) {
	in.mu.Lock()
	f(&in.stats)
	in.mu.Unlock()
}

// release returns n bytes to the budget.
func (in *Ingester) release(n int64) {
	if n == 0 {
		return
	}
	in.held.Add(-n)
	select {
	case in.freed <- struct{}{}:
	default:
	}
}

// Run fetches, writes and acknowledges until ctx is cancelled (it then
// returns nil; messages it held uncommitted are Nak'ed for prompt
// redelivery) or the source reports ErrClosed (nil as well). Fetch and
// write failures are retried with growing delays, never returned.
//
// The next messages are fetched and decoded on a goroutine of their own
// while the last ones are written, so the loop's own work (decoding) and
// PostgreSQL's overlap. It holds at most one decoded fetch ahead of the
// one being written (the channel is unbuffered), both within
// Options.MaxBytes, and writes and acknowledges them in the order
// fetched, each message only after its transaction committed. While
// writes fail, the fetch ahead is handed back (Nak) rather than held, and
// nothing more is fetched until a write succeeds: messages are held only
// by a write that is being attempted.
func (in *Ingester) Run(ctx context.Context) error {
	ready := make(chan *fetched)
	go in.fetchLoop(ctx, ready)
	// The loop drains ready to its end, so the fetcher never blocks on it:
	// once ctx ends, what it fetched ahead is Nak'ed, not written.
	for f := range ready {
		if ctx.Err() != nil {
			in.abandon(f)
			continue
		}
		in.process(ctx, f)
	}
	return nil
}

// fetchLoop fetches and decodes messages and hands them to ready, which it
// closes when ctx ends or the source is closed.
func (in *Ingester) fetchLoop(ctx context.Context, ready chan<- *fetched) {
	defer close(ready)
	log := in.opt.Logger
	for ctx.Err() == nil {
		if !in.health.waitOK(ctx) || !in.waitRoom(ctx) {
			return
		}
		var msgs []Msg
		err := backoff.Retry(ctx, in.policy(), func() error {
			var err error
			msgs, err = in.src.Fetch(ctx, in.fetchSize(), in.opt.FetchWait)
			if errors.Is(err, ErrClosed) {
				return backoff.Permanent(err)
			}
			return err
		}, func(_ int, delay time.Duration, err error) {
			in.add(func(s *Stats) { s.Retries++ })
			log.Warn("fetch results failed; retrying", "err", err, "delay", delay)
		})
		if err != nil {
			if ctx.Err() != nil {
				nakAll(msgs)
				return
			}
			// Retry gives up otherwise only on ErrClosed.
			if len(msgs) > 0 {
				ready <- in.decode(msgs)
			}
			return
		}
		if len(msgs) == 0 {
			in.add(func(s *Stats) { s.FetchEmpty++ })
			continue
		}
		f := in.decode(msgs)
		select {
		case ready <- f:
		case <-in.health.failed():
			// The write before it is failing: the messages go back to the
			// stream (another writer may store them) instead of waiting
			// here for as long as the database is away.
			n := in.abandon(f)
			in.add(func(s *Stats) { s.HandedBack += int64(n) })
			log.Warn("writes are failing: handed back the results fetched ahead, fetching none until a write succeeds",
				"messages", n)
		}
	}
}

// waitRoom waits until what is held leaves room for the next fetch (or
// nothing is held). It reports false when ctx ended.
func (in *Ingester) waitRoom(ctx context.Context) bool {
	for {
		h := in.held.Load()
		if h == 0 || h+int64(float64(in.fetchSize())*in.costPerMsg) <= in.opt.MaxBytes {
			return true
		}
		select {
		case <-in.freed:
		case <-ctx.Done():
			return false
		}
	}
}

// health is whether the writes succeed, for the fetcher to follow.
type health struct {
	mu      sync.Mutex
	failing bool
	fail    chan struct{} // closed when writes start failing
	ok      chan struct{} // closed when they succeed again
}

var closedCh = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (h *health) set(failing bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fail == nil {
		h.fail, h.ok = make(chan struct{}), closedCh
	}
	if failing == h.failing {
		return
	}
	h.failing = failing
	if failing {
		close(h.fail)
		h.ok = make(chan struct{})
	} else {
		close(h.ok)
		h.fail = make(chan struct{})
	}
}

// failed is closed while writes fail.
func (h *health) failed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fail == nil {
		h.fail, h.ok = make(chan struct{}), closedCh
	}
	return h.fail
}

// waitOK waits until writes do not fail; false when ctx ended first.
func (h *health) waitOK(ctx context.Context) bool {
	h.mu.Lock()
	ok := h.ok
	h.mu.Unlock()
	if ok == nil {
		return true
	}
	select {
	case <-ok:
		return true
	case <-ctx.Done():
		return false
	}
}

// pending is a decoded message waiting for its transaction.
type pending struct {
	msg  Msg
	rs   job.Results
	cost int64
}

// fetched is one fetch, decoded: the well-formed messages, in order, and
// the malformed ones with their reasons. From decode until process is
// done with it, its messages not yet settled keep their ack clock reset.
type fetched struct {
	batch []pending
	bads  []bad
	done  atomic.Int64 // messages of batch settled so far
	stop  chan struct{}
}

type bad struct {
	m   Msg
	err error
}

// decode reads a fetched batch, counts it as held and starts its
// heartbeats.
func (in *Ingester) decode(msgs []Msg) *fetched {
	f := &fetched{batch: make([]pending, 0, len(msgs)), stop: make(chan struct{})}
	rows := 0
	var total int64
	for _, m := range msgs {
		rs, err := Decode(m.Data())
		if err != nil {
			f.bads = append(f.bads, bad{m, err})
			total += int64(len(m.Data()))
			continue
		}
		c := Cost(len(m.Data()), &rs)
		f.batch = append(f.batch, pending{m, rs, c})
		rows += len(rs.Results)
		total += c
	}
	in.held.Add(total)
	in.observe(rows, total, len(msgs))
	// Messages waiting for their transaction keep their ack clock reset,
	// as do those being written: none comes back to be written twice.
	go in.keepAlive(f.stop, f.batch, &f.done)
	return f
}

// Cost is what the writer counts against Options.MaxBytes for a message
// of size bytes decoded into rs: the message itself, its decoded form
// and its rows in COPY's encoding, which all live until it is committed.
func Cost(size int, rs *job.Results) int64 {
	n := int64(size) + int64(unsafe.Sizeof(*rs)) + int64(len(rs.JobID)+len(rs.Puzzle))
	for i := range rs.Results {
		r := &rs.Results[i]
		text := int64(len(r.Puzzle) + len(r.State) + len(r.Moves) + len(r.Solver) + len(r.Error) + len(r.Status))
		n += int64(unsafe.Sizeof(*r)) + text + copyRowBytes + text
	}
	return n
}

// copyRowBytes is a row's COPY encoding besides its text: the field count,
// thirteen lengths and the fixed-size values.
const copyRowBytes = 2 + 13*4 + 8 + 8 + 4 + 1 + 4 + 8 + 8

// abandon hands every message of f back for prompt redelivery and
// returns how many there were.
func (in *Ingester) abandon(f *fetched) int {
	close(f.stop)
	nakAll(msgsOf(f.batch))
	var c int64
	for _, p := range f.batch {
		c += p.cost
	}
	for _, b := range f.bads {
		_ = b.m.Nak()
		c += int64(len(b.m.Data()))
	}
	in.release(c)
	return len(f.batch) + len(f.bads)
}

// process writes the well-formed messages of f, then salvages the
// malformed ones (after the good rows, so a refused row's placeholder
// never takes a good row's place).
func (in *Ingester) process(ctx context.Context, f *fetched) {
	batch := f.batch
	for len(batch) > int(f.done.Load()) {
		rest := batch[f.done.Load():]
		k, n := 0, 0
		var c int64
		for k < len(rest) && (k == 0 || n+len(rest[k].rs.Results) <= in.opt.MaxRows) {
			n += len(rest[k].rs.Results)
			c += rest[k].cost
			k++
		}
		in.write(ctx, rest[:k])
		f.done.Add(int64(k))
		in.release(c)
	}
	close(f.stop)
	for _, b := range f.bads {
		in.reject(ctx, b.m, b.err)
		in.release(int64(len(b.m.Data())))
	}
}

// keepAlive resets the ack clock of the messages of batch from done on,
// every Heartbeat, until stop is closed.
func (in *Ingester) keepAlive(stop <-chan struct{}, batch []pending, done *atomic.Int64) {
	t := time.NewTicker(in.opt.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			for _, p := range batch[done.Load():] {
				if ip, ok := p.msg.(progressor); ok {
					_ = ip.InProgress() // best effort: at worst the message is redelivered and skipped
				}
			}
		}
	}
}

// fetchSize is how many messages the next fetch asks for: as many as fit
// MaxRows and half of MaxBytes by the rows and bytes per message seen so
// far, within [1, FetchBatch]. Before any message is seen it asks for
// one: a writer restarting into a backlog of big messages would otherwise
// hold FetchBatch of them at once (1,000 messages of 1,000 rows took
// 662 MB).
func (in *Ingester) fetchSize() int {
	if in.rowsPerMsg == 0 {
		return 1
	}
	n := in.opt.FetchBatch
	if in.rowsPerMsg > 1 {
		n = min(n, int(float64(in.opt.MaxRows)/in.rowsPerMsg))
	}
	if in.costPerMsg > 0 {
		n = min(n, int(float64(in.opt.MaxBytes/2)/in.costPerMsg))
	}
	return max(1, n)
}

// observe updates the per-message estimates with a fetch of msgs messages
// carrying rows rows and costing cost bytes. The first fetch sets them
// outright (halving them toward zero would let the second fetch ask for
// twice what fits).
func (in *Ingester) observe(rows int, cost int64, msgs int) {
	per := float64(max(rows, 1)) / float64(msgs)
	perCost := float64(cost) / float64(msgs)
	if in.rowsPerMsg == 0 {
		in.rowsPerMsg, in.costPerMsg = per, perCost
		return
	}
	in.rowsPerMsg = 0.5*in.rowsPerMsg + 0.5*per
	in.costPerMsg = 0.5*in.costPerMsg + 0.5*perCost
}

// Decode reads one results message: JSON of the current wire version
// (job.Version) that passes store.ValidateResults. Unknown fields are
// ignored so a newer producer can add optional ones.
func Decode(data []byte) (job.Results, error) {
	rs, err := job.UnmarshalResults(data)
	if err != nil {
		return job.Results{}, fmt.Errorf("decode results: %w: %w", store.ErrRejected, err)
	}
	if err := store.ValidateResults(rs); err != nil {
		return job.Results{}, fmt.Errorf("decode results: %w", err)
	}
	return rs, nil
}

// reject handles a message that cannot be stored as it is: its valid
// rows are stored, every refused row becomes a dead letter (with the
// reason and the row) plus a failed row in its place, and a message that
// cannot even be read becomes one dead letter holding the whole payload.
// Only then is the message terminated. A transient database failure on
// the way is retried; on shutdown the message is Nak'ed and salvaged again
// on redelivery (every step is idempotent).
func (in *Ingester) reject(ctx context.Context, m Msg, cause error) {
	data := m.Data()
	if in.opt.OnReject != nil {
		in.opt.OnReject(data, cause)
	}
	var dead int
	err := in.salvage(ctx, data, cause, &dead)
	if err != nil {
		// Only ctx ends a salvage early.
		_ = m.Nak()
		return
	}
	in.opt.Logger.Error("results message refused; its valid rows are stored, the rest is in dead_letters (results dead)",
		"err", cause, "bytes", len(data), "dead_letters", dead)
	if terr := m.Term(); terr != nil {
		in.opt.Logger.Warn("terminate message failed", "err", terr)
	}
	in.add(func(s *Stats) { s.Rejected++; s.Dead += int64(dead) })
}

func (in *Ingester) salvage(ctx context.Context, data []byte, cause error, dead *int) error {
	var rs job.Results
	whole := json.Unmarshal(data, &rs) != nil || rs.V != job.Version || rs.BatchID <= 0 || rs.FirstSeq < 0 ||
		len(rs.Results) == 0 || !validText(rs.Puzzle) || !validText(rs.JobID)
	if whole {
		l := store.DeadLetter{Source: store.DeadResults, Reason: cause.Error(), Payload: data,
			Key: "results:" + digest(data)}
		if rs.JobID != "" {
			l.JobID = rs.JobID
		}
		if rs.BatchID > 0 {
			l.BatchID = &rs.BatchID
			if rs.FirstSeq >= 0 {
				l.Seq = &rs.FirstSeq
			}
		}
		return in.letters(ctx, []store.DeadLetter{l}, dead)
	}
	// Runs of rows that pass validation are stored together; a row that
	// fails it is refused on its own.
	start := 0
	for i := 0; i <= len(rs.Results); i++ {
		var err error
		if i < len(rs.Results) {
			err = store.ValidateResults(part(rs, i, i+1))
			if err == nil {
				continue
			}
		}
		if start < i {
			if serr := in.storePart(ctx, part(rs, start, i), dead); serr != nil {
				return serr
			}
		}
		if i < len(rs.Results) {
			if serr := in.refuseRow(ctx, part(rs, i, i+1), err, dead); serr != nil {
				return serr
			}
		}
		start = i + 1
	}
	return nil
}

// part is the message rs cut to its results [i, j).
func part(rs job.Results, i, j int) job.Results {
	p := rs
	p.Results = rs.Results[i:j]
	p.FirstSeq = rs.FirstSeq + int64(i)
	return p
}

// storePart stores rs, bisecting it when the database refuses it so that
// only the rows it refuses are dead-lettered.
func (in *Ingester) storePart(ctx context.Context, rs job.Results, dead *int) error {
	err := in.retry(ctx, func(ctx context.Context) error {
		_, err := in.sink.InsertResults(ctx, []job.Results{rs})
		return err
	})
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, store.ErrRejected):
		return err // ctx ended
	case len(rs.Results) == 1:
		return in.refuseRow(ctx, rs, err, dead)
	}
	h := len(rs.Results) / 2
	if err := in.storePart(ctx, part(rs, 0, h), dead); err != nil {
		return err
	}
	return in.storePart(ctx, part(rs, h, len(rs.Results)), dead)
}

// refuseRow dead-letters the one result of rs and stores a failed row in
// its place, so the batch still accounts for the state and can finish
// (and `results requeue` can run it again).
func (in *Ingester) refuseRow(ctx context.Context, rs job.Results, cause error, dead *int) error {
	r := rs.Results[0]
	row, _ := json.Marshal(struct {
		Job   string `json:"job"`
		Batch int64  `json:"batch"`
		Seq   int64  `json:"seq"`
		result.Result
	}{rs.JobID, rs.BatchID, rs.FirstSeq, r})
	l := store.DeadLetter{BatchID: &rs.BatchID, Seq: &rs.FirstSeq, JobID: rs.JobID, Source: store.DeadResults,
		Reason: cause.Error(), Payload: row, Key: fmt.Sprintf("results:%d:%d:%s", rs.BatchID, rs.FirstSeq, digest(row))}
	if err := in.letters(ctx, []store.DeadLetter{l}, dead); err != nil {
		return err
	}
	placeholder := rs
	placeholder.Results = []result.Result{{
		Puzzle: storableText(r.Puzzle), State: storableText(r.State), Status: result.StatusFailed,
		Solver: storableText(r.Solver),
		Error:  "result refused by the writer (the original is in dead_letters: results dead --batch " + fmt.Sprint(rs.BatchID) + "): " + storableText(cause.Error()),
	}}
	if placeholder.Results[0].Puzzle == "" && !validText(placeholder.Puzzle) {
		placeholder.Results[0].Puzzle = "unknown"
	}
	err := in.retry(ctx, func(ctx context.Context) error {
		_, err := in.sink.InsertResults(ctx, []job.Results{placeholder})
		return err
	})
	if errors.Is(err, store.ErrRejected) {
		return nil // the dead letter is the record
	}
	return err
}

// letters records dead letters, retrying transient failures.
func (in *Ingester) letters(ctx context.Context, ls []store.DeadLetter, dead *int) error {
	return in.retry(ctx, func(ctx context.Context) error {
		n, err := in.sink.AddDeadLetters(ctx, ls)
		if errors.Is(err, store.ErrRejected) {
			// Cannot happen for letters AddDeadLetters sanitises; log it
			// rather than loop.
			in.opt.Logger.Error("dead letter refused", "err", err)
			return nil
		}
		*dead += n
		return err
	})
}

// retry runs f until it succeeds, fails with ErrRejected, or ctx ends;
// each attempt gets WriteTimeout. While it fails, the fetcher holds
// nothing ahead, as for write.
func (in *Ingester) retry(ctx context.Context, f func(context.Context) error) error {
	err := backoff.Retry(ctx, in.policy(), func() error {
		actx, cancel := context.WithTimeout(ctx, in.opt.WriteTimeout)
		defer cancel()
		err := f(actx)
		if err != nil && ctx.Err() == nil && actx.Err() != nil {
			err = fmt.Errorf("%w: none within %v (results.write_timeout): %w", ErrWriteTimeout, in.opt.WriteTimeout, err)
		}
		if errors.Is(err, store.ErrRejected) {
			return backoff.Permanent(err)
		}
		return err
	}, func(attempt int, delay time.Duration, err error) {
		in.health.set(true)
		in.add(func(s *Stats) { s.Retries++ })
		in.opt.Logger.Warn("write failed; retrying", "attempt", attempt, "delay", delay, "err", err)
	})
	if err == nil || errors.Is(err, store.ErrRejected) {
		in.health.set(false)
	}
	return err
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

func validText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

func storableText(s string) string {
	if validText(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// write stores batch in one transaction, retrying transient failures with
// growing delays, then acknowledges it. If the database rejects the data,
// the batch is split so that only the offending message is terminated.
func (in *Ingester) write(ctx context.Context, batch []pending) {
	rs := make([]job.Results, len(batch))
	rows := 0
	for i, p := range batch {
		rs[i] = p.rs
		rows += len(p.rs.Results)
	}
	var n, collisions int
	err := backoff.Retry(ctx, in.policy(), func() error {
		actx, cancel := context.WithTimeout(ctx, in.opt.WriteTimeout)
		defer cancel()
		var err error
		if r, ok := in.sink.(reporter); ok {
			var rep store.Report
			rep, err = r.InsertResultsReport(actx, rs)
			n, collisions = rep.Inserted, rep.Collisions
		} else {
			n, err = in.sink.InsertResults(actx, rs)
		}
		if err != nil && ctx.Err() == nil && actx.Err() != nil {
			err = fmt.Errorf("%w: no commit within %v (results.write_timeout): %w", ErrWriteTimeout, in.opt.WriteTimeout, err)
		}
		if errors.Is(err, store.ErrRejected) {
			return backoff.Permanent(err)
		}
		return err
	}, func(attempt int, delay time.Duration, err error) {
		in.health.set(true)
		in.add(func(s *Stats) { s.Retries++ })
		level := slog.LevelWarn
		if errors.Is(err, store.ErrSyncStandby) {
			level = slog.LevelError // only the operator can end this one
		}
		in.opt.Logger.Log(ctx, level, "write results failed; retrying", "messages", len(batch), "rows", rows,
			"attempt", attempt, "delay", delay, "err", err)
		for _, p := range batch {
			if ip, ok := p.msg.(progressor); ok {
				_ = ip.InProgress() // best effort: at worst the message is redelivered and skipped
			}
		}
	})
	if err == nil || errors.Is(err, store.ErrRejected) {
		in.health.set(false)
	}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		nakAll(msgsOf(batch))
		return
	default: // Retry gives up otherwise only on store.ErrRejected.
		if len(batch) == 1 {
			in.reject(ctx, batch[0].msg, err)
			return
		}
		for i := range batch {
			in.write(ctx, batch[i:i+1])
		}
		return
	}
	for _, p := range batch {
		if aerr := p.msg.Ack(); aerr != nil {
			in.add(func(s *Stats) { s.AckErrors++ })
			in.opt.Logger.Warn("ack failed; the message will come back and be skipped", "job", p.rs.JobID, "err", aerr)
		}
	}
	if collisions > 0 {
		in.opt.Logger.Warn("results for places that hold a different state: recorded as dead letters (results dead)",
			"collisions", collisions, "messages", len(batch))
	}
	var snap Stats
	in.add(func(s *Stats) {
		s.Dead += int64(collisions)
		s.Messages += int64(len(batch))
		s.Rows += int64(rows)
		s.Inserted += int64(n)
		s.Batches++
		snap = *s
	})
	if in.opt.OnCommit != nil {
		in.opt.OnCommit(snap)
	}
}

// policy paces the retries of a failed fetch or write.
func (in *Ingester) policy() backoff.Policy {
	return backoff.Policy{Min: in.opt.MinBackoff, Max: in.opt.MaxBackoff}
}

func msgsOf(batch []pending) []Msg {
	out := make([]Msg, len(batch))
	for i, p := range batch {
		out[i] = p.msg
	}
	return out
}

// nakAll asks for prompt redelivery of messages not written. Errors are
// ignored: an un-Nak'ed message is redelivered after its ack wait anyway.
func nakAll(msgs []Msg) {
	for _, m := range msgs {
		_ = m.Nak()
	}
}
