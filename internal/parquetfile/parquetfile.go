// Package parquetfile is the Parquet adapter: it writes solutions rows as
// one Parquet file with typed columns, through github.com/parquet-go/parquet-go
// (the only package that imports it). Rows stream in: the file is written
// one row group at a time, so what a writer holds is bounded by the row
// group's size whatever the number of rows.
package parquetfile

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tessera-solver/tessera/internal/store"
)

// Row is one row of the file: the columns of store.SolutionColumns, in
// that order and under those names. Absent values (moves and length of an
// unsolved row, an empty error) are nulls of optional columns.
//
// Encodings are chosen per column for size: the ids ascend (delta), the
// few distinct puzzles, solvers, statuses and small integers repeat
// (dictionary), the float's bytes are split by significance so zstd finds
// their runs.
type Row struct {
	BatchID    int64     `parquet:"batch_id,delta"`
	Seq        int64     `parquet:"seq,delta"`
	Puzzle     string    `parquet:"puzzle,dict"`
	State      string    `parquet:"state"`
	Moves      *string   `parquet:"moves"`
	Length     *int32    `parquet:"length,dict"`
	Optimal    bool      `parquet:"optimal"`
	LowerBound int32     `parquet:"lower_bound,dict"`
	Nodes      int64     `parquet:"nodes"`
	SolveMS    float64   `parquet:"solve_ms,split"`
	Solver     string    `parquet:"solver,dict"`
	Status     string    `parquet:"status,enum,dict"`
	Error      *string   `parquet:"error"`
	SolvedAt   time.Time `parquet:"solved_at,timestamp(microsecond),delta"`
	Attempts   int32     `parquet:"attempts,dict"`
}

// FromSolution is the row of s. Its strings are shared, not copied (Go
// strings are immutable).
func FromSolution(s *store.Solution) Row {
	r := Row{
		BatchID: s.BatchID, Seq: s.Seq, Puzzle: s.Puzzle, State: s.State, Moves: s.Moves,
		Optimal: s.Optimal, LowerBound: int32(s.LowerBound), Nodes: s.Nodes, SolveMS: s.SolveMS,
		Solver: s.Solver, Status: s.Status, Error: s.Error, SolvedAt: s.SolvedAt, Attempts: int32(s.Attempts),
	}
	if s.Length != nil {
		n := int32(*s.Length) // a PostgreSQL integer
		r.Length = &n
	}
	return r
}

// Key-value metadata keys of a file.
const (
	KeyPuzzle  = "tessera.puzzle"  // puzzle spec of the rows, e.g. sliding:4x4
	KeyVersion = "tessera.version" // the writing binary's version (version.Short)
	KeyBatch   = "tessera.batch"   // the batch exported; "" for every batch of the puzzle
	KeyFilters = "tessera.filters" // e.g. "length=50 status=solved"; "" for none
	KeyCreated = "tessera.created" // when the file was written, RFC 3339 UTC
	KeyRows    = "tessera.rows"    // rows in the file
)

// Meta is what a file says about itself, in its key-value metadata.
type Meta struct {
	Puzzle  string
	Version string
	Batch   int64 // 0: every batch of Puzzle
	Filters string
	Created time.Time
}

// DefaultRowGroupRows is the rows of a row group unless configured
// (results.export_row_group): large enough for analytic readers (DuckDB
// and Arrow read a row group per thread), about 6 MB of 15-puzzle rows
// compressed; exporting them peaked at 17 MB of live heap
// (docs/BENCHMARKS.md "Exports").
const DefaultRowGroupRows = 131072

// MaxRowGroupRows bounds the configured row group: a writer holds a
// whole row group, compressed (about 47 bytes a 15-puzzle row, more for
// long move strings).
const MaxRowGroupRows = 1 << 24

// ErrRowGroup: a row group size out of 1..MaxRowGroupRows.
var ErrRowGroup = errors.New("row group size out of range")

// writeChunk is how many rows go to the library at once: its Write takes
// a slice, and a few hundred rows amortise its per-call work.
const writeChunk = 512

// Writer writes a Parquet file of Rows to an io.Writer, front to back
// (no seek: stdout will do). It implements store.RowWriter.
type Writer struct {
	pw    *parquet.GenericWriter[Row]
	buf   []Row
	group int   // rows of the current row group, buffered or written
	size  int   // rows per row group
	rows  int64 // rows written
	done  bool
}

var _ store.RowWriter = (*Writer)(nil)

// NewWriter starts a file on out whose row groups hold rowGroupRows rows
// (the last one fewer), compressed with zstd, carrying m as its metadata.
func NewWriter(out io.Writer, rowGroupRows int, m Meta) (*Writer, error) {
	if rowGroupRows < 1 || rowGroupRows > MaxRowGroupRows {
		return nil, fmt.Errorf("%d rows per row group, want 1 to %d: %w", rowGroupRows, MaxRowGroupRows, ErrRowGroup)
	}
	batch := ""
	if m.Batch != 0 {
		batch = strconv.FormatInt(m.Batch, 10)
	}
	codec, err := newZstd()
	if err != nil {
		return nil, err
	}
	pw := parquet.NewGenericWriter[Row](out,
		parquet.Compression(codec),
		// A safety net: Write flushes at exactly this count itself.
		parquet.MaxRowsPerRowGroup(int64(rowGroupRows)),
		parquet.CreatedBy("tessera", m.Version, ""),
		parquet.KeyValueMetadata(KeyPuzzle, m.Puzzle),
		parquet.KeyValueMetadata(KeyVersion, m.Version),
		parquet.KeyValueMetadata(KeyBatch, batch),
		parquet.KeyValueMetadata(KeyFilters, m.Filters),
		parquet.KeyValueMetadata(KeyCreated, m.Created.UTC().Format(time.RFC3339)),
	)
	return &Writer{pw: pw, buf: make([]Row, 0, min(writeChunk, rowGroupRows)), size: rowGroupRows}, nil
}

// Write adds the row of s; every rowGroupRows rows the row group is
// written out.
func (w *Writer) Write(s *store.Solution) error {
	if w.done {
		return errors.New("parquet: write after close")
	}
	w.buf = append(w.buf, FromSolution(s))
	w.group++
	w.rows++
	if len(w.buf) == cap(w.buf) || w.group == w.size {
		if err := w.drain(); err != nil {
			return err
		}
	}
	if w.group == w.size {
		if err := w.pw.Flush(); err != nil {
			return fmt.Errorf("parquet: row group: %w", err)
		}
		w.group = 0
	}
	return nil
}

// drain hands the buffered rows to the library, which copies them into
// its column buffers.
func (w *Writer) drain() error {
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.pw.Write(w.buf); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	clear(w.buf) // drop the strings for the collector
	w.buf = w.buf[:0]
	return nil
}

// Close writes the last row group and the footer (schema, row group
// index, metadata with the row count). It does not close out.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	if err := w.drain(); err != nil {
		return err
	}
	w.pw.SetKeyValueMetadata(KeyRows, strconv.FormatInt(w.rows, 10))
	if err := w.pw.Close(); err != nil {
		return fmt.Errorf("parquet: close: %w", err)
	}
	return nil
}
