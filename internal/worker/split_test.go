package worker_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/split"
	"github.com/tessera-solver/tessera/internal/testenv"
	"github.com/tessera-solver/tessera/internal/worker"
)

var (
	pdb555Once sync.Once
	pdb555     *pdb.Set
)

// solver555 is a solver over the 5-5-5 tables of the 15-puzzle, built in
// memory once (a third of a second).
func solver555(t *testing.T) *solve.Solver {
	t.Helper()
	pdb555Once.Do(func() {
		pdbs, _, err := pdb.BuildPartition(context.Background(), pdb.Partition555, pdb.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if pdb555, err = pdb.NewSet(pdbs...); err != nil {
			t.Fatal(err)
		}
	})
	if pdb555 == nil {
		t.Fatal("no tables")
	}
	return solve.New(solve.NewRegistry(solve.Entry{Name: "15-pdb-555",
		Serves: func(sp puzzle.Spec, _ result.Mode) bool {
			return sp.Kind == puzzle.Sliding && sp.Rows == 4 && sp.Cols == 4
		},
		New: func(puzzle.Spec) (search.Algorithm, error) { return pdb.NewSolver(pdb555, true) }}))
}

// korfStates are some of Korf's 100 with their optimal lengths.
func korfStates(ids ...int) (texts []string, opt map[string]int) {
	opt = map[string]int{}
	want := map[int]bool{}
	for _, id := range ids {
		want[id] = true
	}
	spec, _ := puzzle.ParseSpec("sliding:4x4")
	for _, k := range instances.Korf100() {
		if want[k.ID] {
			s := puzzle.State{Spec: spec, Cells: k.Cells}.String()
			texts = append(texts, s)
			opt[s] = k.Opt
		}
	}
	return texts, opt
}

// splitJob is a split job of one state.
func splitJob(batch, seq int64, state string) job.Job {
	return job.Job{V: job.Version, ID: fmt.Sprintf("%d-%d", batch, seq), BatchID: batch, Puzzle: "sliding:4x4", FirstSeq: seq,
		States: []string{state}, Mode: "optimal", Split: true}
}

// checkSplitRow checks a split row against the unsplit solve of its state.
func checkSplitRow(t *testing.T, r result.Result, opt int, sv *solve.Solver) {
	t.Helper()
	spec, _ := puzzle.ParseSpec(r.Puzzle)
	st, err := puzzle.Parse(spec, r.State)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := puzzle.ParseMoves(spec, r.Moves)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != result.StatusSolved || !r.Optimal || r.Length != opt || r.LowerBound != opt || puzzle.VerifyMoves(st, ms, st.Goal()) != nil {
		t.Fatalf("split row %+v, optimum %d", r, opt)
	}
	whole := sv.SolveText(context.Background(), spec, r.State, solve.Options{})
	if whole.Length != r.Length || whole.Optimal != r.Optimal || whole.Status != r.Status {
		t.Fatalf("split %+v, unsplit %+v", r, whole)
	}
}

// Split jobs through NATS, on two processes of one worker each: every
// state's row is the unsplit solve's (optimal length, replayed moves,
// optimal true, lower bound = length), the record has ended solved with
// its subtrees counted, and subtree jobs were published.
func TestSplitSolvesLikeUnsplit(t *testing.T) {
	e := newEnv(t, fastConfig())
	sv := solver555(t)
	var published sync.Map
	var rows atomic.Int64                             // split rows handed to OnSplitRow (the solves metric)
	var record testenv.SyncBuffer                     // both processes append to it while the test reads it
	recorder, err := split.NewRecorder(&record, true) // both processes append to one record
	if err != nil {
		t.Fatal(err)
	}
	for p := range 2 {
		e.start(t, worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split, SubtreeNodes: 1024, SplitRecord: recorder,
			OnSubtrees: func(event string, n int) {
				v, _ := published.LoadOrStore(event+strconv.Itoa(p), new(int))
				*v.(*int) += n
			},
			OnSplitRow: func(puzzle string, mode result.Mode, r result.Result) {
				if puzzle == "sliding:4x4" && mode == result.ModeOptimal && r.Status == result.StatusSolved && r.Optimal {
					rows.Add(1)
				}
			}})
	}
	states, opt := korfStates(1, 2, 5, 6, 9)
	for i, s := range states {
		e.publish(t, splitJob(31, int64(i), s))
	}
	got := e.results(t, len(states))
	splits, err := queue.OpenSplits(e.ctx, e.js, e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range got {
		r := rs.Results[0]
		checkSplitRow(t, r, opt[r.State], sv)
		rec, _, err := splits.Get(e.ctx, job.SplitKey(31, rs.FirstSeq))
		if err != nil || rec.End != job.EndSolved || rec.Nodes != r.Nodes || rec.Iteration < 2 || rec.Exhausted == 0 {
			t.Fatalf("record %+v %v, row nodes %d", rec, err, r.Nodes)
		}
		if rs.JobID != fmt.Sprintf("%d-%d", 31, rs.FirstSeq) {
			t.Fatalf("results id %s", rs.JobID)
		}
		checkSplitRecord(t, record.String(), rec)
	}
	count := func(event string) int {
		n := 0
		for p := range 2 {
			if v, ok := published.Load(event + strconv.Itoa(p)); ok {
				n += *v.(*int)
			}
		}
		return n
	}
	// Every published subtree is answered once, except those a solution
	// made moot; the coordinators' own (small iterations) are answered too.
	if n := count("published"); n == 0 || count("answered") == 0 {
		t.Fatalf("%d subtree jobs published, %d answered: nothing was split", n, count("answered"))
	}
	t.Logf("%d subtree jobs published, %d subtrees answered", count("published"), count("answered"))
	// Subtrees heavy in one iteration were split deeper in the next
	// (search.Refine): pieces deeper than their iteration's split depth,
	// and the rows above are still the unsplit ones.
	if n := refinedPieces(record.String()); n == 0 {
		t.Fatal("no heavy subtree was split deeper")
	} else {
		t.Logf("%d subtrees below their iteration's split depth", n)
	}
	// Each split row is counted as a solve (a redelivered parent may count
	// its row again, as a redelivered job does; none is redelivered here).
	if n := rows.Load(); n != int64(len(states)) {
		t.Fatalf("%d split rows counted, want %d", n, len(states))
	}
}

// refinedPieces counts the split record's subtrees deeper than the depth
// their iteration was laid out at.
func refinedPieces(record string) int {
	depth := map[string]string{} // key and iteration: the laying walk's depth
	n := 0
	for _, l := range strings.Split(record, "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 9 {
			continue
		}
		it := f[0] + "/" + f[1]
		switch {
		case f[3] == "walk" && f[5] == "-1":
			depth[it] = f[4]
		case f[3] == "subtree" && depth[it] != "":
			d, _ := strconv.Atoi(f[4])
			if laid, _ := strconv.Atoi(depth[it]); d > laid {
				n++
			}
		}
	}
	return n
}

// checkSplitRecord checks the split record's lines of key against its
// record: the walks that laid iterations out (index -1), the subtrees and
// the coordinator's own searches of the exhausted iterations add up to
// their nodes, each counted once; those of the last iteration to at least
// what the row counted of it (a subtree searched after the goal was found
// is listed, not counted); and the CPU time was measured.
func checkSplitRecord(t *testing.T, record string, rec job.SplitRecord) {
	t.Helper()
	key := job.SplitKey(rec.Batch, rec.Seq)
	var before, last int64
	var cpu time.Duration
	lines := 0
	for _, l := range strings.Split(record, "\n") {
		f := strings.Split(l, "\t")
		if f[0] != key {
			continue
		}
		if len(f) != 9 {
			t.Fatalf("record line %q", l)
		}
		it, _ := strconv.Atoi(f[1])
		n, _ := strconv.ParseInt(f[6], 10, 64)
		c, _ := strconv.ParseInt(f[7], 10, 64)
		cpu += time.Duration(c)
		lines++
		switch {
		case f[5] == "-2": // the publishing walk is not in the state's count
		case it < rec.Iteration:
			before += n
		default:
			last += n
		}
	}
	if before != rec.Exhausted || last < rec.Nodes-rec.Exhausted || cpu <= 0 {
		t.Fatalf("record of %s: %d lines, %d nodes before the last iteration and %d in it, %v CPU; the record %d exhausted, %d in all",
			key, lines, before, last, cpu, rec.Exhausted, rec.Nodes)
	}
}

// splitRecord waits for the record of key to satisfy cond and returns it.
func splitRecord(t *testing.T, e *env, key string, cond func(job.SplitRecord) bool) job.SplitRecord {
	t.Helper()
	splits, err := queue.OpenSplits(e.ctx, e.js, e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	var rec job.SplitRecord
	eventually(t, "split record "+key, func() bool {
		var err error
		rec, _, err = splits.Get(e.ctx, key)
		return err == nil && cond(rec)
	})
	return rec
}

// A process killed mid-split (its connection dropped: no ack, no nak, no
// last write) costs time, not the answer: another process continues from
// the record, the row is optimal and replays, and the nodes of the
// exhausted iterations equal those of a run nobody killed: no subtree
// was counted twice.
func TestSplitSurvivesKilledProcess(t *testing.T) {
	sv := solver555(t)
	states, opt := korfStates(3)
	o := func() worker.Options {
		return worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split, SubtreeNodes: 2048}
	}
	key := job.SplitKey(41, 0)

	// The reference: one process, undisturbed.
	ref := newEnv(t, fastConfig())
	ref.start(t, o())
	ref.publish(t, splitJob(41, 0, states[0]))
	checkSplitRow(t, ref.results(t, 1)[0].Results[0], opt[states[0]], sv)
	want := splitRecord(t, ref, key, func(r job.SplitRecord) bool { return r.End != "" })

	url, nc := natstest.Server(t)
	e := newEnvOn(t, nc, fastConfig())
	doomed, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	a := newEnvOn(t, doomed, fastConfig())
	a.start(t, o())
	a.publish(t, splitJob(41, 0, states[0]))
	mid := splitRecord(t, e, key, func(r job.SplitRecord) bool {
		return r.Iteration == want.Iteration-1 && r.Count > 0 && !split.Complete(r)
	})
	doomed.Close() // kill -9, as NATS sees it
	a.stop()
	e.start(t, o())
	rs := e.results(t, 1)[0]
	r := rs.Results[0]
	checkSplitRow(t, r, opt[states[0]], sv)
	got := splitRecord(t, e, key, func(r job.SplitRecord) bool { return r.End != "" })
	if got.Exhausted != want.Exhausted || got.Iteration != want.Iteration || got.Bound != want.Bound || r.Nodes != got.Nodes {
		t.Fatalf("after a kill in iteration %d (%d of %d answered): exhausted %d nodes in %d iterations, undisturbed %d in %d; row nodes %d, record %d",
			mid.Iteration, mid.Count, mid.Total, got.Exhausted, got.Iteration, want.Exhausted, want.Iteration, r.Nodes, got.Nodes)
	}
	t.Logf("killed in iteration %d (%d of %d subtrees answered); %d nodes before the last iteration either way", mid.Iteration, mid.Count, mid.Total, got.Exhausted)
}

// Budgets are the whole state's: a split state over its nodes or its time
// ends as budget_exceeded with the lower bound the exhausted iterations
// proved, as an unsplit solve would.
func TestSplitBudgets(t *testing.T) {
	e := newEnv(t, fastConfig())
	sv := solver555(t)
	for range 2 {
		e.start(t, worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split, SubtreeNodes: 4096})
	}
	states, opt := korfStates(88)
	byNodes := splitJob(51, 0, states[0])
	byNodes.MaxNodes = 200_000
	byTime := splitJob(51, 1, states[0])
	byTime.TimeoutMS = 300
	e.publish(t, byNodes)
	e.publish(t, byTime)
	spec, _ := puzzle.ParseSpec("sliding:4x4")
	st, _ := puzzle.Parse(spec, states[0])
	var h0 int
	if _, err := sv.Split(spec, func(sp search.Splitter) (err error) { h0, err = sp.Root(st.Cells); return err }); err != nil {
		t.Fatal(err)
	}
	for _, rs := range e.results(t, 2) {
		r := rs.Results[0]
		if r.Status != result.StatusBudgetExceeded || r.Optimal || r.Moves != "" || r.LowerBound < h0 || r.LowerBound >= opt[states[0]] {
			t.Fatalf("seq %d: %+v (h0 %d, optimum %d)", rs.FirstSeq, r, h0, opt[states[0]])
		}
		if rs.FirstSeq == 0 && (r.Nodes < 200_000 || r.Nodes > 2*200_000) {
			t.Fatalf("node budget 200000: %d nodes", r.Nodes)
		}
		if rs.FirstSeq == 1 && r.ElapsedMS > 3000 {
			t.Fatalf("time budget 300 ms: %.0f ms", r.ElapsedMS)
		}
		rec := splitRecord(t, e, job.SplitKey(51, rs.FirstSeq), func(r job.SplitRecord) bool { return r.End != "" })
		if rec.End != job.EndBudget || rec.Lower != r.LowerBound {
			t.Fatalf("record %+v", rec)
		}
	}
}

// `results cancel` (the cancelled-batches bucket) ends a split search
// within seconds: its row says so, and no subtree job is left behind.
func TestSplitCancelled(t *testing.T) {
	e := newEnv(t, fastConfig())
	sv := solver555(t)
	for range 2 {
		e.start(t, worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split, SubtreeNodes: 4096})
	}
	states, _ := korfStates(88)
	e.publish(t, splitJob(61, 0, states[0]))
	splitRecord(t, e, job.SplitKey(61, 0), func(r job.SplitRecord) bool { return r.Iteration >= 4 })
	at := time.Now()
	if err := queue.CancelBatch(e.ctx, e.js, e.cfg, 61, at); err != nil {
		t.Fatal(err)
	}
	r := e.results(t, 1)[0].Results[0]
	if took := time.Since(at); r.Status != result.StatusCancelled || !strings.Contains(r.Error, "cancelled") || took > 5*time.Second {
		t.Fatalf("after %v: %+v", took, r)
	}
	eventually(t, "no job left", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
}

// Two split states share the fleet: each keeps at most SubtreeWindow
// subtree jobs out unanswered, so neither's iteration queues ahead of the
// other's (without the window, one iteration of these states puts up to
// hundreds of jobs in the queue), and both end optimal.
func TestSplitWindowInterleaves(t *testing.T) {
	e := newEnv(t, fastConfig())
	sv := solver555(t)
	const window = 4
	for range 2 {
		e.start(t, worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split, SubtreeNodes: 1024, SubtreeWindow: window})
	}
	states, opt := korfStates(3, 10)
	cons, err := queue.EnsureSplitConsumer(e.ctx, e.js, e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	most := make(chan uint64, 1)
	go func() {
		var m uint64
		defer func() { most <- m }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if info, err := cons.Info(e.ctx); err == nil {
				// Waiting jobs only: acks are asynchronous, so the server
				// counts answered jobs as held for a moment longer.
				m = max(m, info.NumPending)
			}
		}
	}()
	for i, s := range states {
		e.publish(t, splitJob(71, int64(i), s))
	}
	for _, rs := range e.results(t, 2) {
		checkSplitRow(t, rs.Results[0], opt[rs.Results[0].State], sv)
	}
	close(stop)
	if m := <-most; m == 0 || m > 2*window {
		t.Fatalf("at most %d subtree jobs waiting at once, want 1 to %d", m, 2*window)
	}
}

// A worker whose read of the record is behind its subtree job (a read
// from before the iteration was laid out, as a replica behind a failover
// gives) searches the subtree and stores its answer: the job proves the
// iteration exists. A job of an iteration the record has left is acked
// unsearched.
func TestSplitAnswerAheadOfRecord(t *testing.T) {
	e := newEnv(t, fastConfig())
	sv := solver555(t)
	splits, err := queue.OpenSplits(e.ctx, e.js, e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	states, _ := korfStates(3)
	spec, _ := puzzle.ParseSpec("sliding:4x4")
	st, _ := puzzle.Parse(spec, states[0])
	// An iteration with a few subtrees: a bound a few steps above the root's.
	var bound int
	var f search.Frontier
	if _, err := sv.Split(spec, func(sp search.Splitter) (err error) {
		if bound, err = sp.Root(st.Cells); err == nil {
			bound += 6
			f, err = sp.Frontier(st.Cells, bound, 1, 4, search.Budget{})
		}
		return err
	}); err != nil || len(f.Subtrees) < 2 {
		t.Fatalf("frontier %+v %v", f, err)
	}
	// The record as the stale read shows it: iteration 1 of the layout.
	ahead, late := job.SplitKey(81, 0), job.SplitKey(81, 1)
	for i, key := range []string{ahead, late} {
		r := split.NewRecord(splitJob(81, int64(i), states[0]), int64(i), states[0], bound, search.Budget{}, time.Now())
		split.Lay(&r, f.Depth, len(f.Subtrees), f.Walked, f.Next)
		if key == late {
			r.Iteration = 3 // moved past the job's iteration 2
		}
		if _, err := splits.Create(e.ctx, r); err != nil {
			t.Fatal(err)
		}
		sj := job.SubtreeJob{V: job.Version, Key: key, Puzzle: "sliding:4x4", State: states[0], Iteration: 2, Bound: bound, Index: 1, Prefix: f.Subtrees[1]}
		if err := splits.PublishSubtree(e.ctx, spec, sj); err != nil {
			t.Fatal(err)
		}
	}
	e.start(t, worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split})
	eventually(t, "the answer of the job ahead of the record", func() bool {
		ok, err := splits.Answered(e.ctx, ahead, 2, 1)
		return err == nil && ok
	})
	eventually(t, "no job left", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
	if ok, err := splits.Answered(e.ctx, late, 2, 1); err != nil || ok {
		t.Fatalf("the late job was searched and stored: %v %v", ok, err)
	}
}

// Subtree jobs lost after they were published (here purged from the
// stream; on a failing cluster, acked and never answered) stall their
// iteration: after SplitStall without an answer the coordinator logs it
// and publishes the unanswered ones again under a new generation (the
// first generation's ids are still in the duplicate window, which would
// swallow them), and the search ends with the optimal length.
func TestSplitRepublishesAfterStall(t *testing.T) {
	e := newEnv(t, fastConfig())
	sv := solver555(t)
	var republished atomic.Int64
	var log testenv.SyncBuffer
	o := worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split, SubtreeNodes: 2048, SplitStall: 500 * time.Millisecond,
		OnSubtrees: func(event string, n int) {
			if event == "republished" {
				republished.Add(int64(n))
			}
		}}
	o.Queue = &e.cfg
	o.PollWait, o.RetryDelay = 100*time.Millisecond, 10*time.Millisecond
	o.Log = slog.New(slog.NewTextHandler(&log, nil))
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, e.js, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitFor):
			t.Error("worker did not stop")
		}
	})
	states, opt := korfStates(3)
	key := job.SplitKey(91, 0)
	e.publish(t, splitJob(91, 0, states[0]))
	// One worker answers its own subtree jobs one at a time, so most of a
	// distributed iteration's jobs wait in the stream.
	at := splitRecord(t, e, key, func(r job.SplitRecord) bool { return r.Laid() && r.Total-r.Count > 20 && r.Count > 0 })
	st, err := e.js.Stream(e.ctx, queue.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Purge(e.ctx, jetstream.WithPurgeSubject("tessera.jobs.split.>")); err != nil {
		t.Fatal(err)
	}
	purged := time.Now()
	r := e.results(t, 1)[0].Results[0]
	answered := time.Since(purged)
	checkSplitRow(t, r, opt[states[0]], sv)
	if republished.Load() == 0 || !strings.Contains(log.String(), "published again") {
		t.Fatalf("lost jobs in iteration %d (%d of %d answered), %d republished; log:\n%s", at.Iteration, at.Count, at.Total, republished.Load(), log.String())
	}
	lines := []string{}
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "published again") {
			lines = append(lines, l)
		}
	}
	t.Logf("jobs purged in iteration %d (%d of %d answered); the row %v after the purge; %d republished:\n%s", at.Iteration, at.Count, at.Total,
		answered.Round(time.Millisecond), republished.Load(), strings.Join(lines, "\n"))
}

// A split bucket that cannot be created when solverd starts (here its
// subjects are held by another stream; on a cluster, a leader not yet
// elected) is retried with a log line, not the end of Run: once the way
// is clear the worker sets up and solves a split state.
func TestSplitBucketSetUpRetried(t *testing.T) {
	e := newEnv(t, fastConfig())
	sv := solver555(t)
	_, err := e.js.CreateStream(e.ctx, jetstream.StreamConfig{Name: "SQUATTER", Subjects: []string{"$KV." + queue.SplitAnswersBucket + ".>"}})
	if err != nil {
		t.Fatal(err)
	}
	var log testenv.SyncBuffer
	o := worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split, SubtreeNodes: 2048}
	o.Queue = &e.cfg
	o.PollWait, o.RetryDelay = 100*time.Millisecond, 10*time.Millisecond
	o.Log = slog.New(slog.NewTextHandler(&log, nil))
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, e.js, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitFor):
			t.Error("worker did not stop")
		}
	})
	eventually(t, "a set-up retry logged", func() bool { return strings.Contains(log.String(), "split buckets: set-up failed, retrying") })
	select {
	case err := <-done:
		t.Fatalf("Run returned while the bucket could not be created: %v", err)
	default:
	}
	if err := e.js.DeleteStream(e.ctx, "SQUATTER"); err != nil {
		t.Fatal(err)
	}
	states, opt := korfStates(3)
	e.publish(t, splitJob(95, 0, states[0]))
	checkSplitRow(t, e.results(t, 1)[0].Results[0], opt[states[0]], sv)
}
