package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/tablestore"
	"github.com/tessera-solver/tessera/internal/testenv"
	"github.com/tessera-solver/tessera/tables"
	"github.com/tessera-solver/tessera/tables/catalog"
)

var fifteen = puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}

// scramble15 is a 15-puzzle that walking distance solves in well under a
// second, so the fallback's answer comes quickly.
func scramble15(seed uint64) string {
	return puzzle.RandomWalk(fifteen, rand.New(rand.NewPCG(seed, 7)), 40).String()
}

// buildSet builds the named set into dir (15-pdb-555: about a second).
func buildSet(t *testing.T, dir, name string) {
	t.Helper()
	set, _ := catalog.LookupSet(name)
	for _, tb := range set.Tables {
		if _, _, err := catalog.Build(context.Background(), dir, tb, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// corruptTable writes table tb with a made-up payload into dir, then
// flips one payload byte at offset back from the end: header and size
// are right, the checksum is not. It returns the file's bytes.
func corruptTable(t *testing.T, dir string, tb catalog.Table, back int) []byte {
	t.Helper()
	path, _, err := tables.Write(dir, tb.Meta, make([]byte, payloadLen(tb.Meta)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-back] ^= 0xff
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o444); err != nil {
		t.Fatal(err)
	}
	return b
}

func payloadLen(m tables.Meta) uint64 {
	if m.Encoding == "u4" {
		return (m.Entries + 1) / 2
	}
	return m.Entries
}

func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Issue 26 item 4: `solverd run` started with no tables solves a
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
	waitFor(t, "the metrics listener", 20*time.Second, func() bool {
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
	waitFor(t, "the streams", 20*time.Second, func() bool {
		_, err := js.Stream(wctx, queue.ResultsStream)
		return err == nil
	})
	res, err := queue.EnsureResultsConsumer(wctx, js, queue.WithDeliveries(5, 30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	solveJob := func(id string, state string) result.Result {
		t.Helper()
		if err := queue.PublishJob(wctx, js, job.Job{V: job.Version, ID: id, BatchID: 1, Puzzle: "15", Mode: "optimal", States: []string{state}}); err != nil {
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
		if _, _, err := tables.Write(dir, tb.Meta, make([]byte, payloadLen(tb.Meta))); err != nil {
			t.Fatal(err)
		}
	}
	bad := better.Tables[2]
	corruptTable(t, dir, bad, 1)
	buildSet(t, dir, "15-pdb-555")
	waitFor(t, "the swap to 15-pdb-555", 20*time.Second, func() bool {
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
	corruptTable(t, tmp, bad, 2)
	if err := os.Truncate(bad.Path(tmp), 8192); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(bad.Path(tmp), badPath); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new version's refusal", 10*time.Second, func() bool { return refusals() == 2 })
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

// A tableWatch with a bucket pulls the tables put into it while it runs
// (told by the bucket's watch, not by a rescan) and serves the next
// solve with them. An object that fails the table check is refused once
// per upload, never written into the directory, and does not stop the
// good set from being pulled and taken; a local table that failed its
// check is replaced by the bucket's good copy.
func TestTableWatchPullsFromBucket(t *testing.T) {
	url, nc := natstest.Server(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := t.TempDir()
	buildSet(t, src, "15-pdb-555")
	cfg := config.Default()
	cfg.NATS.URL = url
	push := func(bucket string) {
		t.Helper()
		st, err := tablestore.Open(ctx, nc, bucket, 1)
		if err != nil {
			t.Fatal(err)
		}
		set, _ := catalog.LookupSet("15-pdb-555")
		for _, tb := range set.Tables {
			if _, err := st.Push(ctx, tb.Path(src)); err != nil {
				t.Fatal(err)
			}
		}
	}
	watch := func(dir, bucket string, log *lockedBuffer) (*tableWatch, *solve.Live) {
		l, err := solve.Tables(dir, "auto", false)
		if err != nil {
			t.Fatal(err)
		}
		live := solve.NewLive(l)
		t.Cleanup(func() { live.Close() })
		w := newTableWatch(dir, "auto", false, live, slog.New(slog.NewTextHandler(log, nil)), nil)
		c := cfg
		c.Solver.TablesBucket = bucket
		w.withBucket(bucket, nil, func(ctx context.Context) (*tablestore.Store, func(), error) { return openBucket(ctx, c) })
		return w, live
	}
	pdbAnswer := func(live *solve.Live) bool {
		r := live.SolveText(ctx, fifteen, scramble15(4), solve.Options{})
		return r.Status == result.StatusSolved && strings.Contains(r.Solver, "pdb")
	}

	// A corrupt object beside a good set: scanned three times.
	push("tables-a")
	better, _ := catalog.LookupSet("15-pdb-663")
	bad := better.Tables[2]
	js, _ := jetstream.New(nc)
	obs, err := js.ObjectStore(ctx, "tables-a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obs.PutBytes(ctx, bad.Meta.FileName(), corruptTable(t, t.TempDir(), bad, 1)); err != nil {
		t.Fatal(err)
	}
	// And a corrupt local copy of one good table, which the bucket's
	// copy replaces once it has been refused.
	var log lockedBuffer
	dir := t.TempDir()
	good, _ := catalog.LookupSet("15-pdb-555")
	corruptTable(t, dir, good.Tables[0], 1)
	w, live := watch(dir, "tables-a", &log)
	for range 3 {
		w.scan(ctx)
	}
	w.closeBucket()
	if got := live.Loaded().Roles["sliding:4x4 optimal"]; got != "15-pdb-555" || !pdbAnswer(live) {
		t.Fatalf("after pulling: serving %q\n%s", got, log.String())
	}
	if n := strings.Count(log.String(), `msg="table in the bucket refused; serving with the tables in use" object=`+bad.Meta.FileName()); n != 1 {
		t.Fatalf("the corrupt object was refused %d times in three scans, want once:\n%s", n, log.String())
	}
	if exists(bad.Path(dir)) {
		t.Fatal("the corrupt object reached the tables directory")
	}
	if n := strings.Count(log.String(), `msg="table refused; serving with the tables in use" file=`+good.Tables[0].Path(dir)); n != 1 {
		t.Fatalf("the corrupt local table was refused %d times, want once before the bucket's copy replaced it:\n%s", n, log.String())
	}

	// The bucket's watch, not the (hour-long) rescan, brings a table put
	// after the start.
	var log2 lockedBuffer
	w2, live2 := watch(t.TempDir(), "tables-b", &log2)
	if _, err := tablestore.Open(ctx, nc, "tables-b", 1); err != nil { // empty, for the watch
		t.Fatal(err)
	}
	wctx, wcancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		w2.run(wctx, time.Hour)
	}()
	// Its first scan (an empty bucket: milliseconds) opens the watch; the
	// next is an hour away.
	time.Sleep(300 * time.Millisecond)
	if pdbAnswer(live2) {
		t.Fatal("a pattern-database answer before any table")
	}
	push("tables-b")
	waitFor(t, "the pull told by the watch", 20*time.Second, func() bool {
		return live2.Loaded().Roles["sliding:4x4 optimal"] == "15-pdb-555"
	})
	if !pdbAnswer(live2) {
		t.Fatal("the pulled set does not serve the next solve")
	}
	wcancel()
	<-stopped
	if !strings.Contains(log2.String(), "pulled table") {
		t.Fatalf("no pull logged:\n%s", log2.String())
	}
}
