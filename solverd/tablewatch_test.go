package main

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/testenv"
	"github.com/tessera-solver/tessera/tables/catalog"
	"github.com/tessera-solver/tessera/tables/catalog/catalogtest"
)

var fifteen = puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}

// scramble15 is a 15-puzzle that walking distance solves in well under a
// second, so the fallback's answer comes quickly.
func scramble15(seed uint64) string {
	return puzzle.RandomWalk(fifteen, rand.New(rand.NewPCG(seed, 7)), 40).String()
}

// `solverd run` started with no tables solves a
// 15-puzzle by walking distance; a table set built into its directory
// while it runs serves the next job, without a restart, and /metrics
// says which set serves the 15-puzzle. A corrupt file of a better set
// (right header, wrong checksum) is refused with one log line naming the
// file and the command that rebuilds it, however many rescans see it,
// and does not stop the good set being taken; a new version of the file
// is checked (and refused) again.
func TestRunPicksUpTablesBuiltWhileRunning(t *testing.T) {
	testenv.ClearConfigEnv(t)
	url, nc := natstest.Server(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var o, e lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"run", "--nats-url", url, "--workers", "1", "--metrics-addr", "127.0.0.1:0",
			"--tables-dir", dir, "--tables-rescan", "50ms"}, strings.NewReader(""), &o, &e)
	}()
	addrRe := regexp.MustCompile(`serving /metrics, /healthz and /readyz" addr=(\S+)`)
	var addr string
	testenv.WaitFor(t, "the metrics listener", 20*time.Second, func() bool {
		m := addrRe.FindStringSubmatch(e.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	scrape := func() string {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	const noneServes = `tessera_solver_table_set_info{role="sliding:4x4 optimal",set="none"} 1`
	if m := scrape(); !strings.Contains(m, noneServes) {
		t.Fatalf("/metrics before tables lacks %s:\n%s", noneServes, m)
	}

	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
	defer wcancel()
	testenv.WaitFor(t, "the streams", 20*time.Second, func() bool {
		_, err := js.Stream(wctx, queue.ResultsStream)
		return err == nil
	})
	res, err := queue.EnsureResultsConsumer(wctx, js, queue.WithDeliveries(5, 30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	solveJob := func(id string, state string) result.Result {
		t.Helper()
		if err := queuetest.PublishJob(wctx, js, job.Job{V: job.Version, ID: id, BatchID: 1, Puzzle: "15", Mode: "optimal", States: []string{state}}); err != nil {
			t.Fatal(err)
		}
		for {
			msgs, err := queue.Fetch(wctx, res, 1, time.Second)
			if err != nil && wctx.Err() != nil {
				t.Fatalf("job %s: no result: %v", id, err)
			}
			for _, m := range msgs {
				var r job.Results
				if err := json.Unmarshal(m.Data(), &r); err != nil {
					t.Fatal(err)
				}
				_ = m.Ack()
				if r.JobID == id && len(r.Results) == 1 {
					return r.Results[0]
				}
			}
		}
	}
	if r := solveJob("1-0", scramble15(1)); r.Status != result.StatusSolved || strings.Contains(r.Solver, "pdb") {
		t.Fatalf("before tables: want a walking-distance answer, got %+v", r)
	}

	// The better set complete, one file corrupt (the others hold zeros
	// under right checksums: never served, as their set is refused).
	better, _ := catalog.LookupSet("15-pdb-663")
	for _, tb := range better.Tables[:2] {
		catalogtest.Zeros(t, dir, tb)
	}
	bad := better.Tables[2]
	catalogtest.Corrupt(t, dir, bad, 1)
	catalogtest.BuildSet(t, dir, "15-pdb-555")
	testenv.WaitFor(t, "the swap to 15-pdb-555", 20*time.Second, func() bool {
		return strings.Contains(e.String(), `msg="table set now in use" role="sliding:4x4 optimal" set=15-pdb-555 was=none`)
	})
	r := solveJob("1-1", scramble15(2))
	if r.Status != result.StatusSolved || !strings.Contains(r.Solver, "pdb") {
		t.Fatalf("after tables arrived: want a pattern-database answer, got %+v", r)
	}
	if m := scrape(); !strings.Contains(m, `tessera_solver_table_set_info{role="sliding:4x4 optimal",set="15-pdb-555"} 1`) || strings.Contains(m, noneServes) {
		t.Fatalf("/metrics after the swap:\n%s", m)
	}

	badPath := bad.Path(dir)
	refusals := func() int {
		return strings.Count(e.String(), `msg="table refused; serving with the tables in use" file=`+badPath)
	}
	time.Sleep(300 * time.Millisecond) // about six rescans
	if n := refusals(); n != 1 || !strings.Contains(e.String(), "rebuild it with: solverd tables build "+bad.Meta.Name) {
		t.Fatalf("the corrupt file was refused %d times (want once, naming its build command):\n%s", n, e.String())
	}
	// Another version of the file (truncated), renamed into place as
	// builds and pulls do, is checked anew, once.
	tmp := t.TempDir()
	catalogtest.Corrupt(t, tmp, bad, 2)
	if err := os.Truncate(bad.Path(tmp), 8192); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(bad.Path(tmp), badPath); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the new version's refusal", 10*time.Second, func() bool { return refusals() == 2 })
	time.Sleep(300 * time.Millisecond)
	if n := refusals(); n != 2 || !strings.Contains(e.String(), "truncated") {
		t.Fatalf("the truncated version was refused %d times in all (want 2):\n%s", n, e.String())
	}
	if r := solveJob("1-2", scramble15(3)); r.Status != result.StatusSolved || !strings.Contains(r.Solver, "pdb") {
		t.Fatalf("after the second refusal: %+v", r)
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("exit %d:\n%s", code, e.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not stop")
	}
}
