package store_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/migrations"
)

const p8 = "sliding:3x3"

// res builds a results message of batch starting at seq; each length >= 0
// is an optimal solved result of that length, -1 a budget_exceeded one,
// -2 a solved but not proved-optimal (fast) one of length 30.
func res(batch, seq int64, lengths ...int) job.Results {
	rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-%d", batch, seq), BatchID: batch, Puzzle: p8, FirstSeq: seq}
	for i, l := range lengths {
		r := result.Result{Puzzle: p8, State: fmt.Sprintf("state %d", seq+int64(i)), Solver: "bfs", Nodes: 10, ElapsedMS: 0.25}
		switch {
		case l >= 0:
			r.Status, r.Length, r.Optimal, r.LowerBound = result.StatusSolved, l, true, l
			r.Moves = strings.TrimSpace(strings.Repeat("R ", l))
		case l == -1:
			r.Status, r.LowerBound, r.Error = result.StatusBudgetExceeded, 20, "node budget exhausted"
			r.Optimal = true // must be ignored: only solved rows can be optimal
		case l == -2:
			r.Status, r.Length, r.Moves = result.StatusSolved, 30, strings.TrimSpace(strings.Repeat("L ", 30))
		}
		rs.Results = append(rs.Results, r)
	}
	return rs
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func counts(d store.Distribution) map[int]int64 {
	m := map[int]int64{}
	for _, c := range d.Counts {
		m[c.Length] = c.Count
	}
	return m
}

// oneBatch is a fresh store, a context for the test and one 8-puzzle
// batch of total states in that store.
func oneBatch(t *testing.T, total int64) (*store.Store, context.Context, int64) {
	t.Helper()
	s := storetest.NewStore(t)
	return s, ctxT(t), mustBatch(t, s, total)
}

func mustBatch(t *testing.T, s *store.Store, total int64) int64 {
	t.Helper()
	id, err := s.CreateBatch(ctxT(t), "8", "optimal", total)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestMigrateUpDownUp(t *testing.T) {
	t.Parallel()
	s := storetest.Open(t)
	ctx := ctxT(t)
	for i := 0; i < 2; i++ { // the second run finds nothing to do
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ms, _ := migrations.All()
	if v, err := s.SchemaVersion(ctx); err != nil || v != len(ms) {
		t.Fatalf("version = %d, %v; want %d", v, err, len(ms))
	}
	if err := s.MigrateTo(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBatch(ctx, "8", "optimal", 1); err == nil {
		t.Fatal("batches still exists after migrating down to 0")
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBatch(ctx, "8", "optimal", 1); err != nil {
		t.Fatal(err)
	}
	if err := s.MigrateTo(ctx, 99); err == nil {
		t.Fatal("migrating to an unknown version succeeded")
	}
}

// Several processes starting at once: tern's advisory lock serialises them.
func TestConcurrentMigrate(t *testing.T) {
	t.Parallel()
	u := storetest.SchemaURL(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := store.Open(context.Background(), u)
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			errs[i] = s.Migrate(ctxT(t))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The contract of the issue: the same job delivered three times yields one
// row per state and counts of one.
func TestRedeliveryCountsOnce(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 3)
	msg := res(id, 0, 5, 7, -1)

	n, err := s.InsertResults(ctx, []job.Results{msg})
	if err != nil || n != 3 {
		t.Fatalf("first delivery: inserted %d, %v; want 3", n, err)
	}
	for i := 0; i < 2; i++ {
		if n, err := s.InsertResults(ctx, []job.Results{msg}); err != nil || n != 0 {
			t.Fatalf("redelivery %d: inserted %d, %v; want 0", i+2, n, err)
		}
	}
	// Three copies in one transaction (redelivered while the first was held).
	if n, err := s.InsertResults(ctx, []job.Results{msg, msg, msg}); err != nil || n != 0 {
		t.Fatalf("triple in one batch: inserted %d, %v; want 0", n, err)
	}
	checkBatch(t, s, id, map[int]int64{5: 1, 7: 1}, 2, 1, 3, true)

	// A fresh batch receiving three copies at once stores one of each.
	id2 := mustBatch(t, s, 3)
	msg2 := res(id2, 0, 5, 7, -1)
	if n, err := s.InsertResults(ctx, []job.Results{msg2, msg2, msg2}); err != nil || n != 3 {
		t.Fatalf("fresh triple: inserted %d, %v; want 3", n, err)
	}
	checkBatch(t, s, id2, map[int]int64{5: 1, 7: 1}, 2, 1, 3, true)
}

func checkBatch(t *testing.T, s *store.Store, id int64, wantCounts map[int]int64, solved, budget, done int64, finished bool) {
	t.Helper()
	ctx := ctxT(t)
	d, err := s.BatchDistribution(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := counts(d); !reflect.DeepEqual(got, wantCounts) {
		t.Errorf("batch %d counts = %v, want %v", id, got, wantCounts)
	}
	b, err := s.BatchProgress(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if b.Solved != solved || b.BudgetExceeded != budget || b.Done != done || b.Finished() != finished {
		t.Errorf("batch %d progress = %+v, want solved %d budget %d done %d finished %v", id, b, solved, budget, done, finished)
	}
}

// Counts come from the rows a transaction inserted, not from its input: a
// batch mixing an old message with new ones counts only the new rows.
func TestCountsOnlyFromInsertedRows(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 6)
	a, b, c := res(id, 0, 3, 3), res(id, 2, 3, 4), res(id, 4, 4, -2)
	if n, err := s.InsertResults(ctx, []job.Results{a}); err != nil || n != 2 {
		t.Fatalf("a: %d, %v", n, err)
	}
	checkBatch(t, s, id, map[int]int64{3: 2}, 2, 0, 2, false)
	if n, err := s.InsertResults(ctx, []job.Results{b, a, c}); err != nil || n != 4 {
		t.Fatalf("b+a+c: %d, %v; want 4", n, err)
	}
	// c's second state is solved but not optimal: stored, not counted.
	checkBatch(t, s, id, map[int]int64{3: 3, 4: 2}, 6, 0, 6, true)
}

// Brute-force oracle: random messages, random redeliveries in random
// batches, from concurrent writers; the counts must equal a histogram
// computed from the distinct messages.
func TestRandomRedeliveryOracle(t *testing.T) {
	t.Parallel()
	s := storetest.NewStore(t)
	ctx := ctxT(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const nMsgs, per = 60, 5
	id := mustBatch(t, s, nMsgs*per)
	var msgs []job.Results
	want := map[int]int64{}
	for m := 0; m < nMsgs; m++ {
		ls := make([]int, per)
		for i := range ls {
			ls[i] = rng.IntN(25) - 2
			if ls[i] >= 0 {
				want[ls[i]]++
			}
		}
		msgs = append(msgs, res(id, int64(m*per), ls...))
	}
	// Each message appears 1..3 times, shuffled, cut into batches, written
	// by 3 concurrent writers.
	inserted := writeRedelivered(t, ctx, s, rng, msgs, 12)
	if inserted != nMsgs*per {
		t.Errorf("inserted %d rows, want %d", inserted, nMsgs*per)
	}
	d, err := s.BatchDistribution(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := counts(d); !reflect.DeepEqual(got, want) {
		t.Errorf("counts = %v, want %v", got, want)
	}
	b, _ := s.BatchProgress(ctx, id)
	if b.Done != nMsgs*per || !b.Finished() {
		t.Errorf("progress %+v", b)
	}
}

func TestDistribution(t *testing.T) {
	t.Parallel()
	s := storetest.NewStore(t)
	ctx := ctxT(t)
	id1 := mustBatch(t, s, -1)
	id2 := mustBatch(t, s, -1)
	id3 := mustBatch(t, s, -1)
	// Batch 2 holds other states; batch 3 holds batch 1's first two again,
	// which a per-puzzle distribution counts once.
	other := res(id2, 0, 2, 6)
	for i := range other.Results {
		other.Results[i].State = fmt.Sprint("other ", i)
	}
	if _, err := s.InsertResults(ctx, []job.Results{res(id1, 0, 0, 2, 2, 4, -1, -2), other, res(id3, 0, 0, 2)}); err != nil {
		t.Fatal(err)
	}
	d, err := s.BatchDistribution(ctx, id1)
	if err != nil {
		t.Fatal(err)
	}
	// Lengths 0, 2, 2, 4: mean 2, sample variance 8/3.
	sd := math.Sqrt(8.0 / 3)
	want := store.Distribution{Counts: []store.LengthCount{{0, 1}, {2, 2}, {4, 1}}, Total: 4, Mean: 2, Max: 4,
		SD: sd, CI95: [2]float64{2 - 1.96*sd/2, 2 + 1.96*sd/2}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("batch distribution = %+v, want %+v", d, want)
	}
	for _, spec := range []string{"8", "sliding:3x3", "SLIDING:3x3"} {
		d, err = s.PuzzleDistribution(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		want = store.Distribution{Counts: []store.LengthCount{{0, 1}, {2, 3}, {4, 1}, {6, 1}}, Total: 6, Mean: 16.0 / 6, Max: 6}
		want.SD, want.CI95 = d.SD, d.CI95 // checked above
		if !reflect.DeepEqual(d, want) {
			t.Errorf("puzzle %s distribution = %+v, want %+v", spec, d, want)
		}
	}
	if d, err := s.PuzzleDistribution(ctx, "15"); err != nil || d.Total != 0 || len(d.Counts) != 0 {
		t.Errorf("empty puzzle: %+v, %v", d, err)
	}
	empty := mustBatch(t, s, 5)
	if d, err := s.BatchDistribution(ctx, empty); err != nil || d.Total != 0 {
		t.Errorf("empty batch: %+v, %v", d, err)
	}
	if _, err := s.BatchDistribution(ctx, 987654); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing batch: err = %v, want ErrNotFound", err)
	}
}

func TestBatchLifecycle(t *testing.T) {
	t.Parallel()
	s := storetest.NewStore(t)
	ctx := ctxT(t)
	if _, err := s.CreateBatch(ctx, "sliding:0x0", "optimal", 1); err == nil {
		t.Error("bad puzzle accepted")
	}
	if _, err := s.CreateBatch(ctx, "8", "slow", 1); err == nil {
		t.Error("bad mode accepted")
	}
	zero := mustBatch(t, s, 0)
	if b, err := s.BatchProgress(ctx, zero); err != nil || !b.Finished() || b.Puzzle != p8 || b.Mode != "optimal" {
		t.Errorf("empty batch: %+v, %v", b, err)
	}
	id := mustBatch(t, s, -1)
	if _, err := s.InsertResults(ctx, []job.Results{res(id, 0, 1, 2)}); err != nil {
		t.Fatal(err)
	}
	b, _ := s.BatchProgress(ctx, id)
	if b.Total != -1 || b.Finished() || b.Done != 2 {
		t.Errorf("unknown total: %+v", b)
	}
	if err := s.SetBatchTotal(ctx, id, 3); err != nil {
		t.Fatal(err)
	}
	if b, _ = s.BatchProgress(ctx, id); b.Total != 3 || b.Finished() {
		t.Errorf("total 3 with 2 done: %+v", b)
	}
	if _, err := s.InsertResults(ctx, []job.Results{res(id, 2, 3)}); err != nil {
		t.Fatal(err)
	}
	if b, _ = s.BatchProgress(ctx, id); !b.Finished() || b.Done != 3 {
		t.Errorf("complete: %+v", b)
	}
	id2 := mustBatch(t, s, -1)
	s.InsertResults(ctx, []job.Results{res(id2, 0, 1)})
	if err := s.SetBatchTotal(ctx, id2, 1); err != nil {
		t.Fatal(err)
	}
	if b, _ = s.BatchProgress(ctx, id2); !b.Finished() {
		t.Errorf("total set after the last row: %+v", b)
	}
	if err := s.SetBatchTotal(ctx, 987654, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetBatchTotal on missing batch: %v", err)
	}
	if _, err := s.BatchProgress(ctx, 987654); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("BatchProgress on missing batch: %v", err)
	}
	list, err := s.Batches(ctx, 2)
	if err != nil || len(list) != 2 || list[0].ID != id2 || list[1].ID != id {
		t.Errorf("Batches(2) = %+v, %v", list, err)
	}
	// Results for a batch never created are kept (no foreign key): losing
	// them would be worse than a batch without a header.
	if n, err := s.InsertResults(ctx, []job.Results{res(424242, 0, 1)}); err != nil || n != 1 {
		t.Errorf("orphan results: %d, %v", n, err)
	}
}

func TestRejected(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 10)
	good := res(id, 0, 1)
	for name, mod := range map[string]func(*job.Results){
		"version":    func(r *job.Results) { r.V = 99 },
		"batch":      func(r *job.Results) { r.BatchID = 0 },
		"seq":        func(r *job.Results) { r.FirstSeq = -1 },
		"status":     func(r *job.Results) { r.Results[0].Status = "done" },
		"nul":        func(r *job.Results) { r.Results[0].State = "1 2\x00" },
		"utf8":       func(r *job.Results) { r.Results[0].Moves = "\xff" },
		"length":     func(r *job.Results) { r.Results[0].Length = -3 },
		"no puzzle":  func(r *job.Results) { r.Puzzle, r.Results[0].Puzzle = "", "" },
		"lowerbound": func(r *job.Results) { r.Results[0].LowerBound = -1 },
	} {
		bad := res(id, 5, 1)
		mod(&bad)
		if err := store.ValidateResults(bad); !errors.Is(err, store.ErrRejected) {
			t.Errorf("%s: ValidateResults = %v, want ErrRejected", name, err)
		}
		if _, err := s.InsertResults(ctx, []job.Results{good, bad}); !errors.Is(err, store.ErrRejected) {
			t.Errorf("%s: InsertResults = %v, want ErrRejected", name, err)
		}
	}
	// Nothing of the refused batches was written.
	if b, _ := s.BatchProgress(ctx, id); b.Done != 0 {
		t.Errorf("rejected batches wrote rows: %+v", b)
	}
	if n, err := s.InsertResults(ctx, nil); n != 0 || err != nil {
		t.Errorf("empty insert: %d, %v", n, err)
	}
}

func TestExport(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 4)
	redelivered := res(id, 0, 0, 2)
	redelivered.Results[1].Attempts = 4 // made on the job's fourth delivery
	if _, err := s.InsertResults(ctx, []job.Results{res(id, 2, -1, -2), redelivered}); err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	if err := s.Export(ctx, id, &buf, store.FormatCSV); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || !reflect.DeepEqual(recs[0], store.SolutionColumns) {
		t.Fatalf("csv = %q", recs)
	}
	col := map[string]int{}
	for i, c := range recs[0] {
		col[c] = i
	}
	for i, r := range recs[1:] {
		if r[col["seq"]] != fmt.Sprint(i) {
			t.Errorf("row %d has seq %s: not in seq order", i, r[col["seq"]])
		}
	}
	if r := recs[1]; r[col["moves"]] != "" || r[col["length"]] != "0" || r[col["optimal"]] != "true" || r[col["status"]] != "solved" {
		t.Errorf("goal row = %q", r)
	}
	if r := recs[3]; r[col["moves"]] != "" || r[col["length"]] != "" || r[col["optimal"]] != "false" ||
		r[col["status"]] != "budget_exceeded" || r[col["error"]] != "node budget exhausted" || r[col["lower_bound"]] != "20" {
		t.Errorf("budget row = %q", r)
	}
	if r := recs[4]; r[col["length"]] != "30" || r[col["optimal"]] != "false" {
		t.Errorf("fast row = %q", r)
	}
	if _, err := time.Parse(time.RFC3339Nano, recs[1][col["solved_at"]]); err != nil {
		t.Errorf("solved_at: %v", err)
	}
	if a1, a2 := recs[1][col["attempts"]], recs[2][col["attempts"]]; a1 != "1" || a2 != "4" {
		t.Errorf("attempts %s and %s, want 1 (first delivery) and 4", a1, a2)
	}

	buf.Reset()
	if err := s.Export(ctx, id, &buf, store.FormatJSONL); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("jsonl has %d lines", len(lines))
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if len(m) != len(store.SolutionColumns) {
			t.Errorf("line %d keys %v", i, m)
		}
		for _, c := range store.SolutionColumns {
			if _, ok := m[c]; !ok {
				t.Errorf("line %d lacks %s", i, c)
			}
		}
		if m["seq"] != float64(i) {
			t.Errorf("line %d seq %v", i, m["seq"])
		}
	}
	var budget store.Solution
	json.Unmarshal([]byte(lines[2]), &budget)
	if budget.Moves != nil || budget.Length != nil || budget.Status != "budget_exceeded" || budget.Error == nil {
		t.Errorf("budget row %+v", budget)
	}
	var solved store.Solution
	json.Unmarshal([]byte(lines[1]), &solved)
	if solved.Moves == nil || *solved.Moves != "R R" || solved.Length == nil || *solved.Length != 2 || solved.Error != nil {
		t.Errorf("solved row %+v", solved)
	}

	if err := s.Export(ctx, 987654, &buf, store.FormatCSV); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing batch: %v", err)
	}
	if err := s.Export(ctx, id, &buf, "xml"); !errors.Is(err, store.ErrFormat) {
		t.Errorf("xml: %v", err)
	}
	empty := mustBatch(t, s, 1)
	buf.Reset()
	if err := s.Export(ctx, empty, &buf, store.FormatCSV); err != nil || strings.Count(buf.String(), "\n") != 1 {
		t.Errorf("empty batch: %q, %v", buf.String(), err)
	}
}

// Export by puzzle walks every batch of the puzzle in (batch, seq) order
// and filters by length and status; other puzzles never leak in.
func TestExportPuzzle(t *testing.T) {
	t.Parallel()
	s := storetest.NewStore(t)
	ctx := ctxT(t)
	a, b := mustBatch(t, s, 3), mustBatch(t, s, 2)
	other, err := s.CreateBatch(ctx, "15", "optimal", 1)
	if err != nil {
		t.Fatal(err)
	}
	o := res(other, 0, 4)
	o.Puzzle, o.Results[0].Puzzle = "sliding:4x4", "sliding:4x4"
	if _, err := s.InsertResults(ctx, []job.Results{res(b, 0, 2, -1), res(a, 0, 2, 4, -2), o}); err != nil {
		t.Fatal(err)
	}
	keys := func(q store.ExportQuery) []string {
		t.Helper()
		var buf bytes.Buffer
		if err := s.ExportRows(ctx, q, &buf, store.FormatCSV); err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		recs, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs[1:] {
			out = append(out, r[0]+"/"+r[1]+":"+r[11])
		}
		return out
	}
	two := 2
	k := func(batch int64, seq int, status string) string { return fmt.Sprintf("%d/%d:%s", batch, seq, status) }
	for _, c := range []struct {
		q    store.ExportQuery
		want []string
	}{
		{store.ExportQuery{Puzzle: "8"}, []string{k(a, 0, "solved"), k(a, 1, "solved"), k(a, 2, "solved"), k(b, 0, "solved"), k(b, 1, "budget_exceeded")}},
		{store.ExportQuery{Puzzle: "sliding:3x3", Length: &two}, []string{k(a, 0, "solved"), k(b, 0, "solved")}},
		{store.ExportQuery{Puzzle: "8", Statuses: []string{"budget_exceeded", "failed"}}, []string{k(b, 1, "budget_exceeded")}},
		{store.ExportQuery{Batch: a, Length: &two}, []string{k(a, 0, "solved")}},
		{store.ExportQuery{Puzzle: "8", Statuses: []string{"invalid"}}, nil},
	} {
		if got := keys(c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: rows %q, want %q", c.q, got, c.want)
		}
	}
	if err := s.ExportRows(ctx, store.ExportQuery{Puzzle: "sliding:5x5"}, io.Discard, store.FormatJSONL); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("puzzle without batches: %v", err)
	}
}

func TestExportQuoting(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 1)
	msg := res(id, 0, 1)
	msg.Results[0].State = "a,\"b\"\nc"
	if _, err := s.InsertResults(ctx, []job.Results{msg}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Export(ctx, id, &buf, store.FormatCSV); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != 2 || recs[1][3] != msg.Results[0].State {
		t.Fatalf("round trip: %q, %v", recs, err)
	}
}

func TestScrambles(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 6)
	if _, err := s.InsertResults(ctx, []job.Results{res(id, 0, 4, 5, 4, -2, -1, 4)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ServeScrambles(ctx, store.ScrambleQuery{Puzzle: "8", Length: 4, Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Seq != 0 || got[1].Seq != 2 || *got[0].Length != 4 || !got[0].Optimal {
		t.Errorf("scrambles = %+v", got)
	}
	if got, _ := s.ServeScrambles(ctx, store.ScrambleQuery{Puzzle: "8", Length: 30, Count: 10}); len(got) != 0 {
		t.Errorf("non-optimal rows returned: %+v", got)
	}
	// A second batch stores seq 0's state again: it is served once.
	id2 := mustBatch(t, s, 1)
	if _, err := s.InsertResults(ctx, []job.Results{res(id2, 0, 4)}); err != nil {
		t.Fatal(err)
	}
	all, _ := s.ServeScrambles(ctx, store.ScrambleQuery{Puzzle: "8", Length: 4, Count: 10})
	if len(all) != 3 {
		t.Errorf("distinct scrambles = %d rows, want 3 (states 0, 2, 5)", len(all))
	}
	// The cursor continues after the last row of a page.
	page2, _ := s.ServeScrambles(ctx, store.ScrambleQuery{Puzzle: "8", Length: 4, Count: 10, AfterBatch: id, AfterSeq: 2})
	if len(page2) != 1 || page2[0].Seq != 5 {
		t.Errorf("page 2 = %+v", page2)
	}
	// A client never gets a state twice; another client does get it.
	for i, want := range []int{2, 1, 0} {
		got, err := s.ServeScrambles(ctx, store.ScrambleQuery{Puzzle: "8", Length: 4, Count: 2, Client: "gen-a"})
		if err != nil || len(got) != want {
			t.Fatalf("client request %d: %d rows, want %d (%v)", i, len(got), want, err)
		}
	}
	if got, _ := s.ServeScrambles(ctx, store.ScrambleQuery{Puzzle: "8", Length: 4, Count: 5, Client: "gen-b"}); len(got) != 3 {
		t.Errorf("second client: %d rows, want 3", len(got))
	}
	// Difficulty: the proof's node count (every row here took 10 nodes).
	if got, _ := s.ServeScrambles(ctx, store.ScrambleQuery{Puzzle: "8", Length: 4, Count: 5, MinNodes: 11}); len(got) != 0 {
		t.Errorf("min_nodes 11: %d rows", len(got))
	}
	if got, _ := s.ServeScrambles(ctx, store.ScrambleQuery{Puzzle: "8", Length: 4, Count: 5, MaxNodes: 10}); len(got) != 3 {
		t.Errorf("max_nodes 10: %d rows", len(got))
	}
}

func TestParseFormat(t *testing.T) {
	for _, ok := range []string{"csv", "jsonl"} {
		if f, err := store.ParseFormat(ok); err != nil || string(f) != ok {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if _, err := store.ParseFormat("json"); !errors.Is(err, store.ErrFormat) {
		t.Errorf("json: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := store.Open(context.Background(), ""); !errors.Is(err, store.ErrNoDatabase) {
		t.Errorf("empty URL: %v", err)
	}
	if _, err := store.Open(context.Background(), "postgres://x:y@h:notaport/db"); err == nil {
		t.Error("bad URL accepted")
	}
	// A server that is not there: Open succeeds (lazy), the first use fails.
	s, err := store.Open(context.Background(), "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(ctxT(t)); err == nil {
		t.Error("ping of a closed port succeeded")
	}
	if v, err := store.ResolveURL(context.Background(), "postgres://given"); err != nil || v != "postgres://given" {
		t.Errorf("ResolveURL kept %q, %v", v, err)
	}
}

// Connections survive a server-side disconnect: the pool drops the broken
// connection and the next call reconnects.
func TestReconnect(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 2)
	if _, err := s.InsertResults(ctx, []job.Results{res(id, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	// Kill s's idle connections from another one.
	admin := storetest.NewStore(t)
	pids := s.IdlePIDs()
	if len(pids) == 0 {
		t.Fatal("no idle connection")
	}
	for _, pid := range pids {
		if err := admin.Exec(ctx, "SELECT pg_terminate_backend($1)", int64(pid)); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ { // the first call may hit the dead connection
		if _, err = s.InsertResults(ctx, []job.Results{res(id, 1, 2)}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	checkBatch(t, s, id, map[int]int64{1: 1, 2: 1}, 2, 0, 2, true)
}

// A requeued state's better answer replaces its row and moves the counts
// with it; a worse or equal one changes nothing, however often delivered.
func TestReplaceOnlyBetter(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 3)
	// Budget exceeded, a non-optimal 30, an optimal 5.
	if _, err := s.InsertResults(ctx, []job.Results{res(id, 0, -1, -2, 5)}); err != nil {
		t.Fatal(err)
	}
	checkBatch(t, s, id, map[int]int64{5: 1}, 2, 1, 3, true)
	replace := func(seq int64, lengths ...int) job.Results {
		r := res(id, seq, lengths...)
		r.JobID, r.Replace = fmt.Sprintf("%d-%d-r1", id, seq), true
		return r
	}
	// The requeue solves the first two optimally (12 and 9) and the third
	// only as budget_exceeded: the first two improve, the third is kept.
	for range 2 { // a redelivery changes nothing more
		if _, err := s.InsertResults(ctx, []job.Results{replace(0, 12, 9, -1)}); err != nil {
			t.Fatal(err)
		}
		checkBatch(t, s, id, map[int]int64{5: 1, 9: 1, 12: 1}, 3, 0, 3, true)
	}
	// A longer optimal answer cannot happen; a non-optimal one replaces
	// nothing proved optimal.
	if _, err := s.InsertResults(ctx, []job.Results{replace(0, -2)}); err != nil {
		t.Fatal(err)
	}
	checkBatch(t, s, id, map[int]int64{5: 1, 9: 1, 12: 1}, 3, 0, 3, true)
	// A shorter optimal one (another goal, or a wrong proof before) moves
	// the count: this upserted -1 at length 12 and was refused by its CHECK.
	if _, err := s.InsertResults(ctx, []job.Results{replace(0, 10)}); err != nil {
		t.Fatal(err)
	}
	checkBatch(t, s, id, map[int]int64{5: 1, 9: 1, 10: 1}, 3, 0, 3, true)
	if d, err := s.PuzzleDistribution(ctx, "8"); err != nil || !reflect.DeepEqual(counts(d), map[int]int64{5: 1, 9: 1, 10: 1}) {
		t.Errorf("puzzle distribution %v, %v", counts(d), err)
	}
	// Replacing a row that was never stored inserts it.
	b2 := mustBatch(t, s, 1)
	r := res(b2, 0, 7)
	r.Replace = true
	if n, err := s.InsertResults(ctx, []job.Results{r}); err != nil || n != 1 {
		t.Fatalf("replace of a missing row: %d, %v", n, err)
	}
	checkBatch(t, s, b2, map[int]int64{7: 1}, 1, 0, 1, true)
}

// Two jobs covering the same sequence numbers: the second state is not a
// redelivery and must not vanish in ON CONFLICT DO NOTHING; it is kept as
// a collision dead letter, once however often it is delivered. A true
// redelivery (same state) stays a silent no-op.
func TestCollisionsDeadLettered(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 2)
	first := res(id, 0, 3, 4)
	if _, err := s.InsertResults(ctx, []job.Results{first}); err != nil {
		t.Fatal(err)
	}
	other := res(id, 1, 7)
	other.Results[0].State = "another state"
	for range 2 {
		rep, err := s.InsertResultsReport(ctx, []job.Results{first, other})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Inserted != 0 {
			t.Errorf("report %+v", rep)
		}
	}
	ls, err := s.DeadLetters(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 1 || ls[0].Source != store.DeadCollision || *ls[0].Seq != 1 || !strings.Contains(ls[0].Reason, "another state") ||
		!strings.Contains(string(ls[0].Payload), `"state": "another state"`) && !strings.Contains(string(ls[0].Payload), `"state" : "another state"`) {
		t.Fatalf("dead letters %+v", ls)
	}
	checkBatch(t, s, id, map[int]int64{3: 1, 4: 1}, 2, 0, 2, true)
	if all, _ := s.DeadLetters(ctx, 0, 0); len(all) != 1 {
		t.Errorf("all letters %d", len(all))
	}
}

func TestAddDeadLettersIdempotent(t *testing.T) {
	t.Parallel()
	s := storetest.NewStore(t)
	ctx := ctxT(t)
	b := int64(7)
	l := store.DeadLetter{BatchID: &b, Source: store.DeadResults, Reason: "bad\x00reason", Payload: []byte{0, 0xff}, Key: "k"}
	for want := 1; want >= 0; want-- {
		n, err := s.AddDeadLetters(ctx, []store.DeadLetter{l})
		if err != nil || n != want {
			t.Fatalf("n %d err %v, want %d", n, err, want)
		}
	}
	ls, _ := s.DeadLetters(ctx, 7, 0)
	if len(ls) != 1 || ls[0].Seq != nil || string(ls[0].Payload) != "\x00\xff" || ls[0].Reason != "bad\uFFFDreason" {
		t.Fatalf("%+v", ls)
	}
}

// writeRedelivered delivers each of msgs 1..3 times, shuffled and cut into
// batches of up to maxBatch, to s from 3 concurrent writers that retry as
// ingest does, and returns the rows inserted; a deadlock fails the test.
func writeRedelivered(t *testing.T, ctx context.Context, s *store.Store, rng *rand.Rand, msgs []job.Results, maxBatch int) int {
	t.Helper()
	var deliveries []job.Results
	for _, m := range msgs {
		for k := rng.IntN(3); k >= 0; k-- {
			deliveries = append(deliveries, m)
		}
	}
	rng.Shuffle(len(deliveries), func(i, j int) { deliveries[i], deliveries[j] = deliveries[j], deliveries[i] })
	var batches [][]job.Results
	for len(deliveries) > 0 {
		k := min(1+rng.IntN(maxBatch), len(deliveries))
		batches = append(batches, deliveries[:k])
		deliveries = deliveries[k:]
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		inserted int
		next     int
	)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next == len(batches) {
					mu.Unlock()
					return
				}
				b := batches[next]
				next++
				mu.Unlock()
				for attempt := 0; ; attempt++ {
					n, err := s.InsertResults(ctx, b)
					if err == nil {
						mu.Lock()
						inserted += n
						mu.Unlock()
						break
					}
					if errors.Is(err, store.ErrRejected) || isDeadlock(err) || attempt == 20 {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return inserted
}

// isDeadlock reports PostgreSQL's deadlock_detected (40P01): writers take
// their locks in one order (results.go, lockBatches), so concurrent
// writers wait for each other and never deadlock; the retries above are
// for what a writer does retry (a lost connection, a restart).
func isDeadlock(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "40P01"
}
