package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"
)

// Split searches (issue 27, docs/ARCHITECTURE.md "Split search"). The
// worker holding a split job's message coordinates each of its states:
// it lays out each iteration in the state's record and publishes its
// subtree jobs, and while they are out it answers subtree jobs itself
// (of any state), so that a process with one worker never waits on
// itself. Any worker answers subtree jobs. Every change to a record is a
// compare-and-set (queue.Splits.Update) of job's pure rules, so a worker
// that dies leaves nothing half done: its parent job or subtree job is
// redelivered and the record says where the search stands.

// DefaultSubtreeNodes is the size (nodes) a subtree job aims at: about a
// tenth of a second of search, far above the few milliseconds a message
// costs. An iteration whose predecessor was smaller than one subtree is
// searched by the coordinator itself.
const DefaultSubtreeNodes = 1 << 21

// DefaultSubtreeWindow is how many subtree jobs of one state are out at
// a time: enough to keep a large fleet busy on one state, few enough that
// a second state's subtrees are not queued behind thousands.
const DefaultSubtreeWindow = 512

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

// errNoSplit: the state's algorithm cannot split; it is solved whole.
var errNoSplit = errors.New("no split search for this puzzle")

// isSubtree reports whether a claimed message is a subtree job.
func isSubtree(m jetstream.Msg) bool { return strings.HasPrefix(m.Subject(), "tessera.jobs.split.") }

// split runs f with the split search of spec.
func (r *runner) split(spec puzzle.Spec, f func(search.Splitter) error) error {
	ok, err := r.opts.Split(spec, f)
	if err == nil && !ok {
		err = errNoSplit
	}
	return err
}

// subtreeWant is how many subtrees an iteration wants after one of last
// nodes: one per SubtreeNodes, growing by the iterations' usual fivefold.
func (r *runner) subtreeWant(last int64) int64 {
	return min(max(5*last/r.opts.SubtreeNodes, 1), maxSubtrees)
}

// local reports whether the iteration after one of last nodes is searched
// by the coordinator alone: too small to pay for messages.
func (r *runner) local(last int64) bool { return 5*last < r.opts.SubtreeNodes }

// solveSplit solves state seq (text) of the split job j as a split search
// and returns its result, the same row an unsplit solve gives. An error
// hands the job back (a stop, or NATS failing); the record keeps the
// search's progress for the next delivery.
func (r *runner) solveSplit(ctx context.Context, j job.Job, seq int64, spec puzzle.Spec, text string, opt solve.Options) (result.Result, error) {
	// The whole state's budget is the one a solve of it would have (the
	// job's, under the host's ceilings).
	j.Budget = job.NewBudget(opt.Budget.MaxNodes, opt.Budget.Timeout)
	st, err := puzzle.Parse(spec, text)
	if err != nil {
		return solve.Rejected(spec, text, err), nil
	}
	var h0 int
	var name string
	if err := r.split(spec, func(sp search.Splitter) (err error) {
		name = sp.Name() + " split"
		h0, err = sp.Root(st.Cells)
		return err
	}); err != nil {
		return result.Result{}, err
	}
	key := job.SplitKey(j.BatchID, seq)
	rec, err := r.splits.Create(ctx, job.NewSplitRecord(j, seq, text, h0, time.Now()))
	if err != nil {
		return result.Result{}, err
	}
	w, err := r.splits.Watch(ctx, key)
	if err != nil {
		return result.Result{}, err
	}
	defer func() { _ = w.Stop() }()
	// The iteration whose subtrees this worker is publishing, they, and
	// the index up to which it has published them.
	var published, sent int
	var subs [][]uint8
	for {
		if err := ctx.Err(); err != nil {
			return result.Result{}, fmt.Errorf("split %s: %w", key, err)
		}
		if rec, _, err = r.splits.Get(ctx, key); err != nil {
			return result.Result{}, err
		}
		if rec.End != "" {
			return r.splitResult(rec, st, name)
		}
		var change func(*job.SplitRecord) bool
		switch {
		case r.cancelledJob(j) != "":
			change = func(x *job.SplitRecord) bool { return x.Stop(job.EndCancelled) }
		case rec.OverBudget(time.Now()):
			change = func(x *job.SplitRecord) bool { return x.Stop(job.EndBudget) }
		case rec.Complete():
			change = func(x *job.SplitRecord) bool { return x.Advance() }
		case !rec.Laid():
			// The subtrees this worker laid out are the ones to publish:
			// no second walk (a new holder walks again, in frontier).
			var laid [][]uint8
			var it int
			if laid, it, err = r.lay(ctx, key, rec, st.Cells, spec); it > 0 {
				subs, published, sent = laid, it, 0
			}
		case r.local(rec.Last):
			err = r.searchLocal(ctx, key, rec, st.Cells, spec)
		case published != rec.Iteration:
			// A new iteration for this worker (a redelivered parent job,
			// or one it just laid out): its subtrees, from the first.
			subs, err = r.frontier(ctx, rec, st.Cells, spec)
			published, sent = rec.Iteration, 0
		default:
			var n int
			if n, sent, err = r.topUp(ctx, key, rec, spec, subs, sent); err == nil && n == 0 {
				err = r.helpOrWait(ctx, w)
			}
		}
		if change != nil {
			_, _, err = r.splits.Update(ctx, key, change)
		}
		if err != nil {
			return result.Result{}, err
		}
	}
}

// lay walks the top of rec's next iteration and lays it out in the
// record (unless another worker did first). When it laid the iteration
// out it returns the iteration's number and its subtrees.
func (r *runner) lay(ctx context.Context, key string, rec job.SplitRecord, cells []uint8, spec puzzle.Spec) ([][]uint8, int, error) {
	var f search.Frontier
	var target int64 // the refined layout's (0: none)
	stop := cpuClock()
	err := r.split(spec, func(sp search.Splitter) (err error) {
		want := r.subtreeWant(rec.Last)
		local := r.local(rec.Last)
		if local {
			want = 1
		}
		b := r.splitBudget(ctx, rec)
		if f, err = sp.Frontier(cells, rec.Bound, max(rec.Depth, 1), want, b); err != nil || f.Done || local || len(rec.Heavy) == 0 {
			return err
		}
		// The subtrees that were heavy in the iteration before are split
		// deeper (search.Refine); the record keeps what the layout used.
		target = r.opts.SubtreeNodes
		// Only the context stops the expanding walks (they are small): the
		// layout must be the one frontier meets again.
		subs, walked, next, err := search.Refine(f.Subtrees, heavyOf(rec.Heavy), target, expander(sp, cells, rec.Bound, search.Budget{Ctx: ctx}))
		f.Subtrees, f.Walked, f.Next = subs, f.Walked+walked, min(f.Next, next)
		return err
	})
	cpu := stop()
	r.searched(spec, f.Walked)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("split %s: %w", key, ctx.Err()) // a layout cut short is not written
	}
	if err != nil {
		return nil, 0, err
	}
	if f.Pass.Stopped {
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("split %s: %w", key, ctx.Err())
		}
		return nil, 0, r.stopSplit(ctx, key, rec.Batch, f.Walked)
	}
	now, laid, err := r.splits.Update(ctx, key, func(x *job.SplitRecord) bool {
		if x.Bound != rec.Bound || !x.Lay(f.Depth, len(f.Subtrees), f.Walked, f.Next) {
			return false
		}
		x.Target = target
		if f.Done && f.Pass.OK {
			x.Path, x.Lower, x.End = append([]uint8(nil), f.Pass.Path...), f.Pass.D, job.EndSolved
		}
		return true
	})
	if !laid || err != nil {
		return nil, 0, err
	}
	r.opts.SplitRecord.line(key, now.Iteration, rec.Bound, "walk", f.Depth, -1, f.Walked, cpu, f.Done && f.Pass.OK)
	return f.Subtrees, now.Iteration, nil
}

// frontier is the current iteration's subtrees, as rec laid them out,
// walked again: by a holder that did not lay the iteration out (a
// redelivered parent job) and by searchLocal.
func (r *runner) frontier(ctx context.Context, rec job.SplitRecord, cells []uint8, spec puzzle.Spec) ([][]uint8, error) {
	var f search.Frontier
	stop := cpuClock()
	err := r.split(spec, func(sp search.Splitter) (err error) {
		// want 0: the laid-out depth itself; the walk is deterministic, so
		// it meets the same subtrees in the same order, and the layout the
		// record's heavy subtrees and target gave.
		b := search.Budget{Ctx: ctx}
		if f, err = sp.Frontier(cells, rec.Bound, rec.Depth, 0, b); err != nil || rec.Target == 0 {
			return err
		}
		subs, walked, _, err := search.Refine(f.Subtrees, heavyOf(rec.Heavy), rec.Target, expander(sp, cells, rec.Bound, b))
		f.Subtrees, f.Walked = subs, f.Walked+walked
		return err
	})
	r.searched(spec, f.Walked)
	// Index -2: a holder's walk that lists the subtrees another laid out,
	// to publish them (its nodes are not in the state's count).
	r.opts.SplitRecord.line(job.SplitKey(rec.Batch, rec.Seq), rec.Iteration, rec.Bound, "walk", f.Depth, -2, f.Walked, stop(), false)
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
func (r *runner) topUp(ctx context.Context, key string, rec job.SplitRecord, spec puzzle.Spec, subs [][]uint8, sent int) (int, int, error) {
	out := 0
	for i := range sent {
		if !rec.IsAnswered(i) {
			out++
		}
	}
	n := 0
	for ; sent < rec.Total && out < r.opts.SubtreeWindow; sent++ {
		if rec.IsAnswered(sent) {
			continue
		}
		sj := job.SubtreeJob{V: job.Version, Key: key, Puzzle: rec.Puzzle, State: rec.State, Iteration: rec.Iteration,
			Bound: rec.Bound, Index: sent, Prefix: subs[sent]}
		pctx, cancel := context.WithTimeout(ctx, publishTimeout)
		err := r.splits.PublishSubtree(pctx, spec, sj)
		cancel()
		if err != nil {
			return n, sent, err
		}
		out++
		n++
	}
	if n > 0 && r.opts.OnSubtrees != nil {
		r.opts.OnSubtrees("published", n)
	}
	return n, sent, nil
}

// searchLocal searches the current iteration's unanswered subtrees here,
// counting each answer into the record as a subtree job's would be.
func (r *runner) searchLocal(ctx context.Context, key string, rec job.SplitRecord, cells []uint8, spec puzzle.Spec) error {
	subs, err := r.frontier(ctx, rec, cells, spec)
	if err != nil {
		return err
	}
	for _, i := range rec.Pending() {
		sj := job.SubtreeJob{V: job.Version, Key: key, Puzzle: rec.Puzzle, State: rec.State, Iteration: rec.Iteration,
			Bound: rec.Bound, Index: i, Prefix: subs[i]}
		if done, err := r.answerSubtree(ctx, sj, spec, cells, "local"); err != nil || done {
			return err
		}
	}
	return nil
}

// answerSubtree searches sj's subtree and counts its answer into the
// record. done reports that the record has ended (or moved on): there is
// nothing more to search for it.
// kind names the work in the split record: "subtree" (a job) or "local".
func (r *runner) answerSubtree(ctx context.Context, sj job.SubtreeJob, spec puzzle.Spec, cells []uint8, kind string) (done bool, err error) {
	rec, _, err := r.splits.Get(ctx, sj.Key)
	if err != nil {
		return false, err
	}
	if rec.End != "" || rec.Iteration != sj.Iteration || rec.IsAnswered(sj.Index) {
		return rec.End != "" || rec.Iteration != sj.Iteration, nil
	}
	if _, ok := r.cancelled.At(rec.Batch); ok {
		return true, nil // the coordinator ends the record
	}
	// The batch's cancel stops the search at its next checkpoint.
	bctx, stopCancelled := r.cancelled.Context(ctx, rec.Batch)
	defer stopCancelled()
	var out search.Subtree
	stop := cpuClock()
	err = r.split(spec, func(sp search.Splitter) (err error) {
		out, err = sp.SearchSubtree(cells, sj.Prefix, sj.Bound, r.splitBudget(bctx, rec))
		return err
	})
	cpu := stop()
	r.searched(spec, out.Nodes)
	if err != nil {
		return false, err
	}
	if out.Stopped {
		if ctx.Err() != nil {
			return false, fmt.Errorf("subtree %s: %w", sj.ID(), ctx.Err()) // handed back: this process stops
		}
		return true, r.stopSplit(ctx, sj.Key, rec.Batch, out.Nodes)
	}
	a := job.SubtreeAnswer{Iteration: sj.Iteration, Index: sj.Index, Nodes: out.Nodes, Next: out.Next, Path: out.Path}
	if target := cmp.Or(rec.Target, r.opts.SubtreeNodes); out.Nodes > search.HeavyFactor*target {
		a.Prefix = sj.Prefix // the next iteration splits it deeper
	}
	rec, counted, err := r.splits.Update(ctx, sj.Key, func(x *job.SplitRecord) bool { return x.Apply(a) })
	if counted {
		r.opts.SplitRecord.line(sj.Key, sj.Iteration, sj.Bound, kind, len(sj.Prefix), sj.Index, out.Nodes, cpu, out.Path != nil)
		if r.opts.OnSubtrees != nil {
			r.opts.OnSubtrees("answered", 1)
		}
	}
	return rec.End != "", err
}

// heavyOf is the record's heavy subtrees for search.Refine.
func heavyOf(hs []job.SplitHeavy) []search.Heavy {
	out := make([]search.Heavy, len(hs))
	for i, h := range hs {
		out[i] = search.Heavy{Prefix: h.Prefix, Nodes: h.Nodes}
	}
	return out
}

// expander is search.Refine's expand over sp's walk of the iteration to
// bound from cells.
func expander(sp search.Splitter, cells []uint8, bound int, b search.Budget) func([]uint8, int) (search.Frontier, error) {
	return func(prefix []uint8, depth int) (search.Frontier, error) {
		return sp.Expand(cells, prefix, bound, depth, b)
	}
}

// stopSplit ends the record of key whose search (of nodes, not yet
// counted) the state's budget or its batch's cancel stopped. A search
// stopped by the budget proves the state has spent it: the budget it was
// given was what the record had left, and other searches only add.
func (r *runner) stopSplit(ctx context.Context, key string, batch int64, nodes int64) error {
	end := job.EndBudget
	if _, ok := r.cancelled.At(batch); ok {
		end = job.EndCancelled
	}
	_, _, err := r.splits.Update(ctx, key, func(x *job.SplitRecord) bool {
		if x.End != "" {
			return false
		}
		x.Nodes += nodes
		return x.Stop(end)
	})
	return err
}

// splitBudget is what one walk or subtree of rec may spend: the rest of
// the state's nodes, its deadline, until ctx ends.
func (r *runner) splitBudget(ctx context.Context, rec job.SplitRecord) search.Budget {
	b := search.Budget{Ctx: ctx, Deadline: rec.Deadline}
	if rec.MaxNodes > 0 {
		b.MaxNodes = max(rec.MaxNodes-rec.Nodes, 1)
	}
	return b
}

// helpOrWait answers one waiting subtree job, of any state, or else waits
// for the record to change (or splitPoll).
func (r *runner) helpOrWait(ctx context.Context, w jetstream.KeyWatcher) error {
	msgs, err := queue.FetchReady(r.hard, r.splitCons, 1)
	if err != nil {
		return err
	}
	if len(msgs) > 0 {
		t := r.beats.add(msgs[0])
		defer r.beats.remove(t)
		r.processSubtree(ctx, t)
		return nil
	}
	timer := time.NewTimer(splitPoll)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-w.Updates():
	case <-timer.C:
	}
	return nil
}

// processSubtree handles one claimed subtree job to its end.
func (r *runner) processSubtree(ctx context.Context, t *tracked) {
	m := t.msg
	meta, err := m.Metadata()
	if err != nil {
		r.log.Error("worker: message without JetStream metadata", "subject", m.Subject(), "err", err)
		return
	}
	sj, err := job.DecodeSubtreeJob(m.Data())
	var spec puzzle.Spec
	var st puzzle.State
	if err == nil {
		if spec, err = puzzle.ParseSpec(sj.Puzzle); err == nil {
			st, err = puzzle.Parse(spec, sj.State)
		}
	}
	if err == nil {
		_, err = r.answerSubtree(ctx, sj, spec, st.Cells, "subtree")
		switch {
		case err == nil:
			r.settle(t, m.Ack)
			return
		case errors.Is(err, queue.ErrNoSplit):
			// The record is gone (deleted by hand): nothing to count into.
			r.log.Warn("worker: subtree job of no split search", "subject", m.Subject(), "err", err)
			r.settle(t, m.Ack)
			return
		case !errors.Is(err, search.ErrPrefix):
			// NATS failing, or this host cannot split the puzzle (its
			// tables have not arrived): another delivery, maybe elsewhere.
			r.retry(t, meta, err)
			return
		}
	}
	// Malformed: kept as a dead letter, never dropped.
	reason := fmt.Sprintf("subtree job: %v", err)
	pctx, cancel := context.WithTimeout(r.hard, publishTimeout)
	defer cancel()
	if perr := queue.PublishDeadJob(pctx, r.js, m.Data(), m.Subject(), meta.Sequence.Stream, reason); perr != nil {
		r.retry(t, meta, perr)
		return
	}
	r.settle(t, m.Term)
}

// splitResult is the state's row from its ended record: the same as an
// unsplit solve's, the answer replayed before it leaves.
func (r *runner) splitResult(rec job.SplitRecord, st puzzle.State, name string) (result.Result, error) {
	res := result.Result{Puzzle: rec.Puzzle, State: rec.State, Nodes: rec.Nodes, LowerBound: rec.Lower, Solver: name,
		ElapsedMS: float64(time.Since(rec.Started).Microseconds()) / 1000}
	switch rec.End {
	case job.EndSolved:
		var moves []puzzle.Move
		if err := r.split(st.Spec, func(sp search.Splitter) error { moves = sp.Moves(rec.Path); return nil }); err != nil {
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
