package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/parquetfile"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// everyStatus is a 15-puzzle batch's results with a row of every status,
// as the solvers make them.
func everyStatus(batch int64) job.Results {
	const solver = "ida*(pdb-7-8+reflect)"
	rs := []result.Result{
		{Status: result.StatusSolved, Moves: "R D L U", Length: 4, Optimal: true, LowerBound: 4, Nodes: 812, ElapsedMS: 0.25, Solver: solver},
		{Status: result.StatusSolved, Moves: "", Length: 0, Optimal: true, Nodes: 1, Solver: solver}, // the goal
		{Status: result.StatusSolved, Moves: "L L U R D", Length: 5, LowerBound: 3, Nodes: 90210, ElapsedMS: 301.5, Solver: "wida*(1.5)"},
		{Status: result.StatusBudgetExceeded, LowerBound: 46, Nodes: 1 << 40, ElapsedMS: 60000, Solver: solver, Error: "node budget exhausted"},
		{Status: result.StatusFailed, Error: "delivered 5 times: \"solver crashed\"\nsee dead letters", Attempts: 5},
		{Status: result.StatusInvalid, Error: "state: want 16 cells, got 3"},
		{Status: result.StatusUnsolvable, Error: "odd permutation: not reachable"},
		{Status: result.StatusCancelled, LowerBound: 38, Nodes: 123456789, ElapsedMS: 1234.567, Solver: solver, Error: "batch cancelled"},
	}
	for i := range rs {
		rs[i].Puzzle, rs[i].State = "sliding:4x4", fmt.Sprintf("1 2 3 4/5 6 7 8/9 10 11 12/13 14 %d 0", 15+i)
	}
	return job.Results{V: job.Version, JobID: fmt.Sprintf("%d-0", batch), BatchID: batch, Puzzle: "sliding:4x4", Results: rs}
}

// readParquet opens a file the export wrote and reads every row with the
// library.
func readParquet(t *testing.T, b []byte) (*parquet.File, []parquetfile.Row) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("open the export: %v", err)
	}
	rows, err := parquet.Read[parquetfile.Row](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("read the export: %v", err)
	}
	return f, rows
}

// The Parquet export of a batch with a row of every status holds every
// column of every row as the store has it (nulls as nulls), in row groups
// of results.export_row_group, with its metadata; filters and stdout work
// as for CSV; a missing batch leaves no file.
func TestExportParquet(t *testing.T) {
	isolate(t)
	u := storetest.SchemaURL(t)
	ctx := context.Background()
	db := "--database-url=" + u
	if code, _, e := cli(t, ctx, "migrate", db); code != 0 {
		t.Fatalf("migrate: %s", e)
	}
	st, err := store.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	id, err := st.CreateBatch(ctx, "15", "optimal", 8)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.InsertResults(ctx, []job.Results{everyStatus(id)}); err != nil {
		t.Fatal(err)
	}
	// What each row must hold, from the results stored (not from the
	// writer's own conversion); solved_at is the store's.
	var want []parquetfile.Row
	for i, r := range everyStatus(id).Results {
		w := parquetfile.Row{BatchID: id, Seq: int64(i), Puzzle: r.Puzzle, State: r.State, Optimal: r.Optimal,
			LowerBound: int32(r.LowerBound), Nodes: r.Nodes, SolveMS: r.ElapsedMS, Solver: r.Solver, Status: string(r.Status),
			Attempts: int32(max(r.Attempts, 1))}
		if r.Status == result.StatusSolved {
			w.Moves, w.Length = &r.Moves, new(int32(r.Length))
		}
		if r.Error != "" {
			w.Error = &r.Error
		}
		want = append(want, w)
	}
	if err := st.EachSolution(ctx, store.ExportQuery{Batch: id}, func(s *store.Solution) error {
		want[s.Seq].SolvedAt = s.SolvedAt
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	before := time.Now().UTC().Truncate(time.Second)
	file := filepath.Join(t.TempDir(), "rows.parquet")
	if code, out, e := cli(t, ctx, "export", "--batch", fmt.Sprint(id), "--format", "parquet", "-o", file, "--export-row-group", "3", db); code != 0 || out != "" {
		t.Fatalf("export parquet: exit %d %q %s", code, out, e)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, got := readParquet(t, b)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if !got[i].SolvedAt.Equal(want[i].SolvedAt) {
			t.Errorf("row %d: solved_at %v, want %v", i, got[i].SolvedAt, want[i].SolvedAt)
		}
		got[i].SolvedAt = want[i].SolvedAt
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	var groups []int64
	for _, g := range f.RowGroups() {
		groups = append(groups, g.NumRows())
	}
	if !reflect.DeepEqual(groups, []int64{3, 3, 2}) {
		t.Errorf("row groups %v, want [3 3 2] (results.export_row_group 3)", groups)
	}
	meta := func(k string) string { v, _ := f.Lookup(k); return v }
	if meta(parquetfile.KeyPuzzle) != "sliding:4x4" || meta(parquetfile.KeyBatch) != fmt.Sprint(id) ||
		meta(parquetfile.KeyFilters) != "" || meta(parquetfile.KeyRows) != "8" || meta(parquetfile.KeyVersion) == "" {
		t.Errorf("metadata %v", f.Metadata().KeyValueMetadata)
	}
	if c, err := time.Parse(time.RFC3339, meta(parquetfile.KeyCreated)); err != nil || c.Before(before) || c.After(time.Now()) {
		t.Errorf("created %q (%v), want the time of the export", meta(parquetfile.KeyCreated), err)
	}

	// By puzzle, filtered, to stdout (not a terminal): the same rows, the
	// query in the metadata.
	code, out, e := cli(t, ctx, "export", "--puzzle", "15", "--status", "budget_exceeded,cancelled", "--format", "parquet", db)
	if code != 0 {
		t.Fatalf("export to stdout: exit %d %s", code, e)
	}
	f, got = readParquet(t, []byte(out))
	if len(got) != 2 || got[0].Seq != 3 || got[1].Seq != 7 || got[0].LowerBound != 46 || got[1].Status != "cancelled" {
		t.Errorf("filtered rows %+v", got)
	}
	if meta(parquetfile.KeyBatch) != "" || meta(parquetfile.KeyFilters) != "status=budget_exceeded,cancelled" || meta(parquetfile.KeyPuzzle) != "sliding:4x4" {
		t.Errorf("metadata of a puzzle export %v", f.Metadata().KeyValueMetadata)
	}
	code, out, _ = cli(t, ctx, "export", "--puzzle", "sliding:4x4", "--length", "5", "--format", "parquet", db)
	if f, got = readParquet(t, []byte(out)); code != 0 || len(got) != 1 || *got[0].Moves != "L L U R D" || meta(parquetfile.KeyFilters) != "length=5" {
		t.Errorf("--length 5: exit %d, rows %+v", code, got)
	}

	// A missing batch or puzzle fails before anything is written; a bad
	// row group size is a usage error.
	missing := filepath.Join(t.TempDir(), "missing.parquet")
	for _, tc := range []struct {
		code int
		args []string
	}{
		{1, []string{"--batch", "999999", "-o", missing}},
		{1, []string{"--puzzle", "24", "-o", missing}},
		{2, []string{"--batch", fmt.Sprint(id), "--export-row-group", "0", "-o", missing}},
		{2, []string{"--batch", fmt.Sprint(id), "--format", "avro", "-o", missing}},
	} {
		args := append(append([]string{"export", "--format", "parquet"}, tc.args...), db)
		if code, _, e := cli(t, ctx, args...); code != tc.code {
			t.Errorf("%v: exit %d (%s), want %d", tc.args, code, e, tc.code)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s: %v", missing, err)
	}
	if code, out, _ := cli(t, ctx, "export", "--batch", "999999", "--format", "parquet", db); code != 1 || out != "" {
		t.Errorf("missing batch to stdout: exit %d, %d bytes written", code, len(out))
	}
	if code, out, _ := cli(t, ctx, "export", "--help"); code != 0 || !strings.Contains(out, "--export-row-group") || !strings.Contains(out, "parquet") {
		t.Errorf("export --help offers no --export-row-group or parquet:\n%s", out)
	}
}
