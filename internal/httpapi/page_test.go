package httpapi_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
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
// with the exact distribution of the 3x3 stored.
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
	f.st, f.srv = st, httptest.NewServer(httpapi.New(st, nil))
	t.Cleanup(f.srv.Close)
	return f
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

// Per-puzzle distributions are reused for httpapi.DistTTL (counting
// distinct states sorts every row of the puzzle), while batch rows stay live.
func TestPageCachesDistributions(t *testing.T) {
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
	if !strings.Contains(body, "Sampled: 300 distinct states") || !strings.Contains(body, fmt.Sprintf(`<tr id="batch-%d">`, id)) {
		t.Errorf("second page within %v: want the cached sample and the new batch's row", httpapi.DistTTL)
	}
}
