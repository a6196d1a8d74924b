package faults

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
)

// The pipeline on a three-node NATS cluster. Each cluster
// scenario starts its own cluster (natstest, real nats-server processes
// routed on 127.0.0.1, the suite's binary), creates the streams at three
// replicas with `solverd queue apply --nats-replicas 3`, runs two
// `solverd run` and two `results run` against all three URLs, and enqueues
// the same work: 100,000 8-puzzles in 10-state jobs and 2,000 15-puzzles
// over the 15-pdb-663 tables. PostgreSQL is the suite's.

const (
	clusterEights  = 100000
	clusterChunk   = 10
	clusterFifteen = 2000
	// clusterDrain is how long the checker waits for the streams to empty:
	// a message stranded below its consumer's ack floor is removed by the
	// dead-letter handler's sweep, which runs every minute and acts on a
	// message seen in two sweeps.
	clusterDrain = 150 * time.Second
)

// tables663 builds the 15-pdb-663 tables (12 MB, seconds) once per suite
// run, for the scenarios that solve 2,000 15-puzzles: without tables each
// would take seconds (walking distance), with them milliseconds.
var tables663 struct {
	sync.Mutex
	dir string
}

func (s *suite) tables663(t *testing.T) string {
	t.Helper()
	tables663.Lock()
	defer tables663.Unlock()
	dir := filepath.Join(s.root, "tables-663")
	if tables663.dir == dir {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(filepath.Join(s.bin, "solverd"), "tables", "build", "15-pdb-663")
	cmd.Env = append(append([]string{}, s.env...), "TESSERA_SOLVER_TABLES_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("solverd tables build 15-pdb-663: %v\n%s", err, out)
	}
	t.Logf("built 15-pdb-663 in %v", time.Since(start).Round(time.Millisecond))
	tables663.dir = dir
	return dir
}

// clusterView is the suite seen through cluster c: its own connection,
// every process's NATS URL listing the three nodes, replicas 3, the
// 15-puzzle tables, and the long drain wait. The store and the binaries
// are the suite's.
func (s *suite) onCluster(t *testing.T) (*suite, *natstest.Cluster) {
	t.Helper()
	tables := s.tables663(t)
	start := time.Now()
	c := natstest.StartClusterWith(t, 3, s.natsBin)
	cs := *s
	cs.figures = nil
	cs.natsURL = c.URLs()
	cs.nc = c.Conn(t)
	var err error
	if cs.js, err = queue.New(cs.nc); err != nil {
		t.Fatal(err)
	}
	cs.drain = clusterDrain
	cs.env = nil
	for _, kv := range s.env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "TESSERA_NATS_URL" && k != "TESSERA_SOLVER_TABLES_DIR" {
			cs.env = append(cs.env, kv)
		}
	}
	cs.env = append(cs.env, "TESSERA_NATS_URL="+c.URLs(), "TESSERA_NATS_REPLICAS=3",
		"TESSERA_SOLVER_TABLES_DIR="+tables, "TESSERA_SOLVER_TABLES=15-pdb-663")
	out, _ := cs.run(t, nil, "solverd", "queue", "apply", "--nats-replicas", "3")
	t.Logf("cluster of 3 ready in %v; solverd queue apply:\n%s", time.Since(start).Round(time.Millisecond), out)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, name := range []string{queue.JobsStream, queue.ResultsStream, queue.DeadStream} {
		st, err := cs.js.Stream(ctx, name)
		if err != nil {
			t.Fatalf("stream %s after queue apply: %v", name, err)
		}
		if r := st.CachedInfo().Config.Replicas; r != 3 {
			t.Fatalf("stream %s has %d replicas after `solverd queue apply --nats-replicas 3`, want 3", name, r)
		}
	}
	return &cs, c
}

// clusterRun is the common shape of the cluster scenarios: start the
// daemons and the batches, call fault once the 8-puzzle batch has at
// least at rows, wait for both batches, call after (to bring nodes back),
// check everything, and describe the run.
func clusterRun(t *testing.T, s *suite, at int64, fault func(cs *suite, c *natstest.Cluster, batch int64) string,
	after func(cs *suite, c *natstest.Cluster)) figure {
	cs, c := s.onCluster(t)
	daemons := []*proc{cs.solverd(t, "c-solverd-a", 1, 1), cs.solverd(t, "c-solverd-b", 1, 1),
		cs.writer(t, "c-results-a"), cs.writer(t, "c-results-b")}
	jobs, res := cs.read(t, jobDeliveries), cs.read(t, resultDeliveries)
	start := time.Now()
	fifteen := cs.produce(t, nil, "--puzzle", "15", "--random", strconv.Itoa(clusterFifteen), "--seed", "26")
	eights := cs.produce(t, nil, "--puzzle", "8", "--random", strconv.Itoa(clusterEights), "--seed", "27",
		"--chunk-size", strconv.Itoa(clusterChunk))
	cs.waitDone(t, eights, at, 5*time.Minute)
	faultAt := time.Now()
	stalled := cs.watchStall(fifteen, eights)
	what := fault(cs, c, eights)
	took := cs.waitFinished(t, start, 10*time.Minute, fifteen, eights)
	afterFault := time.Since(faultAt)
	stall := stalled()
	if after != nil {
		after(cs, c)
	}
	mustRun(t, daemons...)
	tl := cs.check(t, fifteen, eights)
	if n := tl.byStatus["solved"]; n != tl.states {
		t.Errorf("%d of %d states solved (%s): every 8-puzzle and every 15-puzzle over 15-pdb-663 has its answer within the default budget",
			n, tl.states, statuses(tl))
	}
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: cs.redelivered(t, jobDeliveries, jobs), resultsRe: cs.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("%s; longest time without a new row %s; finished %s later; streams empty %s after the check; %s",
			what, dur(stall), dur(afterFault), dur(tl.drained), statuses(tl))}
}

// clusterBaseline: the same run with no fault, so that the others' times
// and longest gaps without a new row can be read against it (on a shared
// machine, the load moves both).
func clusterBaseline(t *testing.T, s *suite) figure {
	return clusterRun(t, s, clusterEights/4, func(*suite, *natstest.Cluster, int64) string {
		return "no fault (the baseline), from a quarter of the 8-puzzles on"
	}, nil)
}

// killLeader: kill -9 the node leading stream mid-batch; the batch must
// finish with that node down. It comes back before the check, which then
// also proves it caught up.
func killLeader(stream string) func(t *testing.T, s *suite) figure {
	return func(t *testing.T, s *suite) figure {
		var victim int
		return clusterRun(t, s, clusterEights/4, func(cs *suite, c *natstest.Cluster, batch int64) string {
			victim = c.StreamLeader(t, stream)
			killedAt := cs.progress(t, batch).Done
			c.Kill(victim)
			next := c.StreamLeader(t, stream)
			if next == victim {
				t.Errorf("%s still led by the killed node %s", stream, c.Node(victim).Name())
			}
			return fmt.Sprintf("leader %s of %s killed at %d 8-puzzle rows, %s leads next", c.Node(victim).Name(), stream,
				killedAt, c.Node(next).Name())
		}, func(cs *suite, c *natstest.Cluster) {
			c.Restart(victim)
			for _, name := range []string{queue.JobsStream, queue.ResultsStream} {
				c.WaitStreamCurrent(t, name, time.Minute)
			}
		})
	}
}

// rollingRestart: every node in turn is stopped (SIGTERM) and started
// again, waiting until both work streams have all three replicas current
// before the next, as an operator upgrading the cluster would.
func rollingRestart(t *testing.T, s *suite) figure {
	return clusterRun(t, s, clusterEights/10, func(cs *suite, c *natstest.Cluster, batch int64) string {
		var took []string
		for i := range c.N() {
			if b := cs.progress(t, batch); b.Finished() {
				t.Errorf("the 8-puzzle batch finished before node %d of 3 was restarted: the rolling restart did not overlap the batch", i+1)
			}
			t0 := time.Now()
			c.Stop(i)
			c.Restart(i)
			for _, name := range []string{queue.JobsStream, queue.ResultsStream} {
				c.WaitStreamCurrent(t, name, time.Minute)
			}
			took = append(took, dur(time.Since(t0)))
		}
		return "nodes restarted one at a time, each back and current in " + strings.Join(took, ", ")
	}, nil)
}

// natsKill: the single nats-server of the suite is killed with -9 mid-batch
// and restarted on its store 2 s later, with the cluster scenarios' work
// and daemons. A kill -9 can leave acknowledged messages below their
// consumer's ack floor (results in TESSERA_RESULTS, a job at the head of
// TESSERA_JOBS); the dead-letter handler's sweep must remove them,
// so the checker waits up to clusterDrain for empty streams.
func natsKill(t *testing.T, s *suite) figure {
	ss := *s
	ss.drain = clusterDrain
	ss.env = append(append([]string{}, s.env...), "TESSERA_SOLVER_TABLES_DIR="+s.tables663(t), "TESSERA_SOLVER_TABLES=15-pdb-663")
	sd := []*proc{ss.solverd(t, "k-solverd-a", 1, 1), ss.solverd(t, "k-solverd-b", 1, 1)}
	w := []*proc{ss.writer(t, "k-results-a"), ss.writer(t, "k-results-b")}
	jobs, res := ss.read(t, jobDeliveries), ss.read(t, resultDeliveries)
	start := time.Now()
	fifteen := ss.produce(t, nil, "--puzzle", "15", "--random", strconv.Itoa(clusterFifteen), "--seed", "28")
	eights := ss.produce(t, nil, "--puzzle", "8", "--random", strconv.Itoa(clusterEights), "--seed", "29",
		"--chunk-size", strconv.Itoa(clusterChunk))
	ss.waitDone(t, eights, clusterEights/4, 5*time.Minute)
	killedAt := ss.progress(t, eights).Done
	stalled := ss.watchStall(fifteen, eights)
	ss.nats.Kill()
	down := time.Now()
	time.Sleep(2 * time.Second)
	ss.restartNATS(t)
	back := time.Now()
	took := ss.waitFinished(t, start, 10*time.Minute, fifteen, eights)
	after := time.Since(back)
	stall := stalled()
	mustRun(t, append(sd, w...)...)
	tl := ss.check(t, fifteen, eights)
	if n := tl.byStatus["solved"]; n != tl.states {
		t.Errorf("%d of %d states solved (%s)", n, tl.states, statuses(tl))
	}
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: ss.redelivered(t, jobDeliveries, jobs), resultsRe: ss.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("killed at %d 8-puzzle rows, down %s; longest time without a new row %s; finished %s after the restart; streams empty %s after the check; %s",
			killedAt, dur(back.Sub(down)), dur(stall), dur(after), dur(tl.drained), statuses(tl))}
}

// watchStall samples the batches' rows every 100 ms from now until they
// are all finished (or the returned func is called) and returns, through
// that func, the longest time in which no new row was stored: what a
// fault cost the pipeline, measured from outside it.
func (s *suite) watchStall(batches ...int64) func() time.Duration {
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan time.Duration, 1)
	go func() {
		var longest time.Duration
		last, lastAt := int64(-1), time.Now()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		defer func() { result <- longest }()
		for {
			var done int64
			finished := true
			for _, id := range batches {
				qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
				b, err := s.st.BatchProgress(qctx, id)
				qcancel()
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					finished = false
					continue
				}
				done += b.Done
				finished = finished && b.Finished()
			}
			now := time.Now()
			if done != last {
				last, lastAt = done, now
			} else {
				longest = max(longest, now.Sub(lastAt))
			}
			if finished {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() time.Duration {
		cancel()
		return <-result
	}
}

// quorumLoss: two of the three nodes killed with -9 mid-batch and left
// down for `down`: no stream has a quorum, so nothing can be published or
// acknowledged. Both come back on their stores. The daemons must wait it
// out, and no state may end failed for it (an outage never spends a
// job's deliveries into a failed row).
func quorumLoss(down time.Duration) func(t *testing.T, s *suite) figure {
	return func(t *testing.T, s *suite) figure {
		return clusterRun(t, s, clusterEights/4, func(cs *suite, c *natstest.Cluster, batch int64) string {
			leader := c.StreamLeader(t, queue.JobsStream)
			victims := []int{leader, (leader + 1) % c.N()}
			at := cs.progress(t, batch).Done
			for _, v := range victims {
				c.Kill(v)
			}
			time.Sleep(down)
			during := cs.progress(t, batch).Done - at
			for _, v := range victims {
				c.Restart(v)
			}
			return fmt.Sprintf("%s and %s killed at %d 8-puzzle rows and left down %s (no quorum; %d rows stored meanwhile, from results already on their way)",
				c.Node(victims[0]).Name(), c.Node(victims[1]).Name(), at, dur(down), during)
		}, func(cs *suite, c *natstest.Cluster) {
			for _, name := range []string{queue.JobsStream, queue.ResultsStream} {
				c.WaitStreamCurrent(t, name, time.Minute)
			}
		})
	}
}

// clusterKill: every node killed with -9 at once mid-batch, restarted on
// its store `down` later, as a power cut would.
func clusterKill(down time.Duration) func(t *testing.T, s *suite) figure {
	return func(t *testing.T, s *suite) figure {
		return clusterRun(t, s, clusterEights/4, func(cs *suite, c *natstest.Cluster, batch int64) string {
			at := cs.progress(t, batch).Done
			for i := range c.N() {
				c.Kill(i)
			}
			time.Sleep(down)
			// All at once: a node alone cannot elect a meta leader.
			for i := range c.N() {
				c.Node(i).Restart()
			}
			c.WaitMeta(time.Minute)
			return fmt.Sprintf("all three nodes killed at %d 8-puzzle rows, restarted %s later", at, dur(down))
		}, func(cs *suite, c *natstest.Cluster) {
			for _, name := range []string{queue.JobsStream, queue.ResultsStream} {
				c.WaitStreamCurrent(t, name, time.Minute)
			}
		})
	}
}
