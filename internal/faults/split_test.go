package faults

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
)

// splitStall is the scenario's solver.split_stall: five times the suite's
// ack wait (2 s), as the default (1 min) is twice production's (30 s).
const splitStall = 10 * time.Second

// splitLeaderKill: Korf's 100 as split searches on a three-node cluster,
// cut fine (subtrees of 4,096 nodes, so that most iterations are
// distributed as subtree jobs), on two solverd of one worker each; the
// node leading TESSERA_JOBS is killed with -9 three times, after 20, 50
// and 80 rows, each time once a distributed iteration is in flight (or
// 15 s later), and restarted (and caught up) before the next kill. Every state must end
// solved with Korf's optimal length, one row each, nothing left in the
// streams; the coordinators' stall lines (an iteration without an answer
// for splitStall, its subtree jobs republished) are counted.
func splitLeaderKill(t *testing.T, s *suite) figure {
	cs, c := s.onCluster(t)
	dir := filepath.Join(s.root, "tables-555")
	if _, err := os.Stat(filepath.Join(dir, "15-pdb-555-a.g1.tbl")); err != nil {
		cs.run(t, nil, "solverd", "tables", "build", "15-pdb-555", "--tables-dir", dir)
	}
	extra := []string{"TESSERA_SOLVER_TABLES_DIR=" + dir, "TESSERA_SOLVER_TABLES=15-pdb-555",
		"TESSERA_SOLVER_SPLIT_SUBTREE_NODES=4096", "TESSERA_SOLVER_SPLIT_STALL=" + splitStall.String()}
	solvers := []*proc{cs.solverd(t, "cs-solverd-a", 1, 0, extra...), cs.solverd(t, "cs-solverd-b", 1, 0, extra...)}
	daemons := append([]*proc{cs.writer(t, "cs-results")}, solvers...)
	splitDeliveries := counter{queue.JobsStream, append(queue.JobsConsumers(), queue.SplitConsumer)}
	jobs, res := cs.read(t, splitDeliveries), cs.read(t, resultDeliveries)
	in, opt := korf100Corpus()
	start := time.Now()
	id := cs.produce(t, in, "--puzzle", "15", "--file", "-", "--split")
	stalled := cs.watchStall(id)
	var kills []string
	for _, at := range []int64{20, 50, 80} {
		cs.waitDone(t, id, at, 5*time.Minute)
		flight := cs.splitsInFlight(t, id, 15*time.Second)
		victim := c.StreamLeader(t, queue.JobsStream)
		c.Kill(victim)
		next := c.StreamLeader(t, queue.JobsStream)
		if next == victim {
			t.Errorf("%s still led by the killed node %s", queue.JobsStream, c.Node(victim).Name())
		}
		c.Restart(victim)
		c.WaitStreamCurrent(t, queue.JobsStream, time.Minute)
		kills = append(kills, fmt.Sprintf("at %d rows (%s), %s killed, %s led next", at, flight, c.Node(victim).Name(), c.Node(next).Name()))
	}
	took := cs.waitFinished(t, start, 10*time.Minute, id)
	gap := stalled()
	mustRun(t, daemons...)
	tl := cs.check(t, id)
	cs.checkSplitRows(t, id, opt)
	st := stallLines(t, solvers...)
	f := figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: cs.redelivered(t, splitDeliveries, jobs), resultsRe: cs.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("Korf's 100 split (15-pdb-555, subtrees of 4,096 nodes), 2 solverd x 1 worker; leader killed %s; "+
			"longest time without a new row %s; %s; %s, every length Korf's", strings.Join(kills, "; "), dur(gap), st, statuses(tl))}
	t.Log(f.note)
	return f
}

// splitsInFlight waits up to patience for one of batch id's split
// searches to be in a distributed iteration (laid out in at least
// distributed subtrees, not all answered), so that a kill finds subtree
// jobs out, and describes those under way: key, iteration, bound,
// subtrees answered of total.
func (s *suite) splitsInFlight(t *testing.T, id int64, patience time.Duration) string {
	t.Helper()
	const distributed = 16 // more than a coordinator's own iteration lays out
	deadline := time.Now().Add(patience)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rs, err := queue.ListSplits(ctx, s.js, id)
		cancel()
		var out []string
		found := false
		for _, r := range rs {
			if r.End == "" && r.Laid() {
				out = append(out, fmt.Sprintf("%s iteration %d bound %d %d/%d", job.SplitKey(r.Batch, r.Seq), r.Iteration, r.Bound, r.Count, r.Total))
				found = found || r.Total >= distributed && r.Count < r.Total
			}
		}
		switch {
		case err == nil && found:
			return strings.Join(out, ", ")
		case time.Now().After(deadline) && err != nil:
			return "split records unread: " + err.Error()
		case time.Now().After(deadline) && len(out) == 0:
			return "no iteration laid out"
		case time.Now().After(deadline):
			return strings.Join(out, ", ") + " (none distributed)"
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stallRe reads a coordinator's stall line (split/search.go, republish).
var stallRe = regexp.MustCompile(`published again.*stalled=(\S+) .*stored_unseen=(\d+) republished=(\d+)`)

// stallLines sums the stall lines of the solverd logs: how many, after
// how long without an answer, how many answers were stored but not yet
// counted (the watch's news lost, not the jobs), how many subtree jobs
// they republished.
func stallLines(t *testing.T, ps ...*proc) string {
	t.Helper()
	n, unseen, jobs := 0, 0, 0
	var after []string
	for _, p := range ps {
		b, err := os.ReadFile(p.log)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range stallRe.FindAllStringSubmatch(string(b), -1) {
			n++
			after = append(after, m[1])
			u, _ := strconv.Atoi(m[2])
			k, _ := strconv.Atoi(m[3])
			unseen += u
			jobs += k
		}
	}
	if n == 0 {
		return "no stall logged"
	}
	return fmt.Sprintf("%d stalls logged (after %s without an answer; %d answers stored, not yet counted), %d subtree jobs republished",
		n, strings.Join(after, ", "), unseen, jobs)
}

// korf100Corpus is Korf's 100 15-puzzles as a producer's input, one per
// line, and each state's optimal length.
func korf100Corpus() ([]byte, map[string]int) {
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	var in bytes.Buffer
	opt := map[string]int{}
	for _, k := range instances.Korf100() {
		st := puzzle.State{Spec: spec, Cells: k.Cells}.String()
		opt[st] = k.Opt
		fmt.Fprintln(&in, st)
	}
	return in.Bytes(), opt
}
