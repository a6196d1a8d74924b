package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/split"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// eightPuzzle is the exact distribution of the 8-puzzle: states at each
// optimal length 0..31, 181,440 in all.
var eightPuzzle = []int64{1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485,
	5638, 9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2}

// statusFixture is what a person watching the page would meet: a server
// on a fresh schema holding
//
//	sample: sliding:3x3, optimal, 300 states sampled from the exact distribution (finished)
//	hard:   sliding:3x3, optimal, 4 states, every one over budget (finished)
//	fast:   sliding:4x4, fast, 6 of 10 states solved (running)
//	run:    sliding:4x4, optimal, 100 of 1000 states solved (running)
//
// with the exact distribution of the 3x3 stored, and split progress: run
// has a split search at state 7 (iteration 3, bound 58, 5 of 40 subtrees
// answered), and reading hard's fails (NATS did not answer).
type statusFixture struct {
	st                      *store.Store
	srv                     *httptest.Server
	sample, hard, fast, run int64
}

func newStatusFixture(t *testing.T) statusFixture {
	t.Helper()
	st := storetest.NewStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var f statusFixture
	var err error
	for _, x := range []struct {
		id           *int64
		puzzle, mode string
		total        int64
	}{{&f.sample, "8", "optimal", 300}, {&f.hard, "8", "optimal", 4}, {&f.fast, "15", "fast", 10}, {&f.run, "15", "optimal", 1000}} {
		if *x.id, err = st.CreateBatch(ctx, x.puzzle, x.mode, x.total); err != nil {
			t.Fatal(err)
		}
		if err := st.SetEnqueued(ctx, *x.id, x.total); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetExact(ctx, "8", eightPuzzle, "test"); err != nil {
		t.Fatal(err)
	}
	// A deterministic sample of the exact distribution.
	rng := rand.New(rand.NewPCG(1, 2))
	var sampled []int
	for range 300 {
		r := rng.Int64N(181440)
		l := 0
		for ; r >= eightPuzzle[l]; l++ {
			r -= eightPuzzle[l]
		}
		sampled = append(sampled, l)
	}
	run := make([]int, 100)
	for i := range run {
		run[i] = 40 + i%15
	}
	rs := []job.Results{
		pageResults("sliding:3x3", f.sample, result.ModeOptimal, sampled...),
		pageResults("sliding:3x3", f.hard, result.ModeOptimal, -1, -1, -1, -1),
		pageResults("sliding:4x4", f.fast, result.ModeFast, 60, 62, 64, 66, 68, 70),
		pageResults("sliding:4x4", f.run, result.ModeOptimal, run...),
	}
	if _, err := st.InsertResults(ctx, rs); err != nil {
		t.Fatal(err)
	}
	rec := split.NewRecord(job.Job{ID: "x", BatchID: f.run}, 7, "s", 54, search.Budget{}, time.Now().Add(-time.Minute))
	for it := 1; it <= 3; it++ {
		split.Lay(&rec, 4, 40, 1000, rec.Bound+2)
		for i := range 40 {
			if it < 3 || i < 5 {
				split.Apply(&rec, job.SubtreeAnswer{Iteration: it, Index: i, Nodes: 2000, Next: rec.Bound + 2})
			}
		}
		if it < 3 {
			split.Advance(&rec)
		}
	}
	sp := fakeSplits{records: map[int64][]job.SplitRecord{f.run: {rec}}, failing: f.hard}
	f.st, f.srv = st, httptest.NewServer(httpapi.New(st, nil, httpapi.WithSplits(sp)))
	t.Cleanup(f.srv.Close)
	return f
}

// fakeSplits holds split records by batch; reading those of failing
// fails, as for a results serve that lost NATS.
type fakeSplits struct {
	records map[int64][]job.SplitRecord
	failing int64
}

func (f fakeSplits) Splits(_ context.Context, batch int64) ([]job.SplitRecord, error) {
	if batch == f.failing {
		return nil, fmt.Errorf("nats: no servers available for connection")
	}
	return f.records[batch], nil
}

// pageResults is a results message of batch from seq 0: a length >= 0 is
// a solved state (proved optimal in optimal mode), -1 one over budget.
func pageResults(puzzle string, batch int64, mode result.Mode, lengths ...int) job.Results {
	rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-0", batch), BatchID: batch, Puzzle: puzzle}
	for i, l := range lengths {
		r := result.Result{Puzzle: puzzle, State: fmt.Sprintf("state %d/%d", batch, i), Solver: "test"}
		if l >= 0 {
			r.Status, r.Length, r.Optimal = result.StatusSolved, l, mode == result.ModeOptimal
			r.Moves = strings.TrimSpace(strings.Repeat("R ", l))
			if r.Optimal {
				r.LowerBound = l
			}
		} else {
			r.Status, r.Error = result.StatusBudgetExceeded, "node budget exhausted"
		}
		rs.Results = append(rs.Results, r)
	}
	return rs
}

// The page's HTML for the cases of issues 17 and 18; TestPageInBrowser
// checks what a browser makes of it.
func TestPageStatuses(t *testing.T) {
	t.Parallel()
	f := newStatusFixture(t)
	code, _, body := get(t, f.srv, "/")
	if code != 200 {
		t.Fatalf("/: %d", code)
	}
	row := func(id int64) string {
		m := regexp.MustCompile(fmt.Sprintf(`(?s)<tr id="batch-%d".*?</tr>`, id)).FindString(body)
		if m == "" {
			t.Fatalf("no row of batch %d", id)
		}
		return m
	}
	if r := row(f.hard); !strings.Contains(r, `class="seg budget_exceeded" style="width: 100.00%"`) || strings.Contains(r, "seg solved") {
		t.Errorf("all-over-budget batch's bar:\n%s", r)
	}
	if r := row(f.sample); !strings.Contains(r, `class="seg solved" style="width: 100.00%"`) || !strings.Contains(r, `<td class="state-finished">finished</td>`) {
		t.Errorf("finished batch's row:\n%s", r)
	}
	if r := row(f.run); !strings.Contains(r, `<td class="state-running">running</td>`) || !regexp.MustCompile(`<td class="num">[0-9.]+/s</td><td>in [^<]+</td>`).MatchString(r) {
		t.Errorf("running batch's row lacks its state, rate or ETA:\n%s", r)
	}
	for _, s := range []string{
		`<section class="puzzle histogram" data-puzzle="sliding:3x3">`,
		`Exact: 181440 states, mean 21.972, max 31.`,
		`<polyline class="exact"`,
		`Sampled: 300 distinct states, mean `,
		`<section class="puzzle histogram" data-puzzle="sliding:4x4">`,
		`Sampled: 100 distinct states`, // the fast batch's rows are not in it
	} {
		if !strings.Contains(body, s) {
			t.Errorf("page lacks %s", s)
		}
	}

	_, _, body = get(t, f.srv, fmt.Sprintf("/?batch=%d", f.fast))
	if !strings.Contains(body, `<p class="note" id="fast-note">Fast-mode answers are not proved optimal, so they are not in the distance histogram. This batch has 6 solved states.</p>`) ||
		strings.Contains(body, "No proved-optimal solution") || strings.Contains(body, `id="batch-histogram"`) {
		t.Errorf("fast batch page:\n%s", body)
	}
}

// A batch's view shows its split searches' progress, read through
// WithSplits (NATS in results serve), and /api/batches/{id} has it too;
// when the read fails the page says so and shows the rest.
func TestPageSplitProgress(t *testing.T) {
	t.Parallel()
	f := newStatusFixture(t)
	_, _, body := get(t, f.srv, fmt.Sprintf("/?batch=%d", f.run))
	row := regexp.MustCompile(`(?s)<table id="splits">.*?<tr data-seq="7">(.*?)</tr>`).FindStringSubmatch(body)
	want := `<td class="num">7</td><td class="num">3</td><td class="num">58</td><td class="num">5/40</td><td class="num">173000</td><td class="num">58</td><td>running for 1m`
	if row == nil || !strings.HasPrefix(row[1], want) || strings.Contains(body, `id="splits-error"`) {
		t.Errorf("split progress of batch %d:\n%s", f.run, body)
	}
	code, _, api := get(t, f.srv, fmt.Sprintf("/api/batches/%d", f.run))
	if code != http.StatusOK || !strings.Contains(api, `"splits":[{"seq":7,"iteration":3,"bound":58,"subtrees_answered":5,"subtrees":40,"nodes":173000,"lower_bound":58,"started":`) {
		t.Errorf("/api/batches/%d: %d %s", f.run, code, api)
	}
	_, _, body = get(t, f.srv, fmt.Sprintf("/?batch=%d", f.hard))
	if !strings.Contains(body, `<p class="note" id="splits-error">Split searches' progress not shown (it is read from NATS): nats: no servers`) ||
		strings.Contains(body, `id="splits"`) || !strings.Contains(body, `id="batch"`) {
		t.Errorf("page of batch %d without NATS:\n%s", f.hard, body)
	}
	if _, _, body = get(t, f.srv, fmt.Sprintf("/?batch=%d", f.sample)); strings.Contains(body, `id="splits`) {
		t.Errorf("a batch without split searches shows them:\n%s", body)
	}
}

// Per-puzzle distributions are live: a page loaded after new rows shows
// them (puzzle_counts makes them cheap, so nothing is cached).
func TestPageDistributionsLive(t *testing.T) {
	t.Parallel()
	f := newStatusFixture(t)
	if _, _, body := get(t, f.srv, "/"); !strings.Contains(body, "Sampled: 300 distinct states") {
		t.Fatalf("first page lacks the sample")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id, err := f.st.CreateBatch(ctx, "8", "optimal", 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.InsertResults(ctx, []job.Results{pageResults("sliding:3x3", id, result.ModeOptimal, 5, 7)}); err != nil {
		t.Fatal(err)
	}
	_, _, body := get(t, f.srv, "/")
	if !strings.Contains(body, "Sampled: 302 distinct states") || !strings.Contains(body, fmt.Sprintf(`<tr id="batch-%d">`, id)) {
		t.Errorf("second page: want the new states in the sample and the new batch's row")
	}
}

// Downloads stream a batch's rows (as results export) and dead letters,
// as attachments; filters and errors are checked before anything is sent.
func TestDownloads(t *testing.T) {
	t.Parallel()
	f := newStatusFixture(t)
	ctx := context.Background()
	seq := int64(7)
	if _, err := f.st.AddDeadLetters(ctx, []store.DeadLetter{
		{BatchID: &f.hard, Seq: &seq, Source: store.DeadProducer, Reason: "bad line", Key: t.Name() + "1", Payload: []byte("1 2 x")},
		{BatchID: &f.hard, Source: store.DeadJobs, Reason: "not UTF-8", Key: t.Name() + "2", Payload: []byte{0xff, 0x00, 'a'}},
	}); err != nil {
		t.Fatal(err)
	}
	fetch := func(path string) (int, http.Header, string) {
		t.Helper()
		resp, err := http.Get(f.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	code, h, body := fetch(fmt.Sprintf("/api/batches/%d/rows?format=csv", f.sample))
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if code != 200 || len(lines) != 301 || lines[0] != strings.Join(store.SolutionColumns, ",") ||
		h.Get("Content-Disposition") != fmt.Sprintf(`attachment; filename="batch-%d-rows.csv"`, f.sample) {
		t.Errorf("rows csv: %d %v, %d lines, header %q", code, h, len(lines), lines[0])
	}
	code, _, body = fetch(fmt.Sprintf("/api/batches/%d/rows?format=jsonl&status=solved", f.run))
	if n := strings.Count(body, "\n"); code != 200 || n != 100 || !strings.Contains(body, `"status":"solved"`) {
		t.Errorf("rows jsonl of solved: %d, %d lines", code, n)
	}
	code, _, body = fetch(fmt.Sprintf("/api/batches/%d/rows?format=jsonl&status=budget_exceeded", f.run))
	if code != 200 || body != "" {
		t.Errorf("rows of a status with none: %d %q", code, body)
	}
	code, _, body = fetch(fmt.Sprintf("/api/batches/%d/dead?format=jsonl", f.hard))
	if code != 200 || !strings.Contains(body, `"payload":"1 2 x"`) || !strings.Contains(body, `"payload_base64":"/wBh"`) || strings.Count(body, "\n") != 2 {
		t.Errorf("dead jsonl: %d %s", code, body)
	}
	code, _, body = fetch(fmt.Sprintf("/api/batches/%d/dead?format=csv", f.hard))
	if code != 200 || !strings.HasPrefix(body, strings.Join(httpapi.DeadColumns, ",")+"\n") || !strings.Contains(body, ",1 2 x,") {
		t.Errorf("dead csv: %d %s", code, body)
	}
	for path, want := range map[string]int{
		"/api/batches/999999/rows?format=csv":                               404,
		"/api/batches/999999/dead?format=jsonl":                             404,
		fmt.Sprintf("/api/batches/%d/rows?format=xml", f.sample):            400,
		fmt.Sprintf("/api/batches/%d/rows?format=csv&status=meh", f.sample): 400,
		"/api/batches?state=meh":                                            400,
		"/api/batches?puzzle=nope":                                          400,
	} {
		if code, h, _ := fetch(path); code != want || h.Get("Content-Disposition") != "" {
			t.Errorf("%s: %d (Content-Disposition %q), want %d", path, code, h.Get("Content-Disposition"), want)
		}
	}
	var list httpapi.BatchList
	getJSON(t, f.srv, "/api/batches?puzzle=15&state=running", 200, &list)
	if len(list.Batches) != 2 || list.Batches[0].ID != f.run || list.Batches[1].ID != f.fast {
		t.Errorf("4x4 running: %+v", list.Batches)
	}
	// The page: the selected batch's rows a page at a time, and its dead
	// letters, with their download links.
	code, _, body = fetch(fmt.Sprintf("/?batch=%d&rows_after=49", f.sample))
	if code != 200 || strings.Count(body, `<tr data-seq=`) != httpapi.PageRows || !strings.Contains(body, `<tr data-seq="50">`) ||
		!strings.Contains(body, `id="rows-first"`) || !strings.Contains(body, "rows_after=99") {
		t.Errorf("rows page after 49: %d", code)
	}
	code, _, body = fetch(fmt.Sprintf("/?batch=%d", f.hard))
	if code != 200 || strings.Count(body, `<tr data-id=`) != 2 || !strings.Contains(body, "base64:/wBh") ||
		!strings.Contains(body, fmt.Sprintf(`href="/api/batches/%d/dead?format=csv"`, f.hard)) {
		t.Errorf("dead letters on the page: %d", code)
	}
	if code, _, _ = fetch(fmt.Sprintf("/?batch=%d&rows_after=x", f.hard)); code != 400 {
		t.Errorf("rows_after=x: %d", code)
	}
}
