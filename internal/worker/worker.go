// Package worker is the solve loop of solverd (and of producer --local):
// claim a job from TESSERA_JOBS, solve its states, publish the results to
// TESSERA_RESULTS, then ack. Every job ends as results — solved, invalid
// or failed — never silently dropped:
//   - a malformed job is answered with invalid results (or, if it does not
//     even name its rows, copied to TESSERA_DEAD) before it is terminated;
//   - a transient failure (publish error, solver panic) is handed back with
//     a delay growing with the delivery count;
//   - a job that exhausts its deliveries is recorded as failed by the
//     dead-letter handler (RecordExhausted), which Run also starts.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/split"
)

// SolveFunc solves one state. Bad input must come back as a Result with
// status invalid or unsolvable, not as a panic.
type SolveFunc func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result

// Options configure Run. Zero values take the defaults noted.
type Options struct {
	// Workers is the number of workers that take jobs of both lanes, the
	// quick lane first (default runtime.GOMAXPROCS(0): the cores this
	// process may use, which since Go 1.25 honours a container's CPU limit,
	// where runtime.NumCPU counts the host's).
	Workers int
	// QuickWorkers is the number of further workers that take quick jobs
	// only, so that cheap work never waits behind heavy jobs holding every
	// other worker (solver.quick_workers, 1 by default).
	QuickWorkers int
	// Batch is how many jobs an idle worker claims per pull (default 1).
	// One is right whenever a job takes long: a claimed job's ack clock
	// runs while it waits. Tiny puzzles are chunked many states per job
	// by the producer instead.
	Batch int
	// PollWait is how long one pull waits for work (default 500ms). It
	// also bounds how long an idle worker takes to notice a stop: a pull
	// in flight is not cancelled, since the jobs the server is sending it
	// would be stranded until their ack wait passes.
	PollWait time.Duration
	// Ceiling is this host's limit on every job's per-state budget
	// (solver.max_nodes, solver.timeout; zero fields: none): a job asking
	// for more, or for nothing, gets the host's (search.Grant, at decode).
	Ceiling search.Budget
	// Threads is how many goroutines one search may use (solver.threads;
	// 0 or 1: one): the host's, whatever the job.
	Threads int
	// JobTimeout caps the wall time of one job message; states not done by
	// then end as budget_exceeded. 0 means no cap beyond the job's own
	// per-state budget.
	JobTimeout time.Duration
	// DrainTimeout is how long in-flight jobs may keep running after ctx is
	// cancelled before they are handed back to the server (default 30s).
	DrainTimeout time.Duration
	// RetryDelay is the redelivery delay after a transient failure on the
	// first delivery; it doubles with each delivery, up to 64× (default 1s).
	RetryDelay time.Duration
	// Queue holds the consumer settings Run ensures at start (default
	// queue.DefaultConfig()).
	Queue *queue.Config
	// Solve solves one state (required; usually a solve.Solver's
	// SolveText, built by the main from its registry).
	Solve SolveFunc
	// NoDeadLetters leaves out the dead-letter handler (RecordExhausted),
	// for a process that must not run it.
	NoDeadLetters bool
	// Log receives diagnostics about handled failures (default slog.Default()).
	Log *slog.Logger
	// OnJob, if set, is called when a worker takes up a claimed job message
	// (JobInfo); the func it returns is called when the job is settled
	// (metrics: queue lag, jobs in flight; the registry of workers).
	OnJob func(JobInfo) (done func())
	// Split, when set, solves the optimal states of jobs marked split as
	// split searches (split.go); nil solves them whole.
	Split solve.SplitFunc
	// SubtreeNodes is the size a subtree job aims at (default
	// split.DefaultSubtreeNodes).
	SubtreeNodes int64
	// SubtreeWindow is how many subtree jobs of one split state are out
	// unanswered at most (default split.DefaultSubtreeWindow).
	SubtreeWindow int
	// SplitStall is how long a coordinator waits for the next answer of
	// an iteration before it logs the stall and publishes the unanswered
	// subtree jobs again (default split.DefaultStall); each stall in a row
	// doubles it, to eight times, so that a subtree that is merely long is
	// not searched over and over.
	SplitStall time.Duration
	// SplitRecord, if set, records every split-search walk and subtree
	// this process searches (solver.split_record, split.Recorder).
	SplitRecord *split.Recorder
	// OnSubtrees, if set, is called with n subtree jobs of split searches
	// that this process published (event "published") or answered, its
	// answer counted into the record ("answered"): metrics.
	OnSubtrees func(event string, n int)
	// OnReady, if set, is called once the consumers every worker pulls
	// from exist: from then on the process can take work (readiness).
	OnReady func()
	// OnSplitRow, if set, is called with each row a split search made
	// (Solve never sees those states), so that they are counted as any
	// solved row is (metrics: tessera_solver_solves_total).
	OnSplitRow func(puzzle string, mode result.Mode, r result.Result)
	// OnSplitNodes, if set, is called with the nodes of each walk and
	// subtree of a split search that this process searched (metrics count
	// nodes where they were expanded; the row's total is the whole
	// fleet's).
	OnSplitNodes func(puzzle string, nodes int64)
}

func (o *Options) defaults() {
	if o.Workers < 1 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	o.QuickWorkers = max(o.QuickWorkers, 0)
	if o.Batch < 1 {
		o.Batch = 1
	}
	if o.PollWait <= 0 {
		o.PollWait = 500 * time.Millisecond
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 30 * time.Second
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Second
	}
	if o.Queue == nil {
		c := queue.DefaultConfig()
		o.Queue = &c
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
}

// ErrDrain is returned by Run when jobs were still running at the drain
// deadline and their workers did not stop; the jobs were handed back.
var ErrDrain = errors.New("worker: jobs still running after the drain deadline")

// maxStuckGrace bounds how long Run waits for workers after the drain
// deadline has handed their jobs back.
const maxStuckGrace = 2 * time.Second

type runner struct {
	opts Options
	js   jetstream.JetStream
	cons lanes
	cc   jetstream.ConsumerConfig
	log  *slog.Logger
	// cancelled and paused are the live sets of cancelled and paused
	// batches (nil when the server could not provide them: then nothing is
	// cancelled or paused).
	cancelled, paused *queue.BatchSet
	// blocked counts the workers holding answers that NATS will not take
	// yet (a full store, a lost quorum): while any does, none pulls more
	// work, so that an outage slows the fleet instead of failing jobs.
	blocked atomic.Int32
	hard    context.Context // cancelled at the drain deadline: solves stop, jobs are handed back
	beats   *heartbeats
	// searches and splitCons serve split searches (nil without
	// Options.Split).
	searches  *split.Searches
	splitCons jetstream.Consumer
}

// Run ensures the solverd consumer, then solves jobs with opts.Workers
// workers until ctx is cancelled. On cancel it drains: workers stop
// pulling, unstarted claimed jobs are handed back at once, running jobs
// finish and are published and acked; jobs still running after
// DrainTimeout are handed back and their solves cancelled. It returns nil
// after a clean drain.
func Run(ctx context.Context, js jetstream.JetStream, opts Options) error {
	if opts.Solve == nil {
		return errors.New("worker: Options.Solve is required")
	}
	opts.defaults()
	if err := opts.Queue.Validate(); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	var cons lanes
	err := setUp(ctx, opts.Log, "worker", func() error {
		return cons.ensure(ctx, js, *opts.Queue)
	})
	if err == nil && !opts.NoDeadLetters {
		err = setUp(ctx, opts.Log, "worker", func() error {
			// Fail rather than run without anyone recording exhausted jobs.
			_, err := queue.EnsureDeadConsumer(ctx, js, *opts.Queue)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	hard, hardStop := context.WithCancel(context.WithoutCancel(ctx))
	defer hardStop()
	r := &runner{opts: opts, js: js, cons: cons, cc: cons[heavy][normal].CachedInfo().Config, log: opts.Log, hard: hard}
	r.beats = newHeartbeats(r.cc)
	var splits *queue.Splits
	if opts.Split != nil {
		// Opening a bucket times out while its leader is being elected:
		// waited out like the consumers' set-up.
		if err = setUp(ctx, opts.Log, "worker: split buckets", func() (err error) {
			splits, err = queue.OpenSplits(ctx, js, *opts.Queue)
			return err
		}); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		if err = setUp(ctx, opts.Log, "worker: split consumer", func() (err error) {
			r.splitCons, err = queue.EnsureSplitConsumer(ctx, js, *opts.Queue)
			return err
		}); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
	}
	if r.cancelled, err = queue.WatchCancelled(hard, js, *opts.Queue); err != nil {
		r.log.Warn("worker: cannot follow cancelled batches; their jobs will be solved", "err", err)
	}
	if r.paused, err = queue.WatchPaused(hard, js, *opts.Queue); err != nil {
		r.log.Warn("worker: cannot follow paused batches; their jobs will be solved", "err", err)
	}
	if splits != nil {
		r.searches = split.New(split.Config{Splits: splits, Split: opts.Split, Cancelled: r.cancelled,
			SubtreeNodes: opts.SubtreeNodes, Window: opts.SubtreeWindow, Stall: opts.SplitStall, Record: opts.SplitRecord,
			OnSubtrees: opts.OnSubtrees, OnNodes: opts.OnSplitNodes, Help: r.helpOne, Closed: js.Conn().IsClosed, Log: opts.Log})
	}
	go r.beats.run(hard)
	if opts.OnReady != nil {
		opts.OnReady()
	}
	unparked := make(chan struct{})
	go func() { defer close(unparked); r.unparkLoop(ctx) }()
	defer func() { <-unparked }()

	var dead chan error
	if !opts.NoDeadLetters {
		dead = make(chan error, 1)
		go func() { dead <- RecordExhausted(ctx, js, *opts.Queue, opts.Log) }()
	}

	var wg sync.WaitGroup
	for i := range opts.Workers + opts.QuickWorkers {
		wg.Go(func() { r.loop(ctx, i, i >= opts.Workers) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	var runErr error
	select {
	case <-done:
	case <-ctx.Done():
		select {
		case <-done:
		case <-time.After(opts.DrainTimeout):
			hardStop()
			n := r.beats.handBack()
			select {
			case <-done:
			case <-time.After(min(opts.DrainTimeout, maxStuckGrace)):
				runErr = fmt.Errorf("%w: %d handed back, workers still busy", ErrDrain, n)
			}
		}
	}
	if dead != nil {
		if err := <-dead; err != nil && !errors.Is(err, context.Canceled) {
			runErr = errors.Join(runErr, err)
		}
	}
	// Acks are fire-and-forget: make sure they left before the caller
	// closes the connection.
	if err := js.Conn().FlushTimeout(5 * time.Second); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("worker: flush acks: %w", err))
	}
	return runErr
}

// lanes holds a worker's consumers of whole jobs, by lane (laneOrder)
// and priority (job.Priorities).
type lanes [2][3]jetstream.Consumer

// laneOrder is the order a worker looks for work in.
var laneOrder = [2]job.Lane{job.LaneQuick, job.LaneHeavy}

const (
	quick = 0
	heavy = 1

	high   = 0
	normal = 1
	low    = 2
)

// ensure finds or creates every consumer of l (it is idempotent, so it
// also puts back one that was deleted).
func (l *lanes) ensure(ctx context.Context, js jetstream.JetStream, c queue.Config) error {
	for i, lane := range laneOrder {
		for p, prio := range job.Priorities() {
			cons, err := queue.EnsureJobsConsumerAt(ctx, js, c, lane, prio)
			if err != nil {
				return err
			}
			l[i][p] = cons
		}
	}
	return nil
}

// priorityOrder is the order in which a worker's n-th pull looks at the
// priorities of a lane: high first, except one pull in ten that looks at
// normal first and one in ten at low first, so that a flood of higher
// work slows the lower levels down without stopping them.
func priorityOrder(n uint64) [3]int {
	switch n % 10 {
	case 4:
		return [3]int{normal, high, low}
	case 9:
		return [3]int{low, normal, high}
	}
	return [3]int{high, normal, low}
}

// loop is one worker: pull when idle, process, repeat until ctx is done.
// A quickOnly worker takes quick jobs alone; the others take a quick job
// when one is waiting and otherwise wait for a heavy one.
func (r *runner) loop(ctx context.Context, id int, quickOnly bool) {
	cons := r.cons
	for n := uint64(0); ctx.Err() == nil; n++ {
		if r.blocked.Load() > 0 {
			// Another worker's answers wait for NATS to take them.
			select {
			case <-ctx.Done():
			case <-time.After(blockedPoll):
			}
			continue
		}
		var msgs []jetstream.Msg
		err := backoff.Retry(ctx, pullBackoff, func() error {
			// The pull uses r.hard, not ctx: cancelling a pull in flight
			// would strand the messages the server is sending until their
			// ack wait passes. It ends within PollWait anyway.
			var err error
			msgs, err = r.pull(&cons, quickOnly, priorityOrder(n))
			if err != nil && r.hard.Err() != nil {
				return backoff.Permanent(err)
			}
			return err
		}, func(_ int, _ time.Duration, err error) {
			r.log.Warn("worker: pull failed", "worker", id, "err", err)
			// A deleted consumer shows as "consumer deleted" or, for the
			// next pull, "no responders": put it back (it is idempotent,
			// so trying after any failure is harmless).
			var again lanes
			if again.ensure(r.hard, r.js, *r.opts.Queue) == nil {
				cons = again
			}
		})
		if err != nil {
			return // stopping: Retry gives up only when ctx or r.hard ended
		}
		held := make([]*tracked, len(msgs))
		for i, m := range msgs {
			held[i] = r.beats.add(m)
		}
		for i, t := range held {
			if ctx.Err() != nil {
				// Draining: what has not started goes back at once.
				for _, u := range held[i:] {
					u.settle(u.msg.Nak)
					r.beats.remove(u)
				}
				break
			}
			r.process(t)
			r.beats.remove(t)
		}
	}
}

// cancelledJob is the reason j is not solved when its batch was cancelled,
// else "".
func (r *runner) cancelledJob(j job.Job) string {
	if at, ok := r.cancelled.At(j.BatchID); ok {
		return cancelReason(j.BatchID, at)
	}
	return ""
}

func cancelReason(batch int64, at string) string {
	return fmt.Sprintf("batch %d was cancelled at %s", batch, at)
}

// pull claims the next jobs: what is ready in the quick lane, its
// priorities in order; then, for a quickOnly worker, a wait of up to
// PollWait on the quick lane's normal priority. The others take what is
// ready of the subtree jobs and of the heavy lane's priorities in order,
// and then wait up to PollWait on the heavy lane's normal priority (high
// or low work arriving meanwhile waits at most PollWait).
func (r *runner) pull(cons *lanes, quickOnly bool, order [3]int) ([]jetstream.Msg, error) {
	ready := func(c jetstream.Consumer) ([]jetstream.Msg, error) {
		return queue.FetchReady(r.hard, c, r.opts.Batch)
	}
	for _, p := range order {
		if msgs, err := ready(cons[quick][p]); len(msgs) > 0 || err != nil {
			return msgs, err
		}
	}
	if quickOnly {
		return queue.Fetch(r.hard, cons[quick][normal], r.opts.Batch, r.opts.PollWait)
	}
	if r.splitCons != nil {
		// Subtree jobs before whole heavy jobs: they finish a state that
		// has started, and each is short.
		if msgs, err := ready(r.splitCons); len(msgs) > 0 || err != nil {
			return msgs, err
		}
	}
	for _, p := range order {
		if msgs, err := ready(cons[heavy][p]); len(msgs) > 0 || err != nil {
			return msgs, err
		}
	}
	return queue.Fetch(r.hard, cons[heavy][normal], r.opts.Batch, r.opts.PollWait)
}

// process handles one claimed job message to its end: acked, terminated or
// handed back.
func (r *runner) process(t *tracked) {
	m := t.msg
	meta, err := m.Metadata()
	if err != nil {
		// Not a JetStream delivery: nothing to ack, nothing to record.
		r.log.Error("worker: message without JetStream metadata", "subject", m.Subject(), "err", err)
		return
	}
	if r.searches != nil && isSubtree(m) {
		if r.opts.OnJob != nil {
			defer r.opts.OnJob(subtreeInfo(m, meta))()
		}
		r.processSubtree(r.hard, t)
		return
	}
	d := decodeJob(m.Data(), r.opts.Ceiling)
	d.opt.Threads = r.opts.Threads
	if r.opts.OnJob != nil {
		d.opt.Budget.Progress = new(atomic.Int64)
		defer r.opts.OnJob(jobInfo(m, meta, d, d.opt.Budget.Progress))()
	}
	resultsID := queue.ResultsMsgID(d.job.ID, m.Data())
	switch {
	case d.dead != "":
		r.log.Warn("worker: dead-lettering malformed job", "seq", meta.Sequence.Stream, "reason", d.dead)
		r.patiently(t, "dead letter", func(ctx context.Context) error {
			return queue.PublishDeadJob(ctx, r.js, m.Data(), m.Subject(), meta.Sequence.Stream, d.dead)
		}, m.Term)
		return
	case d.invalid == "" && r.cancelledJob(d.job) != "":
		// Every state of a cancelled batch still ends as a row, saying why.
		r.publishPatiently(t, uniform(d.job, result.StatusCancelled, r.cancelledJob(d.job)), resultsID, m.Ack)
		return
	case d.invalid == "" && r.pausedJob(d.job):
		// Parked, not handed back: a Nak would spend a delivery each time a
		// worker met the job, and a long pause would exhaust them.
		r.patiently(t, "park", func(ctx context.Context) error {
			return queue.Park(ctx, r.js, m, d.job.BatchID)
		}, m.Ack)
		return
	case d.invalid != "":
		r.log.Warn("worker: invalid job", "job", d.job.ID, "reason", d.invalid)
		r.publishPatiently(t, uniform(d.job, result.StatusInvalid, d.invalid), resultsID, m.Term)
		return
	}

	res, panicked := r.solveAll(t, d, meta)
	if r.hard.Err() != nil {
		// Cancelled at the drain deadline: the answers may be cut short.
		r.settle(t, m.Nak)
		return
	}
	if panicked != nil {
		r.retry(t, meta, panicked)
		return
	}
	r.publishPatiently(t, res, resultsID, m.Ack)
}

// pausedJob reports whether j's batch is paused (and not cancelled: a
// cancel answers its jobs at once).
func (r *runner) pausedJob(j job.Job) bool {
	_, ok := r.paused.At(j.BatchID)
	return ok
}

// last reports whether this is the job's last delivery.
func (r *runner) last(meta *jetstream.MsgMetadata) bool {
	return r.cc.MaxDeliver > 0 && meta.NumDelivered >= uint64(r.cc.MaxDeliver)
}

// solveAll solves every state of the job. A panicking solve is retried on
// a later delivery (the job is handed back); on the last delivery it is
// recorded as that state's failed result, so one poison state does not
// fail the others.
func (r *runner) solveAll(t *tracked, d decoded, meta *jetstream.MsgMetadata) (job.Results, error) {
	j := d.job
	ctx, cancel := r.hard, context.CancelFunc(func() {})
	if r.opts.JobTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, r.opts.JobTimeout)
	}
	defer cancel()
	// The batch's cancel ends the solves through their context; a split
	// search follows the cancel through its record instead.
	cctx, stopCancel := r.cancelled.Context(ctx, j.BatchID)
	defer stopCancel()
	t.beatFor(r.jobLimit(j, d.opt))
	last := r.last(meta)
	res := results(j)
	res.Results = make([]result.Result, len(j.States))
	for i, s := range j.States {
		if cancelled(cctx) {
			at, _ := r.cancelled.At(j.BatchID)
			res.Results[i] = result.Result{Puzzle: res.Puzzle, State: s, Status: result.StatusCancelled, Error: cancelReason(j.BatchID, at)}
			continue
		}
		var out result.Result
		var err error
		if j.Split && r.searches != nil && d.opt.Mode == result.ModeOptimal {
			out, err = r.searches.Solve(ctx, j, j.FirstSeq+int64(i), d.spec, s, d.opt)
			if err == nil && r.opts.OnSplitRow != nil {
				r.opts.OnSplitRow(d.spec.String(), d.opt.Mode, out)
			}
		}
		if !j.Split || r.searches == nil || d.opt.Mode != result.ModeOptimal || errors.Is(err, split.ErrNoSplitSearch) {
			out, err = r.solveOne(cctx, d.spec, s, d.opt)
			if err == nil && out.Status == result.StatusBudgetExceeded && cancelled(cctx) {
				// Stopped by the cancel, not by its budget: the row keeps
				// the nodes spent and the bound proved.
				at, _ := r.cancelled.At(j.BatchID)
				out.Status, out.Error = result.StatusCancelled, cancelReason(j.BatchID, at)+fmt.Sprintf(" while it was solved (%d nodes spent)", out.Nodes)
			}
		}
		if err != nil {
			if !last {
				return res, fmt.Errorf("job %s state %d: %w", j.ID, j.FirstSeq+int64(i), err)
			}
			out = result.Result{Puzzle: res.Puzzle, State: s, Status: result.StatusFailed,
				Error: fmt.Sprintf("%v (delivery %d of %d)", err, meta.NumDelivered, r.cc.MaxDeliver)}
		}
		if !out.Status.Valid() {
			// The writer would reject the whole message over one row.
			out = result.Result{Puzzle: res.Puzzle, State: s, Status: result.StatusFailed, Solver: out.Solver,
				Error: fmt.Sprintf("internal error: solver returned status %q", out.Status)}
		}
		res.Results[i] = out
	}
	return res, nil
}

func (r *runner) solveOne(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) (res result.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("solver panic: %v", p)
		}
	}()
	return r.opts.Solve(ctx, spec, text, opt), nil
}

// jobLimit is how long a job may legitimately run: the heartbeats stop
// after it, so a solver that hangs ignoring its budget lets the server
// redeliver the job (and eventually record it failed) instead of holding
// it forever. Zero means no limit is known.
func (r *runner) jobLimit(j job.Job, opt solve.Options) time.Duration {
	var lim time.Duration
	if opt.Budget.Timeout > 0 {
		lim = time.Duration(len(j.States)) * opt.Budget.Timeout
	}
	if r.opts.JobTimeout > 0 && (lim == 0 || r.opts.JobTimeout < lim) {
		lim = r.opts.JobTimeout
	}
	if lim == 0 {
		return 0
	}
	// Slack for the work around the solves (parsing, verification, publish).
	return lim + lim/10 + min(lim, time.Second)
}

// cancelled reports whether ctx was ended by its batch's cancel.
func cancelled(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), queue.ErrBatchCancelled)
}

// publishPatiently publishes res under id, then settles t with then.
// Every row keeps the delivery that answered it (its attempts).
func (r *runner) publishPatiently(t *tracked, res job.Results, id string, then func() error) {
	if meta, err := t.msg.Metadata(); err == nil {
		for i := range res.Results {
			res.Results[i].Attempts = int(meta.NumDelivered)
		}
	}
	r.patiently(t, "results", func(context.Context) error { return r.publish(res, id) }, then)
}

// patiently runs f until it succeeds, then settles t with then. A failure
// here is NATS's, not the job's (the server is down, has lost its quorum,
// or its store is full): the job keeps its delivery count, its heartbeats
// go on, and no worker of this process pulls more work until f succeeds,
// so an outage never turns a solvable state into a failed row. Only the
// drain deadline hands the job back.
func (r *runner) patiently(t *tracked, what string, f func(context.Context) error, then func() error) {
	err := f(r.hard)
	if err == nil {
		r.settle(t, then)
		return
	}
	if queue.BadRequest(err) {
		// Not an outage: the request itself is wrong, and only a later
		// delivery (after a fix) can do better.
		if meta, merr := t.msg.Metadata(); merr == nil {
			r.retry(t, meta, err)
			return
		}
	}
	t.beatFor(0) // the answer is in hand: hold the job as long as it takes
	r.blocked.Add(1)
	defer r.blocked.Add(-1)
	since := time.Now()
	why := "NATS does not take the " + what
	if queue.IsStoreFull(err) {
		why += " (its stream is full: the writers are behind or stopped)"
	}
	r.log.Warn("worker: "+why+"; holding the job and pulling no more work until it does",
		"subject", t.msg.Subject(), "err", err)
	nextLog := since.Add(time.Minute)
	for attempt := 1; ; attempt++ {
		select {
		case <-r.hard.Done():
			r.settle(t, t.msg.Nak)
			return
		case <-time.After(holdBackoff.Delay(attempt)):
		}
		if err = f(r.hard); err == nil {
			r.log.Info("worker: NATS took the "+what+" again", "subject", t.msg.Subject(), "after", time.Since(since).Round(time.Millisecond))
			r.settle(t, then)
			return
		}
		if now := time.Now(); now.After(nextLog) {
			nextLog = now.Add(time.Minute)
			r.log.Warn("worker: NATS still does not take the "+what, "subject", t.msg.Subject(), "for", now.Sub(since).Round(time.Second), "err", err)
		}
	}
}

// holdBackoff paces the attempts of patiently: from 100 ms up to 5 s.
var holdBackoff = backoff.Policy{Min: 100 * time.Millisecond, Max: 5 * time.Second}

// blockedPoll is how often an idle worker looks whether the answers that
// NATS refused have gone through.
const blockedPoll = 100 * time.Millisecond

// publish publishes a job's results under id (queue.ResultsMsgID of the
// job message); a result too large for a message is cut down by the queue
// (queue.FitResult), never refused.
func (r *runner) publish(res job.Results, id string) error {
	storable(&res)
	ctx, cancel := context.WithTimeout(r.hard, queue.PublishTimeout)
	defer cancel()
	return queue.PublishResultsID(ctx, r.js, res, id)
}

// retry hands the job back with a delay growing with its delivery count;
// after MaxDeliver deliveries the dead-letter handler records it failed.
//
// The delay is what the job actually waits. A consumer with BackOff does
// not honour NakWithDelay(d) as written: nats-server (2.9.10 and 2.15
// alike, measured) redelivers delivery n after d + BackOff[n-1] - BackOff[0],
// so with the default BackOff (30s 1m 2m 4m) a poison job took minutes to
// exhaust its deliveries. The extra is subtracted; when it exceeds the
// delay the message is held here (heartbeats keep it) for the delay and
// then Nak'ed plainly, which both versions redeliver at once.
func (r *runner) retry(t *tracked, meta *jetstream.MsgMetadata, cause error) {
	delay := backoff.Policy{Min: r.opts.RetryDelay, Max: 64 * r.opts.RetryDelay}.Delay(int(meta.NumDelivered))
	r.log.Warn("worker: job handed back for retry", "seq", meta.Sequence.Stream,
		"delivery", meta.NumDelivered, "delay", delay, "err", cause)
	extra := queue.AckDeadline(r.cc, meta.NumDelivered) - queue.AckDeadline(r.cc, 1)
	if delay > extra {
		r.settle(t, func() error { return t.msg.NakWithDelay(delay - extra) })
		return
	}
	// Hand the message to a tracked entry of its own (the caller forgets
	// t), heartbeat it, and Nak it when the delay is over or at the drain
	// deadline, whichever comes first.
	h := r.beats.add(t.msg)
	if t.settle(func() error { return nil }) != nil {
		return
	}
	var once sync.Once
	fire := func() {
		once.Do(func() {
			r.settle(h, h.msg.Nak)
			r.beats.remove(h)
		})
	}
	timer := time.AfterFunc(delay, fire)
	context.AfterFunc(r.hard, func() {
		if timer.Stop() {
			fire()
		}
	})
}

func (r *runner) settle(t *tracked, f func() error) {
	if err := t.settle(f); err != nil {
		// The server will redeliver when the ack wait passes; results are
		// deduplicated, so this costs time, not correctness.
		r.log.Warn("worker: ack failed", "subject", t.msg.Subject(), "err", err)
	}
}

// pullBackoff paces the pulls after a failed one (NATS down, consumer
// deleted): 100 ms longer each time, up to 5 s.
var pullBackoff = backoff.Policy{Min: 100 * time.Millisecond, Max: 5 * time.Second, Linear: true}
