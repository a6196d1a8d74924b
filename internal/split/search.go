package split

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"
)

// The coordinator and the subtree searches (docs/ARCHITECTURE.md "Split
// search"). The worker holding a split job's message coordinates each of
// its states (Searches.Solve): it lays out each iteration in the state's
// record, publishes its subtree jobs, counts their answers into the
// record, and while they are out it answers subtree jobs itself (of any
// state, through Config.Help), so that a process with one worker never
// waits on itself. Any worker answers subtree jobs (Searches.Answer),
// each under its own key; only the coordinator writes the record, always
// by compare-and-set (queue.Splits.Update) of the pure rules in
// record.go, so a worker that dies leaves nothing half done: its parent
// job or subtree job is redelivered and the record and the answers say
// where the search stands.

// Config is what a process's split searches run with.
type Config struct {
	// Splits is the split buckets and the publisher of subtree jobs
	// (required).
	Splits *queue.Splits
	// Split runs a function with spec's split search (required).
	Split solve.SplitFunc
	// Cancelled is the live set of cancelled batches (nil: none).
	Cancelled *queue.BatchSet
	// SubtreeNodes is the size a subtree job aims at (default
	// DefaultSubtreeNodes); Window how many subtree jobs of one state are
	// out unanswered at most (default DefaultSubtreeWindow); Stall how
	// long an iteration may go without an answer before its unanswered
	// subtree jobs are published again (default DefaultStall), doubled by
	// each stall in a row, to eight times.
	SubtreeNodes int64
	Window       int
	Stall        time.Duration
	// Record, if set, records every walk and subtree this process searches.
	Record *Recorder
	// OnSubtrees, if set, is called with n subtree jobs published
	// ("published", "republished") or answered, the answer counted
	// ("answered"); OnNodes with the nodes of each walk and subtree
	// searched here (metrics).
	OnSubtrees func(event string, n int)
	OnNodes    func(puzzle string, nodes int64)
	// Help, if set, answers one waiting subtree job of any state and
	// reports whether there was one: a coordinator calls it while its
	// own subtrees are out.
	Help func(ctx context.Context) (bool, error)
	// Closed, if set, reports that the connection to NATS is closed for
	// good: then a failure is not waited out.
	Closed func() bool
	// Log receives the retries, stalls and undecodable answers (default
	// slog.Default()).
	Log *slog.Logger
}

// Searches runs a process's split searches: coordinators of states and
// searches of subtrees.
type Searches struct{ c Config }

// New returns the split searches of c, its defaults filled in.
func New(c Config) *Searches {
	if c.SubtreeNodes <= 0 {
		c.SubtreeNodes = DefaultSubtreeNodes
	}
	if c.Window <= 0 {
		c.Window = DefaultSubtreeWindow
	}
	if c.Stall <= 0 {
		c.Stall = DefaultStall
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return &Searches{c: c}
}

// cancelledBatch reports whether batch was cancelled.
func (s *Searches) cancelledBatch(batch int64) bool {
	_, ok := s.c.Cancelled.At(batch)
	return ok
}

// closed reports whether the connection to NATS is closed for good.
func (s *Searches) closed() bool { return s.c.Closed != nil && s.c.Closed() }

// searched counts the nodes of a walk or subtree searched here.
func (s *Searches) searched(spec puzzle.Spec, nodes int64) {
	if s.c.OnNodes != nil && nodes > 0 {
		s.c.OnNodes(spec.String(), nodes)
	}
}

// DefaultSubtreeNodes is the size (nodes) a subtree job aims at: about a
// tenth of a second of search, far above the few milliseconds a message
// costs. An iteration whose predecessor was smaller than one subtree is
// searched by the coordinator itself.
const DefaultSubtreeNodes = 1 << 21

// DefaultSubtreeWindow is how many subtree jobs of one state are out at
// a time: enough to keep a large fleet busy on one state, few enough that
// a second state's subtrees are not queued behind thousands.
const DefaultSubtreeWindow = 512

// DefaultStall is how long an iteration may go without an answer
// before its unanswered subtree jobs are published again: twice the
// production ack wait (30 s), so that a job lost with a dead worker comes
// back by itself first.
const DefaultStall = time.Minute

// maxSubtrees bounds an iteration's subtrees (its record holds a bit per
// subtree, and a message per subtree is published). At 8192 the last
// iteration of Korf–Felner #20 wanted 22,400 and got subtrees of about
// 4 M nodes, too coarse for a fleet past 32 hosts (docs/BENCHMARKS.md,
// "#20 and #47 solved by the split search").
const maxSubtrees = 1 << 16

// splitPoll is how often a coordinator with nothing to answer looks at
// its record when no change arrives (changes arrive through a watch; the
// poll covers budgets, deadlines and cancels).
const splitPoll = 250 * time.Millisecond

// ErrNoSplitSearch: the state's algorithm cannot split; it is solved whole.
var ErrNoSplitSearch = errors.New("no split search for this puzzle")

// split runs f with the split search of spec.
func (s *Searches) split(spec puzzle.Spec, f func(search.Splitter) error) error {
	ok, err := s.c.Split(spec, f)
	if err == nil && !ok {
		err = ErrNoSplitSearch
	}
	return err
}

// subtreeWant is how many subtrees an iteration wants after one of last
// nodes: one per SubtreeNodes, growing by the iterations' usual fivefold.
func (s *Searches) subtreeWant(last int64) int64 {
	return min(max(5*last/s.c.SubtreeNodes, 1), maxSubtrees)
}

// local reports whether the iteration after one of last nodes is searched
// by the coordinator alone: too small to pay for messages.
func (s *Searches) local(last int64) bool { return 5*last < s.c.SubtreeNodes }

// Solve solves state seq (text) of the split job j as a split search
// and returns its result, the same row an unsplit solve gives. NATS
// failing is waited out (backoff); an error hands the job back (a stop,
// or the search itself failing), and the record keeps the search's
// progress for the next delivery.
func (s *Searches) Solve(ctx context.Context, j job.Job, seq int64, spec puzzle.Spec, text string, opt solve.Options) (result.Result, error) {
	st, err := puzzle.Parse(spec, text)
	if err != nil {
		return solve.Rejected(spec, text, err), nil
	}
	var h0 int
	var name string
	if err := s.split(spec, func(sp search.Splitter) (err error) {
		name = sp.Name() + " split"
		h0, err = sp.Root(st.Cells)
		return err
	}); err != nil {
		return result.Result{}, err
	}
	c := &coordinator{s: s, key: job.SplitKey(j.BatchID, seq), spec: spec, cells: st.Cells}
	defer c.stopWatch()
	var rec job.SplitRecord
	if err := s.waitOut(ctx, c.key, "create its record", func() (err error) {
		// The whole state's budget is the one a solve of it would have (the
		// job's, under the host's ceilings).
		rec, err = s.c.Splits.Create(ctx, NewRecord(j, seq, text, h0, opt.Budget, time.Now()))
		return err
	}); err != nil {
		return result.Result{}, err
	}
	failures := 0
	for {
		if err := ctx.Err(); err != nil {
			return result.Result{}, fmt.Errorf("split %s: %w", c.key, err)
		}
		if rec.End != "" {
			c.purge(ctx)
			return s.splitResult(rec, st, name)
		}
		var change func(*job.SplitRecord) bool
		switch {
		case s.cancelledBatch(j.BatchID):
			change = func(x *job.SplitRecord) bool { return Stop(x, job.EndCancelled) }
		case OverBudget(rec, time.Now()):
			change = func(x *job.SplitRecord) bool { return Stop(x, job.EndBudget) }
		case Complete(rec):
			change = func(x *job.SplitRecord) bool { return Advance(x) }
		case !rec.Laid():
			// The subtrees this worker laid out are the ones to publish:
			// no second walk (a new holder walks again, in frontier).
			// None come back when the stored layout is not this walk's
			// write: another holder's, or this one's whose answer a
			// failover lost (the compare-and-set retried finds it laid).
			var laid [][]uint8
			var now job.SplitRecord
			if laid, now, err = s.lay(ctx, c.key, rec, st.Cells, spec); err == nil {
				if now.Laid() && now.Iteration > rec.Iteration && len(laid) == now.Total {
					c.begin(now.Iteration, laid)
				}
				rec = now
			}
		case s.local(rec.Last):
			rec, err = s.searchLocal(ctx, c.key, rec, st.Cells, spec)
		case c.published != rec.Iteration:
			// A new iteration for this worker (a redelivered parent job,
			// or one laid out without this walk's subtrees): its
			// subtrees, from the first.
			var subs [][]uint8
			if subs, err = s.frontier(ctx, rec, st.Cells, spec); err == nil {
				c.begin(rec.Iteration, subs)
			}
		default:
			rec, err = c.step(ctx, rec)
		}
		if change != nil {
			var now job.SplitRecord
			if now, _, err = s.c.Splits.Update(ctx, c.key, change); err == nil {
				rec = now
			}
			err = markTransient(err)
		}
		if err == nil {
			failures = 0
			continue
		}
		var te transientError
		if !errors.As(err, &te) || ctx.Err() != nil || s.closed() {
			return result.Result{}, err
		}
		// NATS failing (a node dead, a leader being elected, no quorum):
		// wait it out, then read where the search stands and follow the
		// answers afresh.
		failures++
		delay := splitBackoff.Delay(failures)
		s.c.Log.Warn("split: NATS failed, retrying", "key", c.key, "iteration", rec.Iteration, "bound", rec.Bound,
			"attempt", failures, "delay", delay, "err", te.error)
		if !backoff.Sleep(ctx, delay) {
			continue
		}
		c.stopWatch()
		if now, gerr := c.get(ctx); gerr == nil {
			rec = now
		}
	}
}

// splitBackoff spaces a coordinator's attempts while NATS fails.
var splitBackoff = backoff.Policy{Min: 200 * time.Millisecond, Max: 5 * time.Second}

// transientError marks an error of NATS (the buckets, a publish): the
// split search waits it out instead of handing its job back.
type transientError struct{ error }

func (e transientError) Unwrap() error { return e.error }

// markTransient marks err, of a call on the split buckets or a publish,
// as NATS's, unless the record is gone (deleted by hand: nothing to
// continue). The context's end is the caller's to see.
func markTransient(err error) error {
	if err == nil || errors.Is(err, queue.ErrNoSplit) {
		return err
	}
	return transientError{err}
}

// waitOut runs f, a call on NATS, until it succeeds or ctx ends,
// logging each failure with the delay before the next attempt.
func (s *Searches) waitOut(ctx context.Context, key, what string, f func() error) error {
	return backoff.Retry(ctx, splitBackoff, func() error {
		err := f()
		if errors.Is(err, queue.ErrNoSplit) || err != nil && s.closed() {
			return backoff.Permanent(err) // nothing to wait for
		}
		return err
	}, func(attempt int, delay time.Duration, err error) {
		s.c.Log.Warn("split: NATS failed, retrying", "key", key, "what", what, "attempt", attempt, "delay", delay, "err", err)
	})
}

// coordinator is what the holder of a split job keeps about its state
// between passes: the iteration whose subtrees it publishes, they, how
// far it has published them, the watch on their answers, and when the
// record last moved (stall detection).
type coordinator struct {
	s     *Searches
	key   string
	spec  puzzle.Spec
	cells []uint8
	// published is the iteration whose subtrees subs are; sent the index
	// up to which they are published.
	published, sent int
	subs            [][]uint8
	// w follows the answers of iteration watched.
	w       *queue.AnswerWatch
	watched int
	// moved is when the record last moved (an answer counted, the
	// iteration begun, its subtrees republished); stalls how many times
	// in a row it has been republished without moving since.
	moved  time.Time
	stalls int
	// rewatched: the watch was renewed since the record last moved.
	rewatched bool
}

// begin starts publishing iteration it's subtrees subs from the first.
func (c *coordinator) begin(it int, subs [][]uint8) {
	c.published, c.subs, c.sent = it, subs, 0
	c.moved, c.stalls, c.rewatched = time.Now(), 0, false
	c.stopWatch()
}

func (c *coordinator) stopWatch() {
	if c.w != nil {
		_ = c.w.Stop()
		c.w = nil
	}
}

// get reads the record afresh (from the bucket's leader).
func (c *coordinator) get(ctx context.Context) (job.SplitRecord, error) {
	rec, _, err := c.s.c.Splits.Get(ctx, c.key)
	return rec, markTransient(err)
}

// purge removes the ended search's answers; one left behind costs
// storage, not an answer, so a failure is logged, not retried.
func (c *coordinator) purge(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, queue.PublishTimeout)
	defer cancel()
	if err := c.s.c.Splits.PurgeAnswers(pctx, c.key); err != nil {
		c.s.c.Log.Warn("split: answers of an ended search not purged", "key", c.key, "err", err)
	}
}

// step is one pass of a distributed iteration: it publishes subtree jobs
// up to the window; with none to publish, it answers a subtree job (of
// any state) or waits for answers, and counts those that arrived into
// the record. A record that has not moved for the stall time has its
// unanswered subtrees published again under a new generation.
func (c *coordinator) step(ctx context.Context, rec job.SplitRecord) (job.SplitRecord, error) {
	if c.w == nil || c.watched != rec.Iteration {
		c.stopWatch()
		w, err := c.s.c.Splits.WatchAnswers(ctx, c.key, rec.Iteration)
		if err != nil {
			return rec, markTransient(err)
		}
		c.w, c.watched = w, rec.Iteration
	}
	n, sent, err := c.s.topUp(ctx, c.key, rec, c.spec, c.subs, c.sent)
	c.sent = sent
	if err != nil || n > 0 {
		return rec, markTransient(err)
	}
	first, err := c.s.helpOrWait(ctx, c.w)
	if err != nil {
		return rec, markTransient(err)
	}
	answers := c.drain(first)
	if len(answers) > 0 {
		now, changed, err := c.s.c.Splits.Update(ctx, c.key, func(x *job.SplitRecord) bool {
			changed := false
			for _, a := range answers {
				changed = Apply(x, a) || changed
			}
			return changed
		})
		if err != nil {
			return rec, markTransient(err)
		}
		if changed {
			c.moved, c.stalls, c.rewatched = time.Now(), 0, false
		}
		return now, nil
	}
	stall := c.s.c.Stall << min(c.stalls, 3)
	switch quiet := time.Since(c.moved); {
	case quiet > stall:
		return c.republish(ctx, rec, stall)
	case quiet > stall/4 && !c.rewatched:
		// A watch can fall silent after a failover (seen on 2.9.10) while
		// answers are stored: a new one replays them, at the cost of a
		// replay, long before the stall republishes anything.
		c.stopWatch()
		c.rewatched = true
	}
	return rec, nil
}

// drain collects the answers the watch holds now, first (if any)
// included.
func (c *coordinator) drain(first *queue.AnswerUpdate) []job.SubtreeAnswer {
	var out []job.SubtreeAnswer
	add := func(u queue.AnswerUpdate) {
		switch {
		case u.CaughtUp:
		case u.Err != nil:
			c.s.c.Log.Error("split: an answer that does not decode is not counted", "key", u.Key, "err", u.Err)
		default:
			out = append(out, u.Answer)
		}
	}
	if first != nil {
		add(*first)
	}
	for {
		select {
		case u, ok := <-c.w.Updates():
			if !ok {
				// The watch ended (its connection closed): a new one
				// replays every answer of the iteration.
				c.stopWatch()
				return out
			}
			add(u)
		default:
			return out
		}
	}
}

// helpOrWait answers one waiting subtree job, of any state (Config.Help),
// or else waits for an answer on w (or splitPoll) and returns it (nil:
// none, or the watch ended).
func (s *Searches) helpOrWait(ctx context.Context, w *queue.AnswerWatch) (*queue.AnswerUpdate, error) {
	if s.c.Help != nil {
		if helped, err := s.c.Help(ctx); helped || err != nil {
			return nil, err
		}
	}
	timer := time.NewTimer(splitPoll)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case u, ok := <-w.Updates():
		if ok {
			return &u, nil
		}
	case <-timer.C:
	}
	return nil, nil
}

// republish answers a stall: the record has not moved for stall although
// subtree jobs are out. Each unanswered subtree is published again under
// the iteration's next generation (ids the stream's duplicate window has
// not seen), and the answers are followed by a new watch, which replays
// them all; a subtree answered twice is counted once.
func (c *coordinator) republish(ctx context.Context, rec job.SplitRecord, stall time.Duration) (job.SplitRecord, error) {
	it, gen := rec.Iteration, rec.Gen
	now, changed, err := c.s.c.Splits.Update(ctx, c.key, func(x *job.SplitRecord) bool {
		if x.End != "" || x.Iteration != it || x.Gen != gen {
			return false
		}
		x.Gen++
		return true
	})
	if err != nil || !changed {
		return now, markTransient(err)
	}
	c.stopWatch()
	// Which was lost, the jobs or the watch's news of their answers (a
	// watch on 2.9.10 can fall silent after a failover): the new watch
	// counts the answers stored, and only subtrees without one are
	// published again.
	view := now
	view.Answered = slices.Clone(now.Answered)
	unseen := 0
	for i := range min(c.sent, now.Total) {
		if now.IsAnswered(i) {
			continue
		}
		if ok, err := c.s.c.Splits.Answered(ctx, c.key, it, i); err == nil && ok {
			view.Answered[i/8] |= 1 << (i % 8)
			unseen++
		}
	}
	n, sent, err := c.s.topUp(ctx, c.key, view, c.spec, c.subs, 0)
	c.sent = sent
	c.s.c.Log.Warn("split: no answer counted for a while; unanswered subtree jobs published again", "key", c.key,
		"iteration", it, "bound", now.Bound, "answered", now.Count, "subtrees", now.Total, "stalled", time.Since(c.moved).Round(time.Millisecond),
		"stall_after", stall, "generation", now.Gen, "stored_unseen", unseen, "republished", n)
	if n > 0 && c.s.c.OnSubtrees != nil {
		c.s.c.OnSubtrees("republished", n)
	}
	c.moved, c.rewatched = time.Now(), false
	c.stalls++
	return now, markTransient(err)
}

// lay walks the top of rec's next iteration and lays it out in the
// record (unless another worker did first). It returns the iteration's
// subtrees and the record as stored.
func (s *Searches) lay(ctx context.Context, key string, rec job.SplitRecord, cells []uint8, spec puzzle.Spec) ([][]uint8, job.SplitRecord, error) {
	var f search.Frontier
	var target int64 // the refined layout's (0: none)
	stop := CPUClock()
	err := s.split(spec, func(sp search.Splitter) (err error) {
		want := s.subtreeWant(rec.Last)
		local := s.local(rec.Last)
		if local {
			want = 1
		}
		b := Budget(ctx, rec)
		if f, err = sp.Frontier(cells, rec.Bound, max(rec.Depth, 1), want, b); err != nil || f.Done || local || len(rec.Heavy) == 0 {
			return err
		}
		// The subtrees that were heavy in the iteration before are split
		// deeper (search.Refine); the record keeps what the layout used.
		target = s.c.SubtreeNodes
		// Only the context stops the expanding walks (they are small): the
		// layout must be the one frontier meets again.
		subs, walked, next, err := search.Refine(f.Subtrees, Heavy(rec), target, expander(sp, cells, rec.Bound, search.Budget{Ctx: ctx}))
		f.Subtrees, f.Walked, f.Next = subs, f.Walked+walked, min(f.Next, next)
		return err
	})
	cpu := stop()
	s.searched(spec, f.Walked)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("split %s: %w", key, ctx.Err()) // a layout cut short is not written
	}
	if err != nil {
		return nil, rec, err
	}
	if f.Pass.Stopped {
		if ctx.Err() != nil {
			return nil, rec, fmt.Errorf("split %s: %w", key, ctx.Err())
		}
		now, err := s.stopSplit(ctx, key, rec.Batch, f.Walked)
		return nil, now, err
	}
	now, laid, err := s.c.Splits.Update(ctx, key, func(x *job.SplitRecord) bool {
		if x.Bound != rec.Bound || !Lay(x, f.Depth, len(f.Subtrees), f.Walked, f.Next) {
			return false
		}
		x.Target = target
		if f.Done && f.Pass.OK {
			Solved(x, f.Pass.Path)
		}
		return true
	})
	if err != nil {
		return nil, rec, markTransient(err)
	}
	if !laid {
		return nil, now, nil
	}
	s.c.Record.Line(key, now.Iteration, rec.Bound, "walk", f.Depth, -1, f.Walked, cpu, f.Done && f.Pass.OK)
	return f.Subtrees, now, nil
}

// frontier is the current iteration's subtrees, as rec laid them out,
// walked again: by a holder that did not lay the iteration out (a
// redelivered parent job) and by searchLocal.
func (s *Searches) frontier(ctx context.Context, rec job.SplitRecord, cells []uint8, spec puzzle.Spec) ([][]uint8, error) {
	var f search.Frontier
	stop := CPUClock()
	err := s.split(spec, func(sp search.Splitter) (err error) {
		// want 0: the laid-out depth itself; the walk is deterministic, so
		// it meets the same subtrees in the same order, and the layout the
		// record's heavy subtrees and target gave.
		b := search.Budget{Ctx: ctx}
		if f, err = sp.Frontier(cells, rec.Bound, rec.Depth, 0, b); err != nil || rec.Target == 0 {
			return err
		}
		subs, walked, _, err := search.Refine(f.Subtrees, Heavy(rec), rec.Target, expander(sp, cells, rec.Bound, b))
		f.Subtrees, f.Walked = subs, f.Walked+walked
		return err
	})
	s.searched(spec, f.Walked)
	// Index -2: a holder's walk that lists the subtrees another laid out,
	// to publish them (its nodes are not in the state's count).
	s.c.Record.Line(job.SplitKey(rec.Batch, rec.Seq), rec.Iteration, rec.Bound, "walk", f.Depth, -2, f.Walked, stop(), false)
	if err == nil && (f.Depth != rec.Depth || len(f.Subtrees) != rec.Total) {
		err = fmt.Errorf("split %s: iteration %d laid out %d subtrees at depth %d, the walk meets %d at depth %d",
			job.SplitKey(rec.Batch, rec.Seq), rec.Iteration, rec.Total, rec.Depth, len(f.Subtrees), f.Depth)
	}
	return f.Subtrees, err
}

// topUp publishes the current iteration's unanswered subtrees from
// index sent on until SubtreeWindow of them are out unanswered: a window
// at a time, so that the subtrees of two split states interleave on the
// consumer instead of one state's iteration queueing ahead of the other.
// Ids make a republished subtree one message. It returns how many it
// published and the index to go on from.
func (s *Searches) topUp(ctx context.Context, key string, rec job.SplitRecord, spec puzzle.Spec, subs [][]uint8, sent int) (int, int, error) {
	out := 0
	for i := range sent {
		if !rec.IsAnswered(i) {
			out++
		}
	}
	n := 0
	for ; sent < rec.Total && out < s.c.Window; sent++ {
		if rec.IsAnswered(sent) {
			continue
		}
		sj := job.SubtreeJob{V: job.Version, Key: key, Puzzle: rec.Puzzle, State: rec.State, Iteration: rec.Iteration,
			Bound: rec.Bound, Index: sent, Prefix: subs[sent], Gen: rec.Gen}
		pctx, cancel := context.WithTimeout(ctx, queue.PublishTimeout)
		err := s.c.Splits.PublishSubtree(pctx, spec, sj)
		cancel()
		if err != nil {
			return n, sent, err
		}
		out++
		n++
	}
	if n > 0 && s.c.OnSubtrees != nil {
		s.c.OnSubtrees("published", n)
	}
	return n, sent, nil
}

// searchLocal searches the current iteration's unanswered subtrees here,
// counting each answer into the record (the coordinator writes it: no
// answer key) and returns the record as stored.
func (s *Searches) searchLocal(ctx context.Context, key string, rec job.SplitRecord, cells []uint8, spec puzzle.Spec) (job.SplitRecord, error) {
	subs, err := s.frontier(ctx, rec, cells, spec)
	if err != nil {
		return rec, err
	}
	for _, i := range Pending(rec) {
		sj := job.SubtreeJob{V: job.Version, Key: key, Puzzle: rec.Puzzle, State: rec.State, Iteration: rec.Iteration,
			Bound: rec.Bound, Index: i, Prefix: subs[i]}
		a, cpu, err := s.searchSubtree(ctx, sj, spec, cells, rec)
		if err != nil {
			return rec, err
		}
		now, counted, err := s.c.Splits.Update(ctx, key, func(x *job.SplitRecord) bool { return Apply(x, a) })
		if err != nil {
			return rec, markTransient(err)
		}
		if counted && a.Stop == "" {
			s.c.Record.Line(key, sj.Iteration, sj.Bound, "local", len(sj.Prefix), sj.Index, a.Nodes, cpu, a.Path != nil)
			if s.c.OnSubtrees != nil {
				s.c.OnSubtrees("answered", 1)
			}
		}
		if rec = now; rec.End != "" || rec.Iteration != sj.Iteration {
			break
		}
	}
	return rec, nil
}

// Answer searches sj's subtree and stores its answer under its own
// key (create-only: a second answer to it changes nothing), for the
// coordinator to count. done reports that the search of the state has
// ended or moved past sj's iteration: nothing more to search for it.
func (s *Searches) Answer(ctx context.Context, sj job.SubtreeJob, spec puzzle.Spec, cells []uint8) (done bool, err error) {
	var rec job.SplitRecord
	if err := s.waitOut(ctx, sj.Key, "read its record", func() (err error) {
		rec, _, err = s.c.Splits.Get(ctx, sj.Key)
		return err
	}); err != nil {
		return false, err
	}
	// A record behind sj's iteration is a read from before the iteration
	// was laid out (a failover's): the job proves it was, so it is
	// searched, never dropped. One ahead of it moved on without it.
	switch {
	case rec.End != "" || rec.Iteration > sj.Iteration:
		return true, nil
	case rec.Iteration == sj.Iteration && rec.IsAnswered(sj.Index):
		return false, nil
	}
	if s.cancelledBatch(rec.Batch) {
		return true, nil // the coordinator ends the record
	}
	var answered bool
	if err := s.waitOut(ctx, sj.Key, "look for its answer", func() (err error) {
		answered, err = s.c.Splits.Answered(ctx, sj.Key, sj.Iteration, sj.Index)
		return err
	}); err != nil || answered {
		return false, err
	}
	a, cpu, err := s.searchSubtree(ctx, sj, spec, cells, rec)
	if err != nil {
		return false, err
	}
	var created bool
	if err := s.waitOut(ctx, sj.Key, "store a subtree's answer", func() (err error) {
		created, err = s.c.Splits.Answer(ctx, sj.Key, a)
		return err
	}); err != nil {
		return false, err
	}
	if created && a.Stop == "" {
		s.c.Record.Line(sj.Key, sj.Iteration, sj.Bound, "subtree", len(sj.Prefix), sj.Index, a.Nodes, cpu, a.Path != nil)
		if s.c.OnSubtrees != nil {
			s.c.OnSubtrees("answered", 1)
		}
	}
	return a.Path != nil || a.Stop != "", nil
}

// searchSubtree searches sj's subtree with what rec has left of the
// state's budget. An answer stopped by the budget or the batch's cancel
// carries it (Stop); the process's own stop is an error.
func (s *Searches) searchSubtree(ctx context.Context, sj job.SubtreeJob, spec puzzle.Spec, cells []uint8, rec job.SplitRecord) (job.SubtreeAnswer, time.Duration, error) {
	// The batch's cancel stops the search at its next checkpoint.
	bctx, stopCancelled := s.c.Cancelled.Context(ctx, rec.Batch)
	defer stopCancelled()
	var out search.Subtree
	stop := CPUClock()
	err := s.split(spec, func(sp search.Splitter) (err error) {
		out, err = sp.SearchSubtree(cells, sj.Prefix, sj.Bound, Budget(bctx, rec))
		return err
	})
	cpu := stop()
	s.searched(spec, out.Nodes)
	if err != nil {
		return job.SubtreeAnswer{}, cpu, err
	}
	a := job.SubtreeAnswer{Iteration: sj.Iteration, Index: sj.Index, Nodes: out.Nodes, Next: out.Next, Path: out.Path}
	if out.Stopped {
		if ctx.Err() != nil {
			return a, cpu, fmt.Errorf("subtree %s: %w", sj.ID(), ctx.Err()) // handed back: this process stops
		}
		a.Next, a.Path, a.Stop = search.NoNext, nil, job.EndBudget
		if s.cancelledBatch(rec.Batch) {
			a.Stop = job.EndCancelled
		}
		return a, cpu, nil
	}
	if target := cmp.Or(rec.Target, s.c.SubtreeNodes); out.Nodes > search.HeavyFactor*target {
		a.Prefix = sj.Prefix // the next iteration splits it deeper
	}
	return a, cpu, nil
}

// expander is search.Refine's expand over sp's walk of the iteration to
// bound from cells.
func expander(sp search.Splitter, cells []uint8, bound int, b search.Budget) func([]uint8, int) (search.Frontier, error) {
	return func(prefix []uint8, depth int) (search.Frontier, error) {
		return sp.Expand(cells, prefix, bound, depth, b)
	}
}

// stopSplit ends the record of key whose walk (of nodes, not yet
// counted) the state's budget or its batch's cancel stopped, and returns
// it as stored. A walk stopped by the budget proves the state has spent
// it: the budget it was given was what the record had left, and other
// searches only add.
func (s *Searches) stopSplit(ctx context.Context, key string, batch int64, nodes int64) (job.SplitRecord, error) {
	end := job.EndBudget
	if s.cancelledBatch(batch) {
		end = job.EndCancelled
	}
	now, _, err := s.c.Splits.Update(ctx, key, func(x *job.SplitRecord) bool {
		if x.End != "" {
			return false
		}
		x.Nodes += nodes
		return Stop(x, end)
	})
	return now, markTransient(err)
}

// splitResult is the state's row from its ended record: the same as an
// unsplit solve's, the answer replayed before it leaves.
func (s *Searches) splitResult(rec job.SplitRecord, st puzzle.State, name string) (result.Result, error) {
	res := result.Result{Puzzle: rec.Puzzle, State: rec.State, Nodes: rec.Nodes, LowerBound: rec.Lower, Solver: name,
		ElapsedMS: float64(time.Since(rec.Started).Microseconds()) / 1000}
	switch rec.End {
	case job.EndSolved:
		var moves []puzzle.Move
		if err := s.split(st.Spec, func(sp search.Splitter) error { moves = sp.Moves(rec.Path); return nil }); err != nil {
			return res, err
		}
		if err := puzzle.VerifyMoves(st, moves, st.Goal()); err != nil {
			res.Status, res.Error = result.StatusFailed, fmt.Sprintf("internal error: %s answer failed verification: %v", name, err)
			res.LowerBound = 0
			return res, nil
		}
		res.Status, res.Moves, res.Length, res.Optimal = result.StatusSolved, puzzle.FormatMoves(st.Spec, moves), len(moves), true
	case job.EndBudget:
		res.Status = result.StatusBudgetExceeded
		res.Error = fmt.Sprintf("%v after %d nodes; the optimal length is at least %d", search.ErrBudgetExceeded, rec.Nodes, rec.Lower)
	case job.EndCancelled:
		res.Status, res.Error = result.StatusCancelled, fmt.Sprintf("batch %d was cancelled during its split search", rec.Batch)
	default:
		res.Status, res.Error = result.StatusFailed, rec.Error
	}
	return res, nil
}
