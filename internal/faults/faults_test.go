package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/store"
)

// figure is one line of the figures table.
type figure struct {
	scenario    string
	states      int64
	rows        int64
	dead        int   // dead letters recorded by the scenario
	redelivered int64 // job redeliveries
	resultsRe   int64 // results redeliveries
	finish      time.Duration
	note        string
}

// scenario is one fault and what it must leave behind.
type scenario struct {
	name     string
	ci, full bool // part of the CI subset (plain `go test`), of the full suite
	run      func(t *testing.T, s *suite) figure
}

var scenarios = []scenario{
	{"solver kill -9 x2", false, true, func(t *testing.T, s *suite) figure { return solverKill(t, s, 2, 60) }},
	{"solver kill -9", true, false, func(t *testing.T, s *suite) figure { return solverKill(t, s, 1, 16) }},
	{"writer kill -9", false, true, writerKill},
	{"NATS stop + restart", false, true, natsRestart},
	{"PostgreSQL stopped 30 s", false, true, func(t *testing.T, s *suite) figure { return pgStop(t, s, 30*time.Second) }},
	{"PostgreSQL failover to a synchronous standby", false, true, pgFailover},
	{"poison burst 10,000", false, true, func(t *testing.T, s *suite) figure { return poison(t, s, 10000) }},
	{"poison burst 200", true, false, func(t *testing.T, s *suite) figure { return poison(t, s, 200) }},
	{"duplicates", true, true, duplicates},
	{"oversized lines", true, true, oversized},
	{"starvation, 4 x 24-puzzle", false, true, func(t *testing.T, s *suite) figure { return starvation(t, s, 4, 2, 30*time.Second, 1000) }},
	{"starvation, 2 x 24-puzzle", true, false, func(t *testing.T, s *suite) figure { return starvation(t, s, 2, 1, 6*time.Second, 1000) }},
	{"NATS kill -9", false, true, natsKill},
	{"full store, writers late", false, true, fullStore},
	// A three-node cluster of its own per scenario (cluster_test.go).
	{"cluster: no fault", false, true, clusterBaseline},
	{"cluster: kill -9 the TESSERA_JOBS leader", false, true, killLeader(queue.JobsStream)},
	{"cluster: kill -9 the TESSERA_RESULTS leader", false, true, killLeader(queue.ResultsStream)},
	{"cluster: rolling restart", false, true, rollingRestart},
	{"cluster: quorum loss 50 s", false, true, quorumLoss(50 * time.Second)},
	{"cluster: kill -9 every node", false, true, clusterKill(2 * time.Second)},
	{"cluster: frozen leader", false, true, frozenLeader},
	{"split search, solver kill -9", true, true, splitKill},
	{"split search, cluster: kill -9 the TESSERA_JOBS leader", false, true, splitLeaderKill},
	{"cancel in flight, 4 x 24-puzzle", false, true, func(t *testing.T, s *suite) figure { return cancelInFlight(t, s, 4, 2) }},
	{"cancel in flight, 2 x 24-puzzle", true, false, func(t *testing.T, s *suite) figure { return cancelInFlight(t, s, 2, 1) }},
	{"pause 12 s", false, true, func(t *testing.T, s *suite) figure { return pauseBatch(t, s, 50000, 12*time.Second) }},
	{"pause 6 s", true, false, func(t *testing.T, s *suite) figure { return pauseBatch(t, s, 20000, 6*time.Second) }},
	{"priority: 200 high behind 3,000", false, true, func(t *testing.T, s *suite) figure { return priority(t, s, 200, 3000) }},
}

// TestFaults runs the scenarios one after another on one nats-server and
// one PostgreSQL, each with its own solverd and results processes, and
// reports the figures table.
func TestFaults(t *testing.T) {
	s := newSuite(t)
	began := time.Now()
	for _, sc := range scenarios {
		if !(full() && sc.full || !full() && sc.ci) {
			continue
		}
		t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) {
			f := sc.run(t, s)
			f.scenario = sc.name
			s.figures = append(s.figures, f)
		})
	}
	table := s.table(time.Since(began))
	if path := os.Getenv(envReport); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
		return
	}
	t.Log("\n" + table)
}

// table formats the figures as the Markdown kept in docs/RELIABILITY.md.
func (s *suite) table(total time.Duration) string {
	var b strings.Builder
	mode := "CI subset (go test ./internal/faults)"
	if full() {
		mode = "full suite (make test-faults)"
	}
	pg := "PostgreSQL"
	if bin := pgBinDir(); bin != "" {
		if out, err := exec.Command(filepath.Join(bin, "postgres"), "--version").Output(); err == nil {
			pg = strings.TrimSpace(string(out))
		}
	}
	fmt.Fprintf(&b, "%s, %s, %s, %s, %d cores, %s, total %v\n\n", mode, s.natsVer, pg, runtime.Version(),
		runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), total.Round(time.Second))
	b.WriteString("| scenario | states | rows | dead letters | job redeliveries | result redeliveries | finished in | notes |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, f := range s.figures {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s | %.1f s | %s |\n", f.scenario, f.states, f.rows, f.dead,
			count(f.redelivered), count(f.resultsRe), f.finish.Seconds(), f.note)
	}
	return b.String()
}

// count formats a redelivery count. A negative one means the consumer's
// delivered sequence went back: nats-server 2.9.10 restores an older
// consumer state after a restart, so the count is unknown.
func count(n int64) string {
	if n < 0 {
		return "n/a"
	}
	return strconv.FormatInt(n, 10)
}

// progress returns how many rows batch id has.
func (s *suite) progress(t *testing.T, id int64) store.Batch {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := s.st.BatchProgress(ctx, id)
	if err != nil {
		t.Fatalf("batch %d: %v", id, err)
	}
	return b
}

// waitDone waits until batch id has at least n rows, and fails t if it
// finishes first (the fault would then land after the work).
func (s *suite) waitDone(t *testing.T, id, n int64, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		b := s.progress(t, id)
		if b.Done >= n {
			if b.Finished() {
				t.Fatalf("batch %d finished (%d rows) before the fault could be injected: make it bigger", id, b.Done)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch %d: %d rows after %v, waiting for %d", id, b.Done, limit, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mustRun fails t for each daemon that exited: a server outage must be
// ridden out, not end the process.
func mustRun(t *testing.T, ps ...*proc) {
	t.Helper()
	for _, p := range ps {
		if p.exited() {
			t.Errorf("%s exited during the outage: %v\n%s", p.name, p.err, p.tail())
		}
	}
}

func dur(d time.Duration) string { return d.Round(10 * time.Millisecond).String() }

// solverKill: two solverd share the work; one is killed with -9 kills
// times, each time restarted at once. The jobs it held come back after the
// ack wait (2 s here) and are solved by either.
func solverKill(t *testing.T, s *suite, kills int, n int64) figure {
	a, addr := s.meteredSolverd(t, "solverd-a", 1, 1)
	s.solverd(t, "solverd-b", 1, 1)
	s.writer(t, "results")
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	start := time.Now()
	// 15-puzzles with a 400 ms budget, one per job (the default puts eight
	// in a job, which can leave the killed daemon idle): every job holds a
	// worker for up to 0.4 s, so a kill always finds jobs in flight.
	id := s.produce(t, nil, "--puzzle", "15", "--random", strconv.FormatInt(n, 10), "--seed", "15", "--timeout", "400ms", "--chunk-size", "1")
	for k := 1; k <= kills; k++ {
		s.waitDone(t, id, int64(k)*n/int64(kills+1), 2*time.Minute)
		killHolding(t, a, addr)
		a, addr = s.meteredSolverd(t, "solverd-a", 1, 1)
	}
	took := s.waitFinished(t, start, 3*time.Minute, id)
	tl := s.check(t, id)
	return s.killFigure(t, tl, took, jobDeliveries, jobs, res, "job",
		fmt.Sprintf("15-puzzles, 0.4 s budget, 2 solverd x (1+1 quick) workers; %s", statuses(tl)))
}

// killFigure is the figure of a scenario that killed a holder of jobs
// with -9: the deliveries on c since jobs (and of results since res) were
// read. No job redelivered fails t: the kill found no what in flight.
func (s *suite) killFigure(t *testing.T, tl tally, took time.Duration, c counter, jobs, res reading, what, note string) figure {
	t.Helper()
	f := figure{states: tl.states, rows: tl.rows, finish: took, note: note,
		redelivered: s.redelivered(t, c, jobs), resultsRe: s.redelivered(t, resultDeliveries, res)}
	if f.redelivered < 1 {
		t.Errorf("no job was redelivered: the kill -9 found no %s in flight, so it proved nothing", what)
	}
	return f
}

// splitKill: Korf's 100 as split searches (producer --split) on two
// solverd over the 15-pdb-555 tables; one is killed with -9 mid-batch and
// restarted at once. The split jobs it coordinated come back after the ack
// wait and their next holder continues each from its record in the
// tessera-split bucket: every state ends optimal (Korf's published
// length), its moves replayed, one row each.
func splitKill(t *testing.T, s *suite) figure {
	// The tables in a directory of the scenario's own: the other
	// scenarios' hosts have none.
	dir := filepath.Join(s.root, "tables-555")
	s.run(t, nil, "solverd", "tables", "build", "15-pdb-555", "--tables-dir", dir)
	tables := "TESSERA_SOLVER_TABLES_DIR=" + dir
	a, addr := s.meteredSolverd(t, "solverd-a", 1, 0, tables)
	s.solverd(t, "solverd-b", 1, 0, tables)
	s.writer(t, "results")
	// The stream stores subtree jobs too: count their consumer's deliveries.
	splitDeliveries := counter{queue.JobsStream, append(queue.JobsConsumers(), queue.SplitConsumer)}
	jobs, res := s.read(t, splitDeliveries), s.read(t, resultDeliveries)
	in, opt := korf100Corpus()
	start := time.Now()
	id := s.produce(t, in, "--puzzle", "15", "--file", "-", "--split")
	s.waitDone(t, id, 20, 2*time.Minute)
	killHolding(t, a, addr)
	s.solverd(t, "solverd-a", 1, 0, tables)
	took := s.waitFinished(t, start, 5*time.Minute, id)
	tl := s.check(t, id)
	s.checkSplitRows(t, id, opt)
	return s.killFigure(t, tl, took, splitDeliveries, jobs, res, "split search",
		fmt.Sprintf("Korf's 100 split, 15-pdb-555, 2 solverd x 1 worker; %s, every length Korf's", statuses(tl)))
}

// checkSplitRows checks batch id's rows of split searches: each solved
// with the optimum opt gives its state, optimal, its lower bound the
// length, its moves replayed to the goal, by the split search.
func (s *suite) checkSplitRows(t *testing.T, id int64, opt map[string]int) {
	t.Helper()
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	var buf bytes.Buffer
	if err := s.st.Export(context.Background(), id, &buf, store.FormatJSONL); err != nil {
		t.Fatal(err)
	}
	split := 0
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var r store.Solution
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Status != "solved" || !r.Optimal || r.Length == nil || *r.Length != opt[r.State] || r.LowerBound != opt[r.State] {
			t.Errorf("seq %d: %s, length %v, optimal %v; Korf's optimum %d", r.Seq, r.Status, r.Length, r.Optimal, opt[r.State])
			continue
		}
		ms, err := puzzle.ParseMoves(spec, *r.Moves)
		st, perr := puzzle.Parse(spec, r.State)
		if err != nil || perr != nil || puzzle.VerifyMoves(st, ms, st.Goal()) != nil {
			t.Errorf("seq %d: moves do not replay", r.Seq)
		}
		if strings.HasSuffix(r.Solver, " split") {
			split++
		}
	}
	if split != len(opt) {
		t.Errorf("%d of %d rows by the split search", split, len(opt))
	}
}

// writerKill: the results writer is killed with -9 in the middle of a
// batch and restarted a second later. Whatever it had fetched comes back
// after the results ack wait (30 s) and must not be counted twice.
func writerKill(t *testing.T, s *suite) figure {
	s.solverd(t, "solverd", 2, 1)
	w := s.writer(t, "results")
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	start := time.Now()
	const n = 200000
	id := s.produce(t, nil, "--puzzle", "8", "--random", strconv.Itoa(n), "--seed", "8")
	s.waitDone(t, id, n/10, 2*time.Minute)
	killedAt := s.progress(t, id).Done
	w.kill()
	time.Sleep(time.Second)
	s.writer(t, "results-2")
	took := s.waitFinished(t, start, 3*time.Minute, id)
	tl := s.check(t, id)
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("8-puzzles; killed at %d rows; held results return after the 30 s results ack wait; %s", killedAt, statuses(tl))}
}

// natsRestart: nats-server is stopped (SIGTERM) while jobs are being
// solved and started again 5 s later on the same port and store.
func natsRestart(t *testing.T, s *suite) figure {
	sd := s.solverd(t, "solverd", 2, 1)
	w := s.writer(t, "results")
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	start := time.Now()
	slow := s.produce(t, nil, "--puzzle", "15", "--random", "40", "--seed", "41", "--timeout", "300ms")
	fast := s.produce(t, nil, "--puzzle", "8", "--random", "50000", "--seed", "42")
	s.waitDone(t, slow, 8, 2*time.Minute)
	s.nats.Stop()
	down := time.Now()
	time.Sleep(5 * time.Second)
	s.restartNATS(t)
	back := time.Now()
	took := s.waitFinished(t, start, 3*time.Minute, slow, fast)
	after := time.Since(back)
	mustRun(t, sd, w)
	tl := s.check(t, slow, fast)
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("down %s; finished %s after the restart; %s", dur(back.Sub(down)), dur(after), statuses(tl))}
}

// pgStop: PostgreSQL is stopped for down while results arrive; the writer
// holds them (heartbeating) and stores them when it is back.
func pgStop(t *testing.T, s *suite, down time.Duration) figure {
	sd := s.solverd(t, "solverd", 2, 1)
	w := s.writer(t, "results")
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	start := time.Now()
	slow := s.produce(t, nil, "--puzzle", "15", "--random", "30", "--seed", "51", "--timeout", "300ms")
	fast := s.produce(t, nil, "--puzzle", "8", "--random", "20000", "--seed", "52")
	s.waitDone(t, slow, 3, 2*time.Minute)
	s.stopPG(t)
	stopped := time.Now()
	time.Sleep(down)
	s.startPG(t)
	back := time.Now()
	took := s.waitFinished(t, start, 3*time.Minute, slow, fast)
	after := time.Since(back)
	mustRun(t, sd, w)
	tl := s.check(t, slow, fast)
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("down %s; finished %s after the restart; %s", dur(back.Sub(stopped)), dur(after), statuses(tl))}
}

// poison publishes n malformed job messages straight onto the quick lane,
// in four kinds: bytes that are not JSON and JSON without a job id (both
// too broken to answer: dead letters), a job for a puzzle that does not
// exist and a job whose state is not a state (both answered with invalid
// rows). A good batch enqueued right after must still finish. Then one
// more broken job on the idle pipeline measures how long a poison job
// takes to reach `results dead`.
func poison(t *testing.T, s *suite, n int) figure {
	s.solverd(t, "solverd", 2, 1)
	s.writer(t, "results")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	per := int64(n / 4)
	noPuzzle, err := s.st.CreateBatch(ctx, "8", "optimal", per)
	if err != nil {
		t.Fatal(err)
	}
	noState, err := s.st.CreateBatch(ctx, "8", "optimal", per)
	if err != nil {
		t.Fatal(err)
	}
	before := s.lastDead(t)
	const subject = "tessera.jobs.quick.sliding.3x3"
	broken := map[string]bool{}
	start := time.Now()
	for i := range 4 * per {
		k := i / 4
		var data []byte
		switch i % 4 {
		case 0:
			data = fmt.Appendf(nil, "\x00poison %d {", i)
			broken[string(data)] = true
		case 1:
			data = fmt.Appendf(nil, `{"v":1,"puzzle":"8","mode":"optimal","states":["poison %d"]}`, i)
			broken[string(data)] = true
		case 2:
			data, _ = json.Marshal(job.Job{V: job.Version, ID: fmt.Sprintf("%d-%d", noPuzzle, k), BatchID: noPuzzle,
				Puzzle: "sliding:0x7", FirstSeq: k, States: []string{"1 2 3 4 5 6 7 8 0"}, Mode: "optimal"})
		case 3:
			data, _ = json.Marshal(job.Job{V: job.Version, ID: fmt.Sprintf("%d-%d", noState, k), BatchID: noState,
				Puzzle: "sliding:3x3", FirstSeq: k, States: []string{fmt.Sprintf("poison state %d", k)}, Mode: "optimal"})
		}
		if _, err := s.js.PublishAsync(subject, data); err != nil {
			t.Fatalf("publish poison %d: %v", i, err)
		}
	}
	select {
	case <-s.js.PublishAsyncComplete():
	case <-ctx.Done():
		t.Fatal("poison publishes not acknowledged")
	}
	published := time.Since(start)
	good := s.produce(t, nil, "--puzzle", "8", "--random", "2000", "--seed", "61")
	goodAt := time.Since(start)
	s.waitFinished(t, start, 5*time.Minute, good)
	goodDone := time.Since(start)
	s.waitFinished(t, start, 5*time.Minute, noPuzzle, noState)
	letters := s.waitDead(t, before, len(broken), 5*time.Minute)
	took := time.Since(start)

	// One more on the idle pipeline: from publish to its dead letter.
	s.checkDrained(ctx, t)
	probe := fmt.Appendf(nil, "\x00poison probe %d", time.Now().UnixNano())
	broken[string(probe)] = true
	last := s.lastDead(t)
	t0 := time.Now()
	if _, err := s.js.Publish(ctx, subject, probe); err != nil {
		t.Fatal(err)
	}
	s.waitDead(t, last, 1, time.Minute)
	latency := time.Since(t0)
	letters = append(letters, s.deadSince(t, last)...)

	got := map[string]bool{}
	for _, l := range letters {
		if l.Source != store.DeadJobs || !broken[string(l.Payload)] {
			t.Errorf("unexpected dead letter %d (%s): %s: %.80q", l.ID, l.Source, l.Reason, l.Payload)
			continue
		}
		if got[string(l.Payload)] {
			t.Errorf("dead letter %d: payload recorded twice: %.80q", l.ID, l.Payload)
		}
		got[string(l.Payload)] = true
		if strings.TrimSpace(l.Reason) == "" {
			t.Errorf("dead letter %d has no reason", l.ID)
		}
	}
	if len(got) != len(broken) {
		t.Errorf("%d broken jobs published, %d recorded as dead letters", len(broken), len(got))
	}
	// Visible to an operator: `results dead` lists every one of them.
	out, _ := s.run(t, nil, "results", "dead", "--json")
	listed := strings.Count(out, "\n")
	if want := int(s.lastDeadCount(t)); listed != want {
		t.Errorf("results dead --json listed %d letters, the table holds %d", listed, want)
	}
	tl := s.check(t, noPuzzle, noState, good)
	if inv := tl.byStatus["invalid"]; inv != 2*per {
		t.Errorf("%d invalid rows, want %d (one per poison job that names its rows)", inv, 2*per)
	}
	return figure{states: tl.states + int64(len(broken)), rows: tl.rows, dead: len(got), finish: took,
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("%d broken + %d invalid-row jobs published in %s; a good batch of 2,000 enqueued at %s finished at %s; one poison job on an idle pipeline reached `results dead` in %s",
			len(broken)-1, 2*per, dur(published), dur(goodAt), dur(goodDone), dur(latency))}
}

// waitDead waits until at least n dead letters follow the one with id
// after, and returns them.
func (s *suite) waitDead(t *testing.T, after int64, n int, limit time.Duration) []store.DeadLetter {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ls := s.deadSince(t, after)
		if len(ls) >= n {
			return ls
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d dead letters after %v, want %d", len(ls), limit, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *suite) lastDeadCount(t *testing.T) int64 {
	return int64(len(s.deadSince(t, 0)))
}

// duplicates: every job of a batch is published twice under its id (the
// server drops the second), the first job once more under another id (a
// re-run after the duplicate window forgot it: the writer stores nothing
// new) and a job claiming ten of the batch's sequence numbers with other
// states (ten collision dead letters; the batch keeps one row per seq).
func duplicates(t *testing.T, s *suite) figure {
	s.solverd(t, "solverd", 1, 1)
	s.writer(t, "results")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	spec, _ := puzzle.ParseSpec("8")
	rng := rand.New(rand.NewPCG(7, 7))
	const n, chunk = 300, 100
	states := make([]string, n)
	for i := range states {
		states[i] = puzzle.Random(spec, rng).String()
	}
	id, err := s.st.CreateBatch(ctx, "8", "optimal", n)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	mk := func(jid string, first int, st []string) job.Job {
		return job.Job{V: job.Version, ID: jid, BatchID: id, Puzzle: "sliding:3x3", FirstSeq: int64(first), States: st, Mode: "optimal"}
	}
	dropped := 0
	for first := 0; first < n; first += chunk {
		j := mk(fmt.Sprintf("%d-%d", id, first), first, states[first:first+chunk])
		if err := queuetest.PublishJob(ctx, s.js, j); err != nil {
			t.Fatal(err)
		}
		if err := queuetest.PublishJob(ctx, s.js, j); !errors.Is(err, queuetest.ErrDuplicate) {
			t.Errorf("job %s published twice: second publish err = %v, want ErrDuplicate", j.ID, err)
		} else {
			dropped++
		}
	}
	if err := queuetest.PublishJob(ctx, s.js, mk(fmt.Sprintf("%d-0-again", id), 0, states[:chunk])); err != nil {
		t.Fatal(err)
	}
	var other []string
	for len(other) < 10 {
		x := puzzle.Random(spec, rng).String()
		if x != states[chunk+len(other)] {
			other = append(other, x)
		}
	}
	if err := queuetest.PublishJob(ctx, s.js, mk(fmt.Sprintf("%d-%d-other", id, chunk), chunk, other)); err != nil {
		t.Fatal(err)
	}
	took := s.waitFinished(t, start, 2*time.Minute, id)
	// The collision letters are written with the losing results: wait for
	// every job to be answered, not only for the batch to finish.
	s.checkDrained(ctx, t)
	tl := s.check(t, id)
	if tl.dead[store.DeadCollision] != 10 {
		t.Errorf("%d collision dead letters, want 10 (one per seq claimed by two states)", tl.dead[store.DeadCollision])
	}
	return figure{states: tl.states, rows: tl.rows, dead: tl.dead[store.DeadCollision], finish: took,
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("%d re-publishes dropped by the server, 1 job re-run under a new id stored nothing, 10 collisions listed; %s", dropped, statuses(tl))}
}

// oversized: a file of 8-puzzles with a 2 MiB line (more than a job
// message may carry) and a 5 MiB line (more than the producer reads as a
// line) among them: each is one invalid row naming its line, the rest are
// solved.
func oversized(t *testing.T, s *suite) figure {
	s.solverd(t, "solverd", 1, 1)
	s.writer(t, "results")
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	spec, _ := puzzle.ParseSpec("8")
	rng := rand.New(rand.NewPCG(9, 9))
	var in strings.Builder
	for i := range 300 {
		switch i {
		case 100:
			in.WriteString(strings.Repeat("1 2 3 ", 2<<20/6))
		case 200:
			in.WriteString(strings.Repeat("x", 5<<20))
		default:
			in.WriteString(puzzle.Random(spec, rng).String())
		}
		in.WriteByte('\n')
	}
	start := time.Now()
	out, stderr := s.run(t, []byte(in.String()), "producer", "--quiet", "--puzzle", "8", "--file", "-")
	id := batchID(t, out)
	for _, line := range []string{"-:101", "-:201"} {
		if !strings.Contains(stderr, line) {
			t.Errorf("the producer's stderr does not name line %s:\n%.2000s", line, stderr)
		}
	}
	took := s.waitFinished(t, start, 2*time.Minute, id)
	tl := s.check(t, id)
	if tl.byStatus["invalid"] != 2 || tl.byStatus["solved"] != 298 {
		t.Errorf("statuses %v, want 2 invalid and 298 solved", tl.byStatus)
	}
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: "a 2 MiB and a 5 MiB line among 298 8-puzzles: one invalid row each, naming the line; " + statuses(tl)}
}

// starvation: heavy 24-puzzle jobs (no budget of their own; this solverd
// caps them at limit) hold every general worker; a batch of quick
// 8-puzzles enqueued after them must finish while they still run.
func starvation(t *testing.T, s *suite, heavyN, workers int, limit time.Duration, quickN int) figure {
	s.solverd(t, "solverd", workers, 1, "TESSERA_SOLVER_TIMEOUT="+limit.String())
	s.writer(t, "results")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	start := time.Now()
	heavy := s.produce(t, korfFelner(heavyN), "--puzzle", "24", "--file", "-")
	s.heavyBusy(ctx, t, min(workers, heavyN))
	t0 := time.Now()
	out, _ := s.run(t, nil, "producer", "--quiet", "--puzzle", "8", "--random", strconv.Itoa(quickN), "--seed", "4", "--wait")
	quickTook := time.Since(t0)
	quick := batchID(t, out)
	if b := s.progress(t, heavy); b.Done != 0 {
		t.Errorf("%d heavy jobs ended before the quick batch: the run proves nothing about starvation (limit %v too low?)", b.Done, limit)
	}
	// Generous: anything near the heavy jobs' budget would mean the quick
	// batch waited for a general worker.
	if quickTook > limit/2 {
		t.Errorf("%d 8-puzzles took %v behind %d heavy jobs (budget %v each): starved", quickN, quickTook, heavyN, limit)
	}
	rounds := (heavyN + workers - 1) / workers
	took := s.waitFinished(t, start, time.Duration(rounds)*limit+2*time.Minute, heavy)
	tl := s.check(t, heavy, quick)
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("%d 8-puzzles (`producer --wait`) finished in %s behind %d Korf–Felner 24-puzzles on %d general + 1 quick worker (host cap %v per job, which ends the heavy batch); %s",
			quickN, dur(quickTook), heavyN, workers, limit, statuses(tl))}
}

// statuses formats a tally's rows by status, in the order of the list of
// statuses.
func statuses(tl tally) string {
	var parts []string
	keys := make([]string, 0, len(tl.byStatus))
	for k := range tl.byStatus {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, tl.byStatus[k]))
	}
	return strings.Join(parts, ", ")
}

// fullStoreLimit is the byte limit of the streams in fullStore: a few
// thousand results, far below what the batch produces.
const fullStoreLimit = 2 << 20

// fullStore: the streams at a small byte limit (nats.max_bytes, set with
// `solverd queue apply`), two solvers, 50,000 8-puzzles and no writer for
// the first 40 s after TESSERA_RESULTS is full. The producer waits while
// TESSERA_JOBS is full; the solvers must hold their results (not spend
// the jobs' deliveries) until the writer comes. Every state must end
// solved, none failed, nothing lost. The limits go back to the default
// afterwards, for the next scenarios.
func fullStore(t *testing.T, s *suite) figure {
	s.run(t, nil, "solverd", "queue", "apply", "--nats-max-bytes", strconv.Itoa(fullStoreLimit))
	defer s.run(t, nil, "solverd", "queue", "apply")
	solvers := []*proc{s.solverd(t, "full-solverd-a", 1, 1), s.solverd(t, "full-solverd-b", 1, 1)}
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	start := time.Now()
	// The producer waits while TESSERA_JOBS is full: run it alongside.
	producer := startProc(t, s.root, "full-producer", s.env, filepath.Join(s.bin, "producer"),
		"--quiet", "--puzzle", "8", "--random", "50000", "--seed", "37", "--chunk-size", "10")
	t.Cleanup(func() {
		if !producer.exited() {
			producer.kill()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var fullAt time.Duration
	for {
		st, err := s.js.Stream(ctx, queue.ResultsStream)
		if err == nil && st.CachedInfo().State.Bytes >= fullStoreLimit*9/10 {
			fullAt = time.Since(start)
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%s never filled to its limit of %d bytes (err %v)", queue.ResultsStream, fullStoreLimit, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(40 * time.Second)
	late := s.writer(t, "full-results")
	<-producer.done
	if producer.err != nil {
		t.Fatalf("producer: %v\n%s", producer.err, producer.tail())
	}
	id := batchID(t, readFile(t, producer.log))
	took := s.waitFinished(t, start, 10*time.Minute, id)
	mustRun(t, append(solvers, late)...)
	tl := s.check(t, id)
	if n := tl.byStatus["solved"]; n != tl.states {
		t.Errorf("%d of %d states solved (%s): a full store must never fail a state", n, tl.states, statuses(tl))
	}
	said := strings.Contains(readFile(t, producer.log), "TESSERA_JOBS is full")
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("streams at %d MiB; TESSERA_RESULTS full %s after the start, writer started 40 s later; producer said it waited: %v; %s",
			fullStoreLimit>>20, dur(fullAt), said, statuses(tl))}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
