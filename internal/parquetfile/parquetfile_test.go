package parquetfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tessera-solver/tessera/internal/parquetfile"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

func ptr[T any](v T) *T { return &v }

// everyKind is a row of every status, with the shapes each status takes:
// a goal state's empty (not null) move string, unsolved rows without
// moves or length, bounds and nodes kept by unsolved rows, errors with
// quotes and a newline, microsecond timestamps.
func everyKind() []store.Solution {
	at := time.Date(2026, 11, 28, 12, 0, 0, 123456000, time.UTC)
	rows := []store.Solution{
		{Status: "solved", Moves: ptr("R D L U"), Length: ptr(4), Optimal: true, LowerBound: 4, Nodes: 812, SolveMS: 0.25,
			Solver: "ida*(pdb-7-8+reflect)"},
		{Status: "solved", Moves: ptr(""), Length: ptr(0), Optimal: true, Nodes: 1, Solver: "ida*(pdb-7-8+reflect)"},
		{Puzzle: "loopover:5x5", State: "2 1 3 4 5/6 7 8 9 10/11 12 13 14 15/16 17 18 19 20/21 22 23 24 25",
			Status: "solved", Moves: ptr("1R 1L 2D"), Length: ptr(3), Optimal: false, LowerBound: 1, Nodes: 90210,
			SolveMS: 301.5, Solver: "two-phase(loopover-5x5-p7)"},
		{Status: "budget_exceeded", LowerBound: 46, Nodes: 1 << 40, SolveMS: 60000, Solver: "ida*(pdb-7-8+reflect)",
			Error: ptr("node budget exhausted")},
		{Status: "failed", Solver: "", Error: ptr("delivered 5 times: \"solver crashed\"\nsee dead letters"), Attempts: 5},
		{State: "1 2 3", Status: "invalid", Error: ptr("state: want 16 cells, got 3")},
		{State: "2 1 3 4/5 6 7 8/9 10 11 12/13 14 15 0", Status: "unsolvable", Error: ptr("odd permutation: not reachable")},
		{Status: "cancelled", LowerBound: 38, Nodes: 123456789, SolveMS: 1234.567, Solver: "ida*(pdb-7-8+reflect)",
			Error: ptr("batch cancelled")},
	}
	for i := range rows {
		r := &rows[i]
		r.BatchID, r.Seq = 7, int64(i)
		if r.Puzzle == "" {
			r.Puzzle = "sliding:4x4"
		}
		if r.State == "" {
			r.State = fmt.Sprintf("1 2 3 4/5 6 7 8/9 10 11 12/13 14 %d 0", 15+i)
		}
		if r.Attempts == 0 {
			r.Attempts = 1
		}
		r.SolvedAt = at.Add(time.Duration(i) * time.Millisecond)
	}
	return rows
}

// The test's rows cover every status there is.
func TestEveryKindHasEveryStatus(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range everyKind() {
		seen[r.Status] = true
	}
	for _, s := range result.Statuses() {
		if !seen[string(s)] {
			t.Errorf("no row of status %s", s)
		}
	}
}

func write(t *testing.T, rows []store.Solution, group int, m parquetfile.Meta) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := parquetfile.NewWriter(&buf, group, m)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if err := w.Write(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Rows() != int64(len(rows)) {
		t.Errorf("Rows() = %d, want %d", w.Rows(), len(rows))
	}
	return buf.Bytes()
}

func open(t *testing.T, b []byte) *parquet.File {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("open the file written: %v", err)
	}
	return f
}

// The schema is the contract readers (DuckDB, pandas) see: names, physical
// and logical types, and which columns may be null.
const wantSchema = `message Row {
	required int64 batch_id (INT(64,true));
	required int64 seq (INT(64,true));
	required binary puzzle (STRING);
	required binary state (STRING);
	optional binary moves (STRING);
	optional int32 length (INT(32,true));
	required boolean optimal;
	required int32 lower_bound (INT(32,true));
	required int64 nodes (INT(64,true));
	required double solve_ms;
	required binary solver (STRING);
	required binary status (ENUM);
	optional binary error (STRING);
	required int64 solved_at (TIMESTAMP(isAdjustedToUTC=true,unit=MICROS));
	required int32 attempts (INT(32,true));
}`

// Every column of every row reads back as written, nulls as nulls, with
// the metadata, in row groups of the configured size.
func TestRoundTrip(t *testing.T) {
	rows := everyKind()
	created := time.Date(2026, 11, 28, 13, 14, 15, 0, time.FixedZone("CET", 3600))
	m := parquetfile.Meta{Puzzle: "sliding:4x4", Version: "(devel) a7ebc78f01b2", Batch: 7, Filters: "status=solved,failed", Created: created}
	b := write(t, rows, 3, m)
	f := open(t, b)

	if got := strings.TrimSpace(f.Schema().String()); got != wantSchema {
		t.Errorf("schema:\n%s\nwant\n%s", got, wantSchema)
	}
	var groups []int64
	for _, g := range f.RowGroups() {
		groups = append(groups, g.NumRows())
	}
	if !reflect.DeepEqual(groups, []int64{3, 3, 2}) || f.NumRows() != 8 {
		t.Errorf("row groups %v (%d rows), want [3 3 2]", groups, f.NumRows())
	}
	for _, c := range f.Metadata().RowGroups[0].Columns {
		if c.MetaData.Codec.String() != "ZSTD" {
			t.Errorf("column %v: codec %s, want ZSTD", c.MetaData.PathInSchema, c.MetaData.Codec)
		}
	}
	wantMeta := map[string]string{
		parquetfile.KeyPuzzle: "sliding:4x4", parquetfile.KeyVersion: "(devel) a7ebc78f01b2", parquetfile.KeyBatch: "7",
		parquetfile.KeyFilters: "status=solved,failed", parquetfile.KeyCreated: "2026-11-28T12:14:15Z", parquetfile.KeyRows: "8",
	}
	for k, want := range wantMeta {
		if got, ok := f.Lookup(k); !ok || got != want {
			t.Errorf("metadata %s = %q (%v), want %q", k, got, ok, want)
		}
	}
	if !strings.HasPrefix(f.Metadata().CreatedBy, "tessera version (devel) a7ebc78f01b2") {
		t.Errorf("created_by %q", f.Metadata().CreatedBy)
	}

	got, err := parquet.Read[parquetfile.Row](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("read %d rows, want %d", len(got), len(rows))
	}
	for i, r := range got {
		s := rows[i]
		want := parquetfile.Row{BatchID: s.BatchID, Seq: s.Seq, Puzzle: s.Puzzle, State: s.State, Moves: s.Moves,
			Optimal: s.Optimal, LowerBound: int32(s.LowerBound), Nodes: s.Nodes, SolveMS: s.SolveMS, Solver: s.Solver,
			Status: s.Status, Error: s.Error, SolvedAt: s.SolvedAt, Attempts: int32(s.Attempts)}
		if s.Length != nil {
			want.Length = ptr(int32(*s.Length))
		}
		if !r.SolvedAt.Equal(want.SolvedAt) {
			t.Errorf("row %d: solved_at %v, want %v", i, r.SolvedAt, want.SolvedAt)
		}
		r.SolvedAt = want.SolvedAt // the location read back is the reader's
		if !reflect.DeepEqual(r, want) {
			t.Errorf("row %d:\n got %s\nwant %s", i, show(r), show(want))
		}
	}
}

func show(r parquetfile.Row) string {
	deref := func(p any) string {
		switch v := p.(type) {
		case *string:
			if v != nil {
				return fmt.Sprintf("%q", *v)
			}
		case *int32:
			if v != nil {
				return fmt.Sprint(*v)
			}
		}
		return "null"
	}
	return fmt.Sprintf("%+v moves=%s length=%s error=%s", r, deref(r.Moves), deref(r.Length), deref(r.Error))
}

// A query by puzzle has no batch; an export without rows is still a
// file, with its schema and metadata.
func TestEmptyFile(t *testing.T) {
	b := write(t, nil, 10, parquetfile.Meta{Puzzle: "sliding:3x3", Created: time.Now()})
	f := open(t, b)
	if f.NumRows() != 0 || len(f.RowGroups()) != 0 {
		t.Errorf("%d rows in %d row groups, want none", f.NumRows(), len(f.RowGroups()))
	}
	for k, want := range map[string]string{parquetfile.KeyBatch: "", parquetfile.KeyRows: "0", parquetfile.KeyPuzzle: "sliding:3x3"} {
		if got, _ := f.Lookup(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// countingWriter records how many bytes have reached it.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// Each row group leaves the writer when its last row is written, before
// Close: what the writer holds is one row group, whatever the rows. (A
// writer that held the whole file would pass the size check below but
// not this.)
func TestRowGroupsLeaveAsTheyFill(t *testing.T) {
	const group, groups = 4000, 5
	var out countingWriter
	w, err := parquetfile.NewWriter(&out, group, parquetfile.Meta{Puzzle: "sliding:4x4"})
	if err != nil {
		t.Fatal(err)
	}
	s := everyKind()[0]
	rng := rand.New(rand.NewPCG(1, 2))
	before := 0
	for i := range group * groups {
		s.Seq = int64(i)
		s.State = fmt.Sprintf("%016x%016x", rng.Uint64(), rng.Uint64()) // 16 bytes of entropy a row: not compressed away
		if err := w.Write(&s); err != nil {
			t.Fatal(err)
		}
		if (i+1)%group == 0 {
			// A row group of 4000 rows holds 64 KB of entropy, well over
			// the library's 32 KiB write buffer: most of it must be out.
			if out.n-before < 32<<10 {
				t.Fatalf("after row group %d: %d bytes written since the previous one, want the row group", (i+1)/group, out.n-before)
			}
			before = out.n
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// Row group sizes: the configured count exactly, the last one the rest.
func TestRowGroupSizes(t *testing.T) {
	rows := make([]store.Solution, 0, 10)
	for range 10 {
		rows = append(rows, everyKind()...)
	}
	for _, tc := range []struct {
		group int
		want  []int64
	}{
		{1, []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{30, []int64{30, 30, 20}},
		{40, []int64{40, 40}},
		{512, []int64{80}},
		{1000, []int64{80}},
	} {
		f := open(t, write(t, rows, tc.group, parquetfile.Meta{}))
		var got []int64
		for _, g := range f.RowGroups() {
			got = append(got, g.NumRows())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("row group of %d: sizes %v, want %v", tc.group, got, tc.want)
		}
	}
}

func TestRowGroupOutOfRange(t *testing.T) {
	for _, n := range []int{0, -1, parquetfile.MaxRowGroupRows + 1} {
		if _, err := parquetfile.NewWriter(&bytes.Buffer{}, n, parquetfile.Meta{}); !errors.Is(err, parquetfile.ErrRowGroup) {
			t.Errorf("row group of %d: %v, want ErrRowGroup", n, err)
		}
	}
}
