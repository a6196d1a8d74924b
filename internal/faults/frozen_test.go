package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/testenv"
)

const (
	// frozenEights is the frozen-leader scenario's batch: enough 8-puzzles
	// (in 10-state jobs) to keep every client busy through the freeze.
	frozenEights = 200000
	// freezeFor is how long the leader stays frozen.
	freezeFor = 30 * time.Second
	// stallLimit is the longest a client of the frozen node may make no
	// progress: it must notice the silence (pings) and move to another
	// node, not wait for the freeze to end.
	stallLimit = 15 * time.Second
)

// client is one daemon of the frozen-leader scenario, followed through its
// own /metrics.
type client struct {
	p       *proc
	addr    string // its metrics listener
	counter string // the metric that grows with its progress (summed over its labels)
}

// clientTrace is what the sampler saw of one client from the freeze on.
type clientTrace struct {
	stall time.Duration // longest time its counter did not grow
	// final is its counter at the end (−1: never seen), grown when it
	// last grew, from the freeze.
	final float64
	grown time.Duration
}

// frozenLeader: the node leading TESSERA_JOBS is frozen with SIGSTOP for
// 30 s while two solverd and two writers work through 200,000 8-puzzles on
// a three-node cluster (streams at R3), then resumed. A frozen server
// keeps its TCP connections open and answers nothing: its clients notice
// only by their pings (nats.ping_interval × nats.max_pings_out) and must
// then reconnect to another node. Every daemon serves /metrics on a port
// of its own, sampled every 200 ms, so each client's own progress is
// measured; the clients of the frozen node are those whose log says they
// lost it, and when. Their longest stall must stay under 15 s, and every
// state still ends as one row.
func frozenLeader(t *testing.T, s *suite) figure {
	cs, c := s.onCluster(t)
	var clients []client
	for _, name := range []string{"f-solverd-a", "f-solverd-b"} {
		port := testenv.FreePort(t)
		p := cs.solverd(t, name, 1, 1, "TESSERA_SOLVER_METRICS_ADDR=127.0.0.1:"+strconv.Itoa(port))
		clients = append(clients, client{p: p, addr: "127.0.0.1:" + strconv.Itoa(port), counter: "tessera_solver_jobs_total"})
	}
	for _, name := range []string{"f-results-a", "f-results-b"} {
		port := testenv.FreePort(t)
		p := cs.daemon(t, name, []string{"TESSERA_RESULTS_METRICS_ADDR=127.0.0.1:" + strconv.Itoa(port)}, "results", "run")
		clients = append(clients, client{p: p, addr: "127.0.0.1:" + strconv.Itoa(port), counter: "tessera_writer_rows_total"})
	}
	for _, cl := range clients {
		testenv.WaitProbe(t, cl.addr, "/readyz", http.StatusOK, time.Minute)
	}
	jobs, res := cs.read(t, jobDeliveries), cs.read(t, resultDeliveries)
	start := time.Now()
	eights := cs.produce(t, nil, "--puzzle", "8", "--random", strconv.Itoa(frozenEights), "--seed", "37",
		"--chunk-size", strconv.Itoa(clusterChunk))
	cs.waitDone(t, eights, frozenEights/10, 5*time.Minute)

	victim, onVictim := cs.leaderWithClients(t, c, queue.JobsStream)
	frozenAt := cs.progress(t, eights).Done
	stalled := cs.watchStall(eights)
	traces := followClients(clients)
	freeze := time.Now()
	c.Freeze(victim)
	time.Sleep(freezeFor)
	c.Thaw(victim)
	thawed := time.Now()
	took := cs.waitFinished(t, start, 10*time.Minute, eights)
	afterThaw := time.Since(thawed)
	trace := traces(freeze)
	stall := stalled()
	for _, name := range []string{queue.JobsStream, queue.ResultsStream} {
		c.WaitStreamCurrent(t, name, time.Minute)
	}
	mustRun(t, clientProcs(clients)...)

	// The clients of the frozen node: those that logged losing it. Their
	// log says when they noticed (the pings) and how long they were
	// without a server (down=, until the reconnect to another node).
	lost := `NATS connection lost; reconnecting" server=` + c.URL(victim) + " "
	var on, off, noticed []string
	var onStall, offStall time.Duration
	for i, cl := range clients {
		b, _ := os.ReadFile(cl.p.log)
		tr := trace[i]
		if tr.final < 0 {
			// A counter never seen measures nothing: the stall would be
			// the whole run, or no client's progress would be checked.
			t.Errorf("%s: %s never appeared in its /metrics", cl.p.name, cl.counter)
		}
		t.Logf("%s: %s %.0f at the end, last grew %s after the freeze", cl.p.name, cl.counter, tr.final, dur(tr.grown))
		at, down, ok := lostAndBack(string(b), lost)
		if !ok {
			off = append(off, cl.p.name)
			offStall = max(offStall, tr.stall)
			continue
		}
		on = append(on, cl.p.name)
		onStall = max(onStall, tr.stall)
		noticed = append(noticed, fmt.Sprintf("%s noticed after %s, reconnected in %s", cl.p.name, dur(at.Sub(freeze)), down))
		if at.Sub(freeze) >= stallLimit {
			t.Errorf("%s noticed the frozen node only %s after the freeze", cl.p.name, dur(at.Sub(freeze)))
		}
		if tr.stall >= stallLimit {
			t.Errorf("%s, a client of the frozen node, made no progress for %s (limit %s)", cl.p.name, dur(tr.stall), stallLimit)
		}
	}
	if len(on) == 0 {
		t.Errorf("no client logged losing the frozen node %s, although %d were connected to it (%v)", c.Node(victim).Name(), len(onVictim), onVictim)
	}
	tl := cs.check(t, eights)
	if n := tl.byStatus["solved"]; n != tl.states {
		t.Errorf("%d of %d states solved (%s)", n, tl.states, statuses(tl))
	}
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: cs.redelivered(t, jobDeliveries, jobs), resultsRe: cs.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("leader %s of %s frozen (SIGSTOP) %s at %d 8-puzzle rows; clients on it: %s (%s); "+
			"their longest stall %s (limit %s), the other clients' (%s) %s; longest time without a new row %s; "+
			"finished %s after the thaw; streams empty %s after the check; %s",
			c.Node(victim).Name(), queue.JobsStream, dur(freezeFor), frozenAt, strings.Join(on, ", "), strings.Join(noticed, "; "),
			dur(onStall), stallLimit, strings.Join(off, ", "), dur(offStall), dur(stall), dur(afterThaw), dur(tl.drained), statuses(tl))}
}

func clientProcs(cs []client) []*proc {
	ps := make([]*proc, len(cs))
	for i, c := range cs {
		ps[i] = c.p
	}
	return ps
}

// leaderWithClients is the node leading stream, with the names of the
// tessera connections it holds. A leader that holds none would make the
// scenario prove nothing about its clients, so it is asked to step down
// (another node is elected) until the leader holds at least one.
func (s *suite) leaderWithClients(t *testing.T, c *natstest.Cluster, stream string) (int, []string) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		i := c.StreamLeader(t, stream)
		names := tesseraConns(t, c.Node(i).MonitorURL())
		if len(names) > 0 || attempt == 8 {
			return i, names
		}
		if _, err := s.nc.Request("$JS.API.STREAM.LEADER.STEPDOWN."+stream, nil, 10*time.Second); err != nil {
			t.Logf("step down the leader of %s: %v", stream, err)
		}
		time.Sleep(2 * time.Second)
	}
}

// tesseraConns lists the names of the solverd and writer connections a
// node holds (its monitoring endpoint's /connz).
func tesseraConns(t *testing.T, monitor string) []string {
	t.Helper()
	resp, err := http.Get(monitor + "/connz?limit=1024")
	if err != nil {
		t.Fatalf("connz: %v", err)
	}
	defer resp.Body.Close()
	var z struct {
		Conns []struct {
			Name string `json:"name"`
		} `json:"connections"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&z); err != nil {
		t.Fatalf("connz: %v", err)
	}
	var names []string
	for _, cn := range z.Conns {
		if cn.Name == "tessera-solverd" || cn.Name == "tessera-results" {
			names = append(names, cn.Name)
		}
	}
	slices.Sort(names)
	return names
}

// followClients samples every client's progress counter every
// 200 ms from now until the returned func is called with the freeze's
// time, and returns each client's trace from that time on.
func followClients(clients []client) func(freeze time.Time) []clientTrace {
	ctx, cancel := context.WithCancel(context.Background())
	type sample struct {
		at    time.Time
		value float64
	}
	samples := make([][]sample, len(clients))
	var wg sync.WaitGroup
	for i, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				_, body := testenv.Probe(cl.addr, "/metrics")
				samples[i] = append(samples[i], sample{time.Now(), testenv.Sum(body, cl.counter)})
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
	}
	return func(freeze time.Time) []clientTrace {
		cancel()
		wg.Wait()
		out := make([]clientTrace, len(clients))
		for i, ss := range samples {
			var tr clientTrace
			// The stall runs from the last growth before the freeze (or
			// the freeze) to the next growth; a scrape that failed (NaN)
			// is no progress. The last stretch runs to the last sample,
			// taken once the batch finished.
			last, lastAt := -1.0, freeze
			for _, sm := range ss {
				grew := sm.value == sm.value && sm.value > last
				if sm.at.Before(freeze) {
					if grew {
						last = sm.value
					}
					continue
				}
				if grew || sm.at.Equal(ss[len(ss)-1].at) {
					tr.stall = max(tr.stall, sm.at.Sub(lastAt))
				}
				if grew {
					last, lastAt = sm.value, sm.at
				}
			}
			tr.final, tr.grown = last, lastAt.Sub(freeze)
			out[i] = tr
		}
		return out
	}
}

// lostAndBack finds the first line of log holding lost (a slog text line)
// and returns its time and the down= of the next "NATS connection back"
// line ("?" when there is none).
func lostAndBack(log, lost string) (time.Time, string, bool) {
	lines := strings.Split(log, "\n")
	for i, l := range lines {
		if !strings.Contains(l, lost) {
			continue
		}
		ts, _, _ := strings.Cut(strings.TrimPrefix(l, "time="), " ")
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			continue
		}
		down := "?"
		for _, m := range lines[i+1:] {
			if _, after, ok := strings.Cut(m, `msg="NATS connection back"`); ok {
				if _, d, ok := strings.Cut(after, " down="); ok {
					down, _, _ = strings.Cut(d, " ")
				}
				break
			}
		}
		return at, down, true
	}
	return time.Time{}, "", false
}
