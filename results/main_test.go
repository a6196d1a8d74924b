package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/testenv"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

func cli(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(ctx, args, &o, &e)
	return code, o.String(), e.String()
}

func results(batch, seq int64, lengths ...int) job.Results {
	rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-%d", batch, seq), BatchID: batch, Puzzle: "sliding:3x3", FirstSeq: seq}
	for i, l := range lengths {
		r := result.Result{Puzzle: "sliding:3x3", State: fmt.Sprint("s", seq+int64(i)), Solver: "test"}
		if l >= 0 {
			r.Status, r.Length, r.Optimal, r.Moves = result.StatusSolved, l, true, strings.TrimSpace(strings.Repeat("U ", l))
		} else {
			r.Status, r.Error = result.StatusBudgetExceeded, "budget"
		}
		rs.Results = append(rs.Results, r)
	}
	return rs
}

// storeBatch opens the store at url (closed at t's end), creates an
// 8-puzzle batch of total states and stores rows of the given lengths
// from seq 0 (as results makes them).
func storeBatch(t *testing.T, url string, total int64, lengths ...int) (*store.Store, int64) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	id, err := st.CreateBatch(ctx, "8", "optimal", total)
	if err != nil {
		t.Fatalf("create batch (is the schema migrated?): %v", err)
	}
	if _, err := st.InsertResults(ctx, []job.Results{results(id, 0, lengths...)}); err != nil {
		t.Fatal(err)
	}
	return st, id
}

// isolate keeps the caller's TESSERA_* settings and ./tessera.yaml out.
func isolate(t *testing.T) {
	for _, k := range []string{"TESSERA_DATABASE_URL", "TESSERA_NATS_URL", "TESSERA_CONFIG", "DATABASE_URL",
		"TESSERA_RESULTS_HTTP_TOKEN", "TESSERA_DATABASE_PASSWORD", "TESSERA_NATS_PASSWORD", "TESSERA_NATS_TOKEN"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	// Any free port: tests run beside each other and beside real services.
	t.Setenv("TESSERA_RESULTS_METRICS_ADDR", "127.0.0.1:0")
	t.Chdir(t.TempDir())
}

func TestCommands(t *testing.T) {
	isolate(t)
	u := storetest.SchemaURL(t)
	ctx := context.Background()
	db := "--database-url=" + u

	if code, _, e := cli(t, ctx, "migrate", db); code != 0 || !strings.Contains(e, "schema at version ") {
		t.Fatalf("migrate: %d %s", code, e)
	}
	st, id := storeBatch(t, u, 5, 2, 4, 4, 6, -1)

	code, out, e := cli(t, ctx, "dist", "--batch", fmt.Sprint(id), db)
	if want := "2 1\n4 2\n6 1\ntotal 4\nmean 4.0000\nsd 1.6330\nci95 2.3997 5.6003\nmax 6\n"; code != 0 || out != want {
		t.Errorf("dist --batch: %d %q %s, want %q", code, out, e, want)
	}
	code, out, _ = cli(t, ctx, "dist", "--puzzle", "8", db, "--json")
	var d store.Distribution
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.Total != 4 || d.Max != 6 {
		t.Errorf("dist --puzzle --json: %d %q", code, out)
	}
	if code, out, _ = cli(t, ctx, "dist", "--puzzle", "15", db); code != 0 || out != "total 0\n" {
		t.Errorf("empty dist: %d %q", code, out)
	}

	code, out, e = cli(t, ctx, "export", "--batch", fmt.Sprint(id), "--format", "csv", db)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 6 || !strings.HasPrefix(lines[0], "batch_id,seq,puzzle,state,moves,length,optimal") {
		t.Errorf("export csv: %d %q %s", code, out, e)
	}
	file := filepath.Join(t.TempDir(), "out.jsonl")
	if code, _, e = cli(t, ctx, "export", "--batch", fmt.Sprint(id), "--format", "jsonl", "-o", file, db); code != 0 {
		t.Fatalf("export jsonl: %d %s", code, e)
	}
	data, _ := os.ReadFile(file)
	if n := strings.Count(string(data), "\n"); n != 5 {
		t.Errorf("jsonl file has %d lines", n)
	}
	// --puzzle exports every batch of the puzzle, filtered.
	for _, tc := range []struct {
		args []string
		rows int
	}{
		{[]string{"--puzzle", "8"}, 5},
		{[]string{"--puzzle", "sliding:3x3", "--length", "4"}, 2},
		{[]string{"--puzzle", "8", "--status", "budget_exceeded,failed"}, 1},
		{[]string{"--puzzle", "8", "--length", "4", "--status", "budget_exceeded"}, 0},
		{[]string{"--puzzle", "15"}, -1}, // no batch of the 4x4: exit 1
	} {
		code, out, e := cli(t, ctx, append(append([]string{"export"}, tc.args...), db)...)
		switch {
		case tc.rows < 0:
			if code != 1 {
				t.Errorf("export %v: exit %d %s, want 1", tc.args, code, e)
			}
		case code != 0 || strings.Count(out, "\n") != 1+tc.rows:
			t.Errorf("export %v: %d %q %s, want %d rows", tc.args, code, out, e, tc.rows)
		}
	}
	if code, out, _ = cli(t, ctx, "batches", db); code != 0 || !strings.Contains(out, "sliding:3x3") {
		t.Errorf("batches: %d %q", code, out)
	}
	// A producer killed between two marks: 5 rows stored, the mark at 2.
	// enqueued shows the 5 surely enqueued (it showed 2, below done), and
	// the batch is stalled once nothing moved for 30 s (it took 2 min).
	if err := st.SetEnqueued(ctx, id, 2); err != nil {
		t.Fatal(err)
	}
	lagged, err := st.CreateBatch(ctx, "8", "optimal", 9)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetEnqueued(ctx, lagged, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := st.InsertResults(ctx, []job.Results{results(lagged, 0, 2, 4, 4, 6, -1)}); err != nil {
		t.Fatal(err)
	}
	b, err := st.BatchProgress(ctx, lagged)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.State(b.CreatedAt.Add(45 * time.Second)); got != "stalled" {
		t.Errorf("45 s without progress: %s, want stalled", got)
	}
	code, out, _ = cli(t, ctx, "batches", db)
	// id puzzle mode prio state age enqueued done total, then one column
	// per status (4 solved, 1 budget_exceeded), rows/s and ETA.
	row := regexp.MustCompile(fmt.Sprintf(`(?m)^%d +sliding:3x3 +optimal +normal +\S+ +\S+ +(\d+) +(\d+) +9 +(\d+ +\d+ +\d+ +\d+ +\d+ +\d+) +[0-9.]+ +\S+$`, lagged)).FindStringSubmatch(out)
	if code != 0 || row == nil || row[1] != "5" || row[2] != "5" || strings.Join(strings.Fields(row[3]), " ") != "4 1 0 0 0 0" {
		t.Errorf("batches: enqueued, done and statuses of the lagged batch %q, want 5 5 and 4 1 0 0 0 0:\n%s", row, out)
	}
	if head := strings.Fields(strings.SplitN(out, "\n", 2)[0]); !slices.Equal(head[9:], []string{"solved", "budget", "invalid", "unsolvable", "failed", "cancelled", "rows/s", "eta"}) {
		t.Errorf("batches header %q: want a column per status, then rows/s and eta", head)
	}

	// Errors: not found is 1, usage is 2.
	for _, tc := range []struct {
		code int
		args []string
	}{
		{1, []string{"dist", "--batch", "999999", db}},
		{1, []string{"export", "--batch", "999999", db}},
		{2, []string{"dist", db}},
		{2, []string{"dist", "--batch", "1", "--puzzle", "8", db}},
		{2, []string{"export", db}},
		{2, []string{"export", "--batch", "1", "--format", "xml", db}},
		{2, []string{"export", "--batch", "1", "--puzzle", "8", db}},
		{2, []string{"export", "--puzzle", "8", "--status", "lost", db}},
		{2, []string{"export", "--puzzle", "8", "--length", "-1", db}},
		{2, []string{"export", "--puzzle", "cube:3", db}},
		{2, []string{"dist", "--batch", "x", db}},
		{2, []string{"migrate", "--mode", "slow", db}},
		{2, []string{"frobnicate"}},
	} {
		if code, _, e := cli(t, ctx, tc.args...); code != tc.code {
			t.Errorf("%v: exit %d (%s), want %d", tc.args, code, e, tc.code)
		}
	}
	// The database URL also comes from the environment.
	t.Setenv("TESSERA_DATABASE_URL", u)
	if code, out, _ := cli(t, ctx, "dist", "--batch", fmt.Sprint(id)); code != 0 || !strings.HasPrefix(out, "2 1\n") {
		t.Errorf("TESSERA_DATABASE_URL: %d %q", code, out)
	}
}

// `results run` end to end on a real NATS server and PostgreSQL: results
// published to TESSERA_RESULTS (one of them twice, under two message ids so
// JetStream's dedup does not hide it) land once each.
func TestRunConsumesResults(t *testing.T) {
	isolate(t)
	u := storetest.SchemaURL(t)
	natsURL, nc := natstest.Server(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	exit := make(chan int, 1)
	var stderr testenv.SyncBuffer
	go func() {
		exit <- run(ctx, []string{"run", "--database-url=" + u, "--nats-url=" + natsURL, "--fetch-wait=50ms"}, &bytes.Buffer{}, &stderr)
	}()

	st, err := store.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// Wait for the service to migrate and create the streams.
	var id int64
	deadline := time.Now().Add(30 * time.Second)
	for {
		if id, err = st.CreateBatch(ctx, "8", "optimal", 5); err == nil {
			if _, err = js.Stream(ctx, queue.ResultsStream); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("service not ready: %v\n%s", err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	a, b := results(id, 0, 1, 2, 3), results(id, 3, 3, -1)
	for _, r := range []job.Results{a, b} {
		if err := queuetest.PublishResults(ctx, js, r); err != nil {
			t.Fatal(err)
		}
	}
	again := a
	again.JobID += "-again" // a second publish of the same rows, past JetStream's dedup
	if err := queuetest.PublishResults(ctx, js, again); err != nil {
		t.Fatal(err)
	}
	for {
		p, err := st.BatchProgress(ctx, id)
		if err == nil && p.Finished() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch not finished: %+v %v\n%s", p, err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	d, err := st.BatchDistribution(ctx, id)
	if err != nil || d.Total != 4 || len(d.Counts) != 3 || d.Counts[2] != (store.LengthCount{Length: 3, Count: 2}) {
		t.Errorf("distribution %+v %v", d, err)
	}
	// Give the service a moment to ack the duplicate, then stop it.
	for time.Now().Before(deadline) {
		info, err := js.Stream(ctx, queue.ResultsStream)
		if err == nil && info.CachedInfo().State.Msgs == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The writer's own /metrics (client_golang, beside the Go
	// runtime and process collectors) counts what it wrote.
	m := regexp.MustCompile(`serving /metrics, /healthz and /readyz" addr=(\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no metrics listener:\n%s", stderr.String())
	}
	var body string
	for _, path := range []string{"/healthz", "/metrics"} {
		resp, err := http.Get("http://" + m[1] + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s", path, resp.StatusCode, b)
		}
		body = string(b)
	}
	for _, want := range []string{"tessera_writer_rows_inserted_total 5\n", "tessera_writer_transaction_rows_count ",
		"tessera_writer_transaction_seconds_bucket", "tessera_writer_dead_letters_total 0\n", "tessera_writer_held_bytes ", "go_goroutines ", "process_cpu_seconds_total "} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	// The writer is in the registry of workers while it runs, and leaves
	// it when it stops.
	writers := func() []queue.WorkerEntry {
		ws, err := queue.Workers(context.Background(), js)
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
	for ws := writers(); len(ws) != 1 || ws[0].Role != "results" || ws[0].PID != os.Getpid(); ws = writers() {
		if time.Now().After(deadline) {
			t.Fatalf("the writer is not registered: %+v", ws)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	waitExit(t, "run", exit, &stderr)
	if ws := writers(); len(ws) != 0 {
		t.Errorf("registered after a clean stop: %+v", ws)
	}
	p, _ := st.BatchProgress(context.Background(), id)
	if p.Done != 5 || p.Solved != 4 || p.BudgetExceeded != 1 {
		t.Errorf("progress %+v", p)
	}
}

// results dead lists the dead letters, of one batch or all, as text or JSON.
func TestDeadCommand(t *testing.T) {
	isolate(t)
	u := storetest.SchemaURL(t)
	ctx := context.Background()
	db := "--database-url=" + u
	if code, _, e := cli(t, ctx, "migrate", db); code != 0 {
		t.Fatal(e)
	}
	st, err := store.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, q := int64(4), int64(2)
	if _, err := st.AddDeadLetters(ctx, []store.DeadLetter{
		{BatchID: &b, Seq: &q, JobID: "4-2", Source: store.DeadCollision, Reason: "batch 4 seq 2 already holds another state", Payload: []byte(`{"state":"x"}`), Key: "a"},
		{Source: store.DeadResults, Reason: "decode results: not JSON", Payload: []byte("{junk\x00"), Key: "b"},
	}); err != nil {
		t.Fatal(err)
	}
	code, out, e := cli(t, ctx, "dead", db)
	if code != 0 || !strings.Contains(out, "collision batch=4 seq=2 job=4-2 batch 4 seq 2 already holds") ||
		!strings.Contains(out, "results batch=- seq=- job=- decode results") || !strings.Contains(e, "2 dead letters") {
		t.Fatalf("exit %d\n%s\n%s", code, out, e)
	}
	code, out, _ = cli(t, ctx, "dead", "--batch", "4", "--json", db)
	var l struct {
		BatchID int64  `json:"batch_id"`
		Source  string `json:"source"`
		Payload string `json:"payload"`
	}
	if code != 0 || strings.Count(out, "\n") != 1 || json.Unmarshal([]byte(out), &l) != nil || l.BatchID != 4 || l.Payload != `{"state":"x"}` {
		t.Fatalf("json: %d %s", code, out)
	}
	if code, _, _ := cli(t, ctx, "dead", "--batch", "0", db); code != exitUsage {
		t.Errorf("--batch 0: exit %d", code)
	}
}
