package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/result"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// results builds a results message of batch starting at seq; each length
// >= 0 is an optimal solved result of that length, -1 a budget_exceeded one.
func results(puzzle string, batch, seq int64, lengths ...int) job.Results {
	rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-%d", batch, seq), BatchID: batch, Puzzle: puzzle, FirstSeq: seq}
	for i, l := range lengths {
		r := result.Result{Puzzle: puzzle, State: fmt.Sprintf("state %d/%d", batch, seq+int64(i)), Solver: "test"}
		if l >= 0 {
			r.Status, r.Length, r.Optimal, r.LowerBound = result.StatusSolved, l, true, l
			r.Moves = strings.TrimSpace(strings.Repeat("R ", l))
		} else {
			r.Status, r.Error = result.StatusBudgetExceeded, "node budget exhausted"
		}
		rs.Results = append(rs.Results, r)
	}
	return rs
}

// fixture is a server on a fresh schema holding three batches:
//
//	a: sliding:3x3, total 6, rows of lengths 2 4 4 6 and one budget_exceeded (5 of 6 done)
//	b: sliding:4x4, total unknown, no rows
//	c: sliding:3x3, total 2, lengths 4 3 (finished)
type fixture struct {
	srv     *httptest.Server
	st      *store.Store
	a, b, c int64
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	st := storetest.NewStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := fixture{st: st}
	var err error
	for _, x := range []struct {
		id     *int64
		puzzle string
		total  int64
	}{{&f.a, "8", 6}, {&f.b, "15", -1}, {&f.c, "sliding:3x3", 2}} {
		if *x.id, err = st.CreateBatch(ctx, x.puzzle, "optimal", x.total); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.InsertResults(ctx, []job.Results{
		results("sliding:3x3", f.a, 0, 2, 4, 4, 6, -1),
		results("sliding:3x3", f.c, 0, 4, 3),
	}); err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewServer(httpapi.New(st, nil))
	t.Cleanup(f.srv.Close)
	return f
}

// get fetches path and returns the status, the Content-Type and the body.
func get(t *testing.T, srv *httptest.Server, path string) (int, string, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

// getJSON fetches path, checks the status and the JSON content type, and
// decodes the body into v (strictly: unknown fields are an error).
func getJSON(t *testing.T, srv *httptest.Server, path string, wantCode int, v any) {
	t.Helper()
	code, ctype, body := get(t, srv, path)
	if code != wantCode || ctype != "application/json" {
		t.Fatalf("GET %s: %d %s %s; want %d application/json", path, code, ctype, body, wantCode)
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("GET %s: decode %s: %v", path, body, err)
	}
}

type apiError struct {
	Error string `json:"error"`
	Param string `json:"param"`
}

// /healthz is liveness and never touches the database: it answers 200
// with PostgreSQL down (a 503 would make an orchestrator restart a
// server whose database is merely slow). /readyz is readiness:
// the database on a connection of its own.
func TestProbes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	down := downServer(t)
	for _, c := range []struct {
		srv  *httptest.Server
		path string
		code int
		body string
	}{
		{f.srv, "/healthz", 200, "ok\n"},
		{f.srv, "/readyz", 200, "ok\n"},
		{down, "/healthz", 200, "ok\n"},
		{down, "/readyz", 503, "connect to database"},
	} {
		code, ctype, body := get(t, c.srv, c.path)
		if code != c.code || !strings.Contains(body, c.body) || !strings.HasPrefix(ctype, "text/plain") {
			t.Errorf("%s (down %v): %d %s %q, want %d %q", c.path, c.srv == down, code, ctype, body, c.code, c.body)
		}
	}
	// The open /readyz shows why the database is not ready, never its
	// password (from the URL or the password option).
	const secret = "pgSECRET-4k2j9"
	for _, opt := range []store.Option{nil, store.WithPassword(secret)} {
		u := "postgres://postgres:" + secret + "@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"
		var opts []store.Option
		if opt != nil {
			u, opts = "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", []store.Option{opt}
		}
		st, err := store.Open(context.Background(), u, opts...)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(httpapi.New(st, nil))
		code, _, body := get(t, srv, "/readyz")
		srv.Close()
		st.Close()
		if code != 503 || strings.Contains(body, secret) {
			t.Errorf("readyz with a password: %d %q", code, body)
		}
	}
}

// downServer serves a store whose database does not exist (nothing
// listens on port 1).
func downServer(t *testing.T) *httptest.Server {
	t.Helper()
	st, err := store.Open(context.Background(), "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	srv := httptest.NewServer(httpapi.New(st, nil))
	t.Cleanup(srv.Close)
	return srv
}

func TestBatches(t *testing.T) {
	t.Parallel()
	f := newFixture(t)

	var list httpapi.BatchList
	getJSON(t, f.srv, "/api/batches", 200, &list)
	if len(list.Batches) != 3 || list.Batches[0].ID != f.c || list.Batches[1].ID != f.b || list.Batches[2].ID != f.a {
		t.Fatalf("batches = %+v; want c, b, a", list.Batches)
	}
	a := list.Batches[2]
	if a.Puzzle != "sliding:3x3" || a.Mode != "optimal" || a.Total != 6 || a.Done != 5 || a.Solved != 4 ||
		a.BudgetExceeded != 1 || a.Finished() || a.Progress == nil || math.Abs(*a.Progress-5.0/6) > 1e-9 {
		t.Errorf("batch a = %+v (progress %v)", a, a.Progress)
	}
	if b := list.Batches[1]; b.Puzzle != "sliding:4x4" || b.Total != -1 || b.Progress != nil {
		t.Errorf("batch b = %+v; want total -1, progress null", b)
	}
	if c := list.Batches[0]; !c.Finished() || c.Progress == nil || *c.Progress != 1 {
		t.Errorf("batch c = %+v; want finished, progress 1", c)
	}
	getJSON(t, f.srv, "/api/batches?limit=1", 200, &list)
	if len(list.Batches) != 1 || list.Batches[0].ID != f.c {
		t.Errorf("limit=1: %+v", list.Batches)
	}
	getJSON(t, f.srv, "/api/batches?limit=1000000", 200, &list) // capped, not refused
	if len(list.Batches) != 3 {
		t.Errorf("limit=1000000: %d batches", len(list.Batches))
	}
	for _, q := range []string{"limit=0", "limit=-3", "limit=x", "limit=1.5"} {
		var e apiError
		getJSON(t, f.srv, "/api/batches?"+q, 400, &e)
		if e.Param != "limit" || e.Error == "" {
			t.Errorf("%s: %+v", q, e)
		}
	}

	var one httpapi.BatchView
	getJSON(t, f.srv, fmt.Sprintf("/api/batches/%d", f.a), 200, &one)
	if one.ID != f.a || one.Done != 5 || one.Progress == nil {
		t.Errorf("batch %d = %+v", f.a, one)
	}
	var e apiError
	getJSON(t, f.srv, "/api/batches/999999", 404, &e)
	if !strings.Contains(e.Error, "not found") {
		t.Errorf("missing batch: %+v", e)
	}
	e = apiError{}
	getJSON(t, f.srv, "/api/batches/abc", 400, &e)
	if e.Param != "id" {
		t.Errorf("bad id: %+v", e)
	}
}

func TestDistributions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)

	var d httpapi.BatchDistribution
	getJSON(t, f.srv, fmt.Sprintf("/api/batches/%d/distribution", f.a), 200, &d)
	want := []store.LengthCount{{Length: 2, Count: 1}, {Length: 4, Count: 2}, {Length: 6, Count: 1}}
	if d.BatchID != f.a || fmt.Sprint(d.Counts) != fmt.Sprint(want) || d.Total != 4 || d.Mean != 4 || d.Max != 6 {
		t.Errorf("batch a distribution = %+v", d)
	}
	_, _, body := get(t, f.srv, fmt.Sprintf("/api/batches/%d/distribution", f.b))
	if !strings.Contains(body, `"counts":[]`) || !strings.Contains(body, `"total":0`) {
		t.Errorf("empty batch distribution = %s; want counts [] and total 0", body)
	}
	var e apiError
	getJSON(t, f.srv, "/api/batches/999999/distribution", 404, &e)
	getJSON(t, f.srv, "/api/batches/x/distribution", 400, &e)
	if e.Param != "id" {
		t.Errorf("bad id: %+v", e)
	}

	// Aliases and spellings of one puzzle give one canonical answer: a and c summed.
	for _, p := range []string{"8", "sliding:3x3", "sliding%3A3x3", "SLIDING:3x3"} {
		var pd httpapi.PuzzleDistribution
		getJSON(t, f.srv, "/api/puzzles/"+p+"/distribution", 200, &pd)
		if pd.Puzzle != "sliding:3x3" || pd.Total != 6 || len(pd.Counts) != 4 || pd.Counts[1] != (store.LengthCount{Length: 3, Count: 1}) {
			t.Errorf("puzzle %s: %+v", p, pd)
		}
	}
	var pd httpapi.PuzzleDistribution
	getJSON(t, f.srv, "/api/puzzles/15/distribution", 200, &pd)
	if pd.Puzzle != "sliding:4x4" || pd.Total != 0 || pd.Counts == nil {
		t.Errorf("puzzle 15: %+v", pd)
	}
	for _, p := range []string{"rubik:3x3", "sliding:9x9", "7"} {
		e = apiError{}
		getJSON(t, f.srv, "/api/puzzles/"+p+"/distribution", 400, &e)
		if e.Param != "puzzle" || !strings.Contains(e.Error, "puzzle") {
			t.Errorf("puzzle %s: %+v", p, e)
		}
	}
}

func TestScrambles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)

	var s httpapi.Scrambles
	getJSON(t, f.srv, "/api/scrambles?puzzle=8&length=4", 200, &s)
	if s.Puzzle != "sliding:3x3" || s.Length != 4 || s.Limit != httpapi.DefaultScramble || s.Count != 3 || len(s.Scrambles) != 3 {
		t.Fatalf("scrambles = %+v", s)
	}
	// Oldest batch and seq first: a/1, a/2, c/0.
	for i, w := range []struct{ batch, seq int64 }{{f.a, 1}, {f.a, 2}, {f.c, 0}} {
		r := s.Scrambles[i]
		if r.BatchID != w.batch || r.Seq != w.seq || r.Length == nil || *r.Length != 4 || !r.Optimal ||
			r.Moves == nil || *r.Moves != "R R R R" || r.State != fmt.Sprintf("state %d/%d", w.batch, w.seq) {
			t.Errorf("scramble %d = %+v", i, r)
		}
	}
	getJSON(t, f.srv, "/api/scrambles?puzzle=sliding:3x3&length=4&limit=1", 200, &s)
	if s.Count != 1 || s.Scrambles[0].BatchID != f.a || s.Scrambles[0].Seq != 1 {
		t.Errorf("limit=1: %+v", s)
	}
	getJSON(t, f.srv, "/api/scrambles?puzzle=8&length=4&limit=50000", 200, &s)
	if s.Limit != httpapi.MaxScrambles || s.Count != 3 {
		t.Errorf("limit=50000: limit %d, count %d; want capped at %d", s.Limit, s.Count, httpapi.MaxScrambles)
	}
	_, _, body := get(t, f.srv, "/api/scrambles?puzzle=8&length=30")
	if !strings.Contains(body, `"scrambles":[]`) || !strings.Contains(body, `"count":0`) {
		t.Errorf("no scrambles: %s", body)
	}

	for _, tc := range []struct{ query, param string }{
		{"length=4", "puzzle"},
		{"puzzle=&length=4", "puzzle"},
		{"puzzle=cube:3x3&length=4", "puzzle"},
		{"puzzle=8", "length"},
		{"puzzle=8&length=", "length"},
		{"puzzle=8&length=-1", "length"},
		{"puzzle=8&length=four", "length"},
		{"puzzle=8&length=99999999999", "length"},
		{"puzzle=8&length=4&limit=0", "limit"},
		{"puzzle=8&length=4&limit=x", "limit"},
	} {
		var e apiError
		getJSON(t, f.srv, "/api/scrambles?"+tc.query, 400, &e)
		if e.Param != tc.param || !strings.HasPrefix(e.Error, tc.param+": ") {
			t.Errorf("%s: %+v; want param %s", tc.query, e, tc.param)
		}
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var e apiError
	getJSON(t, f.srv, "/api/nope", 404, &e)
	if !strings.Contains(e.Error, "/api/nope") {
		t.Errorf("unknown endpoint: %+v", e)
	}
	if code, _, _ := get(t, f.srv, "/nope"); code != 404 {
		t.Errorf("/nope: %d", code)
	}
	resp, err := f.srv.Client().Post(f.srv.URL+"/api/batches", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/batches: %d", resp.StatusCode)
	}
}

// A sample line of the text exposition format: name, optional labels
// (escaped values), one value.
var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? (\S+)$`)
var commentLine = regexp.MustCompile(`^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$`)

// parseMetrics checks that every line is a HELP, TYPE or sample line, that
// every sample belongs to a family declared (HELP then TYPE) just before
// its contiguous samples, and returns the samples as "name{labels}" → value.
func parseMetrics(t *testing.T, text string) map[string]float64 {
	t.Helper()
	if !strings.HasSuffix(text, "\n") {
		t.Errorf("metrics do not end with a newline")
	}
	samples := map[string]float64{}
	declared := map[string]string{} // name → type
	current := ""
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if m := commentLine.FindStringSubmatch(line); m != nil {
			if _, dup := declared[m[2]]; dup && m[1] == "HELP" {
				t.Errorf("line %d: family %s declared twice", i+1, m[2])
			}
			if m[1] == "TYPE" {
				switch m[3] {
				case "counter", "gauge", "summary", "histogram", "untyped":
				default:
					t.Errorf("line %d: type %q", i+1, m[3])
				}
				declared[m[2]] = m[3]
			}
			current = m[2]
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("line %d is not Prometheus text: %q", i+1, line)
			continue
		}
		if base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m[1], "_bucket"), "_sum"), "_count"); m[1] != current && base != current {
			t.Errorf("line %d: sample of %s outside its family (current %s)", i+1, m[1], current)
		}
		if declared[m[1]] == "counter" && !strings.HasSuffix(m[1], "_total") {
			t.Errorf("line %d: counter %s does not end in _total", i+1, m[1])
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Errorf("line %d: value %q: %v", i+1, m[3], err)
		}
		key := m[1] + m[2]
		if _, dup := samples[key]; dup {
			t.Errorf("line %d: duplicate sample %s", i+1, key)
		}
		samples[key] = v
	}
	return samples
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if ok, err := f.st.PauseBatch(context.Background(), f.b); err != nil || !ok {
		t.Fatalf("pause batch %d: %v, %v", f.b, ok, err)
	}
	code, ctype, body := get(t, f.srv, "/metrics")
	if code != 200 || !strings.HasPrefix(ctype, "text/plain; version=0.0.4") {
		t.Fatalf("metrics: %d %s", code, ctype)
	}
	m := parseMetrics(t, body)
	p8 := `puzzle="sliding:3x3"`
	want := map[string]float64{
		`tessera_up`:                                                                              1,
		`tessera_database_up`:                                                                     1,
		`tessera_batches_total{` + p8 + `}`:                                                       2,
		`tessera_batches_total{puzzle="sliding:4x4"}`:                                             1,
		`tessera_batches_finished_total{` + p8 + `}`:                                              1,
		`tessera_batches_finished_total{puzzle="sliding:4x4"}`:                                    0,
		`tessera_solutions_total{` + p8 + `,status="solved"}`:                                     6,
		`tessera_solutions_total{` + p8 + `,status="budget_exceeded"}`:                            1,
		`tessera_solutions_total{` + p8 + `,status="failed"}`:                                     0,
		fmt.Sprintf(`tessera_batch_states{batch="%d",%s,status="solved"}`, f.a, p8):               4,
		fmt.Sprintf(`tessera_batch_states{batch="%d",%s,status="budget_exceeded"}`, f.a, p8):      1,
		fmt.Sprintf(`tessera_batch_states{batch="%d",puzzle="sliding:4x4",status="solved"}`, f.b): 0,
		fmt.Sprintf(`tessera_batch_expected_states{batch="%d",%s}`, f.a, p8):                      6,
		fmt.Sprintf(`tessera_batch_finished{batch="%d",%s}`, f.a, p8):                             0,
		fmt.Sprintf(`tessera_batch_finished{batch="%d",%s}`, f.c, p8):                             1,
		fmt.Sprintf(`tessera_batch_paused{batch="%d",%s}`, f.a, p8):                               0,
		fmt.Sprintf(`tessera_batch_paused{batch="%d",puzzle="sliding:4x4"}`, f.b):                 1,
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if _, ok := m[fmt.Sprintf(`tessera_batch_expected_states{batch="%d",puzzle="sliding:4x4"}`, f.b)]; ok {
		t.Errorf("expected states of a batch with unknown total are reported")
	}
	if _, ok := m["tessera_scrape_duration_seconds"]; !ok {
		t.Errorf("no tessera_scrape_duration_seconds")
	}
	if m["tessera_ready"] != 1 {
		t.Errorf("tessera_ready %v with PostgreSQL answering, want 1", m["tessera_ready"])
	}
	// The standard runtime and process collectors (client_golang).
	for _, k := range []string{"go_goroutines", "go_memstats_alloc_bytes", "process_resident_memory_bytes", "process_cpu_seconds_total"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", body)
	}

	// PostgreSQL down: still a valid scrape, saying so.
	code, _, body = get(t, downServer(t), "/metrics")
	m = parseMetrics(t, body)
	own := 0
	for k := range m {
		if strings.HasPrefix(k, "tessera_") {
			own++
		}
	}
	// up, database_up, scrape duration, ready (0: /readyz's 503), and the
	// load series (load.go).
	if code != 200 || m["tessera_up"] != 1 || m["tessera_database_up"] != 0 || m["tessera_ready"] != 0 || own != 6 || m["tessera_http_in_flight"] != 1 {
		t.Errorf("metrics with PostgreSQL down: %d\n%s", code, body)
	}
}

func TestPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, ctype, body := get(t, f.srv, "/")
	if code != 200 || ctype != "text/html; charset=utf-8" {
		t.Fatalf("/: %d %s", code, ctype)
	}
	for _, s := range []string{
		`<meta http-equiv="refresh" content="5">`,
		fmt.Sprintf(`<tr id="batch-%d">`, f.a),
		fmt.Sprintf(`<a href="/?batch=%d">%d</a>`, f.a, f.a),
		`class="seg solved" style="width: 66.67%"`,          // a: 4 of 6 solved
		`class="seg budget_exceeded" style="width: 16.67%"`, // a: 1 of 6 over budget
		`class="seg solved" style="width: 100.00%"`,         // c: finished
		`class="bar unknown"`,                               // b: total unknown
		`sliding:4x4`,
		`<td class="state-finished">finished</td>`,
		// Per puzzle: 6 distinct states of the 3x3 (a and c), lengths 2 3 4 4 4 6.
		`<section class="puzzle histogram" data-puzzle="sliding:3x3">`,
		`Sampled: 6 distinct states, mean 3.833, sd 1.329, 95 % interval of the mean 2.770–4.897, max 6.`,
		`<title>4: 3 (50.00%)</title>`,
		`No exact distribution stored`,
	} {
		if !strings.Contains(body, s) {
			t.Errorf("page lacks %s", s)
		}
	}
	if strings.Contains(body, `id="batch-histogram"`) || strings.Contains(body, `id="error"`) {
		t.Errorf("page without ?batch shows a batch histogram or an error")
	}
	if t.Failed() {
		t.Logf("page:\n%s", body)
	}

	code, _, body = get(t, f.srv, fmt.Sprintf("/?batch=%d", f.a))
	if code != 200 {
		t.Fatalf("?batch=a: %d", code)
	}
	// Lengths 2, 4 and 6 in the batch's histogram, 2, 3, 4 and 6 in the puzzle's.
	if n := strings.Count(body, `<rect class="sampled"`); n != 3+4 {
		t.Errorf("histograms have %d bars, want 3+4", n)
	}
	for _, s := range []string{
		`<div id="batch-histogram" class="histogram">`,
		`<title>batch ` + fmt.Sprint(f.a) + `: sliding:3x3</title>`,
		`<title>4: 2 (50.00%)</title>`,
		fmt.Sprintf(`<tr id="batch-%d" class="sel">`, f.a),
		fmt.Sprintf(`Batch %d: sliding:3x3, optimal, enqueuing`, f.a),
		`Sampled: 4 states, mean 4.000, sd 1.633, 95 % interval of the mean 2.400–5.600, max 6.`,
		`5 of 6 states stored (83.3 %), 4 solved, 1 not solved, `,
	} {
		if !strings.Contains(body, s) {
			t.Errorf("?batch=a page lacks %s", s)
		}
	}
	if t.Failed() {
		t.Logf("page:\n%s", body)
	}

	if code, _, body = get(t, f.srv, fmt.Sprintf("/?batch=%d", f.b)); code != 200 || !strings.Contains(body, `id="histogram-empty"`) {
		t.Errorf("?batch=b (no rows): %d, empty histogram note present %v", code, strings.Contains(body, "histogram-empty"))
	}
	if code, _, body = get(t, f.srv, "/?batch=999999"); code != 404 || !strings.Contains(body, `id="error"`) || !strings.Contains(body, "not found") {
		t.Errorf("?batch=999999: %d", code)
	}
	if code, _, body = get(t, f.srv, "/?batch=%3Cscript%3E"); code != 400 || strings.Contains(body, `"<script>"`) || !strings.Contains(body, "&lt;script&gt;") {
		t.Errorf("?batch=<script>: %d, escaped %v", code, strings.Contains(body, "&lt;script&gt;"))
	}
	if code, _, _ = get(t, downServer(t), "/"); code != 500 {
		t.Errorf("page with PostgreSQL down: %d", code)
	}
}

// Writer tokens of writerServer.
const (
	writerA = "writer-a-token-0123456789"
	writerB = "writer-b-token-0123456789"
	reader  = "reader-token-0123456789"
)

// writerServer serves st behind the guard results serve uses, with a read
// token and two writers, a and b.
func writerServer(t *testing.T, st *store.Store, opts ...httpapi.Option) *httptest.Server {
	t.Helper()
	g := httpauth.NewGuard(reader, []httpauth.Writer{{Name: "a", Token: writerA}, {Name: "b", Token: writerB}})
	srv := httptest.NewServer(g.Wrap(httpapi.New(st, nil, opts...)))
	t.Cleanup(srv.Close)
	return srv
}

// getAs is getJSON with a bearer token.
// scramblesGetter is writer A's GET /api/scrambles?q on srv (200 OK).
func scramblesGetter(t *testing.T, srv *httptest.Server) func(q string) httpapi.Scrambles {
	return func(q string) httpapi.Scrambles {
		t.Helper()
		var s httpapi.Scrambles
		getAs(t, srv, writerA, "/api/scrambles?"+q, 200, &s)
		return s
	}
}

func getAs(t *testing.T, srv *httptest.Server, token, path string, wantCode int, v any) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantCode {
		t.Fatalf("GET %s: %d %s; want %d", path, resp.StatusCode, body, wantCode)
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("GET %s: decode %s: %v", path, body, err)
	}
}

// storeScrambles stores in st a batch of 8-puzzle states "s0", "s1", ...
// solved optimally in 4 moves, the i-th after nodes[i] nodes.
func storeScrambles(t *testing.T, st *store.Store, nodes ...int64) {
	t.Helper()
	ctx := context.Background()
	id, err := st.CreateBatch(ctx, "8", "optimal", int64(len(nodes)))
	if err != nil {
		t.Fatal(err)
	}
	rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-0", id), BatchID: id, Puzzle: "sliding:3x3"}
	for i, n := range nodes {
		rs.Results = append(rs.Results, result.Result{Puzzle: "sliding:3x3", State: fmt.Sprint("s", i), Status: result.StatusSolved,
			Length: 4, Optimal: true, Moves: "U U L L", Nodes: n})
	}
	if _, err := st.InsertResults(ctx, []job.Results{rs}); err != nil {
		t.Fatal(err)
	}
}

// The scrambles contract for generation backends: count, a client key that
// never gets a state twice, a cursor, and what is missing with the command
// that generates it.
func TestScramblesForClients(t *testing.T) {
	t.Parallel()
	st := storetest.NewStore(t)
	storeScrambles(t, st, 10, 20, 30)
	srv := writerServer(t, st)
	get := scramblesGetter(t, srv)
	first := get("puzzle=8&length=4&count=2&client=k")
	if first.Count != 2 || first.NextCursor == "" || first.Missing != 0 {
		t.Fatalf("first page %+v", first)
	}
	second := get("puzzle=8&length=4&count=2&client=k")
	if second.Count != 1 || second.Scrambles[0].State == first.Scrambles[0].State || second.Missing != 1 ||
		second.Generate != "producer --puzzle sliding:3x3 --target-length 4 --count 4" { // 3 stored + 1 missing
		t.Fatalf("second request of the same client %+v", second)
	}
	if next := get("puzzle=8&length=4&count=2&cursor=" + first.NextCursor); next.Count != 1 || next.Scrambles[0].State != "s2" {
		t.Fatalf("cursor page %+v", next)
	}
	if hard := get("puzzle=8&length=4&count=5&min_nodes=25"); hard.Count != 1 || hard.Scrambles[0].Nodes != 30 {
		t.Fatalf("min_nodes %+v", hard)
	}
	if old := get("puzzle=8&length=4&limit=1"); old.Count != 1 || old.Limit != 1 {
		t.Fatalf("limit %+v", old)
	}
	var e apiError
	getAs(t, srv, writerA, "/api/scrambles?puzzle=8&length=4&cursor=x", 400, &e)
	if e.Param != "cursor" {
		t.Errorf("bad cursor: %+v", e)
	}
}

// Served-state tracking writes, so only writers may use it (invented keys
// would insert rows, use up a real client's unseen states, or be huge): a reader's
// client= is refused without writing, keys are bounded, each writer's keys
// are its own, and a key is served at most its cap of states.
func TestScramblesAccess(t *testing.T) {
	t.Parallel()
	st := storetest.NewStore(t)
	storeScrambles(t, st, 0, 0, 0, 0)
	srv := writerServer(t, st, httpapi.WithClientCap(3))
	var e apiError
	getAs(t, srv, reader, "/api/scrambles?puzzle=8&length=4&count=4&client=k", 403, &e)
	if e.Param != "client" || !strings.Contains(e.Error, "writer token") {
		t.Errorf("reader with client=: %+v", e)
	}
	getAs(t, srv, writerA, "/api/scrambles?puzzle=8&length=4&client="+strings.Repeat("k", httpapi.MaxClientKey+1), 400, &e)
	if e.Param != "client" {
		t.Errorf("long key: %+v", e)
	}
	getAs(t, srv, writerA, "/api/scrambles?puzzle=8&length=4&client=a%00b", 400, &e)
	var s httpapi.Scrambles
	// The reader's refused request recorded nothing: writer a still gets
	// the first states, up to the cap of 3 (two, then what is left).
	getAs(t, srv, writerA, "/api/scrambles?puzzle=8&length=4&count=2&client=k", 200, &s)
	if s.Count != 2 || s.Scrambles[0].State != "s0" {
		t.Fatalf("writer a, first: %+v", s)
	}
	getAs(t, srv, writerA, "/api/scrambles?puzzle=8&length=4&count=4&client=k", 200, &s)
	if s.Count != 1 || s.Scrambles[0].State != "s2" {
		t.Fatalf("writer a, up to the cap: %+v", s)
	}
	getAs(t, srv, writerA, "/api/scrambles?puzzle=8&length=4&count=4&client=k", 409, &e)
	if e.Param != "client" || !strings.Contains(e.Error, "3 states") {
		t.Errorf("writer a at the cap: %+v", e)
	}
	// Writer b's key k is another key: a's requests used none of it.
	getAs(t, srv, writerB, "/api/scrambles?puzzle=8&length=4&count=4&client=k", 200, &s)
	if s.Count != 3 || s.Scrambles[0].State != "s0" {
		t.Errorf("writer b, same key name: %+v", s)
	}
	// Reading without a key stays open to the reader.
	getAs(t, srv, reader, "/api/scrambles?puzzle=8&length=4&count=4", 200, &s)
	if s.Count != 4 {
		t.Errorf("reader without a key: %+v", s)
	}
}
