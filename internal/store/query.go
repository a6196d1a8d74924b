package store

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// LengthCount is one bar of a distance histogram.
type LengthCount struct {
	Length int   `json:"length"`
	Count  int64 `json:"count"`
}

// Distribution is a histogram of optimal solution lengths.
type Distribution struct {
	Counts []LengthCount `json:"counts"` // ascending length, only lengths that occur
	Total  int64         `json:"total"`  // states counted; 0 means no optimal solution yet
	Mean   float64       `json:"mean"`
	Max    int           `json:"max"`
	// SD is the sample standard deviation of the lengths; CI95 the 95 %
	// confidence interval of the mean (normal approximation: mean ± 1.96
	// SD/√n), both meaningful for a uniform random sample.
	SD   float64    `json:"sd"`
	CI95 [2]float64 `json:"ci95"`
}

func newDistribution(counts []LengthCount) Distribution {
	d := Distribution{Counts: counts}
	var sum float64
	for _, c := range counts {
		d.Total += c.Count
		sum += float64(c.Length) * float64(c.Count)
		if c.Count > 0 && c.Length > d.Max {
			d.Max = c.Length
		}
	}
	if d.Total > 0 {
		d.Mean = sum / float64(d.Total)
	}
	if d.Total > 1 {
		var ss float64
		for _, c := range counts {
			dev := float64(c.Length) - d.Mean
			ss += dev * dev * float64(c.Count)
		}
		d.SD = math.Sqrt(ss / float64(d.Total-1))
		half := 1.96 * d.SD / math.Sqrt(float64(d.Total))
		d.CI95 = [2]float64{d.Mean - half, d.Mean + half}
	} else {
		d.CI95 = [2]float64{d.Mean, d.Mean}
	}
	return d
}

func (s *Store) distribution(ctx context.Context, what, query string, arg any) (Distribution, error) {
	var counts []LengthCount
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, query, arg)
		if err != nil {
			return err
		}
		counts, err = pgx.CollectRows(rows, pgx.RowToStructByPos[LengthCount])
		return err
	})
	if err != nil {
		return Distribution{}, fmt.Errorf("distribution of %s: %w", what, err)
	}
	return newDistribution(counts), nil
}

// BatchDistribution is the histogram of optimal lengths in one batch. A
// batch that does not exist is ErrNotFound; one without optimal rows yet
// has Total 0.
func (s *Store) BatchDistribution(ctx context.Context, batchID int64) (Distribution, error) {
	d, err := s.distribution(ctx, fmt.Sprintf("batch %d", batchID), `
		SELECT length, sum(count)::bigint FROM distance_counts
		WHERE batch_id = $1 GROUP BY length ORDER BY length`, batchID)
	if err != nil || d.Total > 0 {
		return d, err
	}
	if _, err := s.BatchProgress(ctx, batchID); err != nil {
		return Distribution{}, fmt.Errorf("distribution: %w", err)
	}
	return d, nil
}

// PuzzleDistribution is the histogram of the distinct states of a puzzle
// over every batch, each at its least proved-optimal length: a state
// solved in several batches counts once. It reads puzzle_counts, kept by
// the writer (states.go), so its cost does not grow with the rows stored.
func (s *Store) PuzzleDistribution(ctx context.Context, puzzleSpec string) (Distribution, error) {
	p := canonical(puzzleSpec)
	return s.distribution(ctx, p, `
		SELECT length, count FROM puzzle_counts
		WHERE puzzle = $1 AND count > 0 ORDER BY length`, p)
}

// canonical maps aliases ("8") to the stored spec text ("sliding:3x3").
func canonical(spec string) string {
	if sp, err := puzzle.ParseSpec(spec); err == nil {
		return sp.String()
	}
	return spec
}

// Solution is one row of solutions. Moves and Length are nil unless
// Status is solved; Error is nil when empty.
type Solution struct {
	BatchID    int64     `json:"batch_id"`
	Seq        int64     `json:"seq"`
	Puzzle     string    `json:"puzzle"`
	State      string    `json:"state"`
	Moves      *string   `json:"moves"`
	Length     *int      `json:"length"`
	Optimal    bool      `json:"optimal"`
	LowerBound int       `json:"lower_bound"`
	Nodes      int64     `json:"nodes"`
	SolveMS    float64   `json:"solve_ms"`
	Solver     string    `json:"solver"`
	Status     string    `json:"status"`
	Error      *string   `json:"error"`
	SolvedAt   time.Time `json:"solved_at"`
	// Attempts is the delivery of the job message that produced the row
	// (1: the first).
	Attempts int `json:"attempts"`
}

// SolutionColumns are the columns of solutions, in export order; they are
// the CSV header and the JSONL keys.
var SolutionColumns = []string{"batch_id", "seq", "puzzle", "state", "moves", "length", "optimal",
	"lower_bound", "nodes", "solve_ms", "solver", "status", "error", "solved_at", "attempts"}

const solutionSelect = `SELECT batch_id, seq, puzzle, state, moves, length, optimal,
	lower_bound, nodes, solve_ms, solver, status, error, solved_at, attempts FROM solutions `

func scanSolution(row pgx.Row, s *Solution) error {
	return row.Scan(&s.BatchID, &s.Seq, &s.Puzzle, &s.State, &s.Moves, &s.Length, &s.Optimal,
		&s.LowerBound, &s.Nodes, &s.SolveMS, &s.Solver, &s.Status, &s.Error, &s.SolvedAt, &s.Attempts)
}

// collectSolutions reads every row of a solutionSelect query, closing rows.
func collectSolutions(rows pgx.Rows) ([]Solution, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Solution, error) {
		var s Solution
		err := scanSolution(r, &s)
		return s, err
	})
}

// Format is an export format.
type Format string

const (
	FormatCSV   Format = "csv"   // RFC 4180, header row of SolutionColumns, NULL as empty
	FormatJSONL Format = "jsonl" // one JSON object per line, keys SolutionColumns, NULL as null
)

// ErrFormat: an export format other than csv or jsonl.
var ErrFormat = errors.New("unknown export format")

// ParseFormat reads "csv" or "jsonl".
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatCSV, FormatJSONL:
		return f, nil
	}
	return "", fmt.Errorf("format %q: want csv or jsonl: %w", s, ErrFormat)
}

// Export writes every solution of a batch to w in seq order, streaming (a
// batch of millions does not sit in memory). A batch with neither a batch
// row nor solutions is ErrNotFound.
func (s *Store) Export(ctx context.Context, batchID int64, w io.Writer, format Format) error {
	return s.ExportRows(ctx, ExportQuery{Batch: batchID}, w, format)
}

// ExportQuery selects the rows of an export: one batch, or every batch of
// a puzzle, optionally only rows of one optimal length or some statuses.
type ExportQuery struct {
	Batch  int64  // this batch (0: every batch of Puzzle)
	Puzzle string // any spec ParseSpec accepts; used when Batch is 0
	// Length keeps only rows of this solution length (nil: any). A
	// length filter keeps solved rows only: others have none.
	Length *int
	// Statuses keeps only rows with one of these statuses (empty: any).
	Statuses []string
}

func (q ExportQuery) String() string {
	if q.Batch != 0 {
		return fmt.Sprintf("batch %d", q.Batch)
	}
	return "puzzle " + canonical(q.Puzzle)
}

// Filters is q's length and status filters as text, e.g. "length=50
// status=solved,failed"; "" when q has none.
func (q ExportQuery) Filters() string {
	var f []string
	if q.Length != nil {
		f = append(f, "length="+strconv.Itoa(*q.Length))
	}
	if len(q.Statuses) > 0 {
		f = append(f, "status="+strings.Join(q.Statuses, ","))
	}
	return strings.Join(f, " ")
}

// ExportPuzzle is the puzzle spec of q's rows as stored ("15" is
// "sliding:4x4"): its batch's, or its puzzle's. A missing batch, or a
// puzzle without any batch, is ErrNotFound, as for the export itself.
func (s *Store) ExportPuzzle(ctx context.Context, q ExportQuery) (string, error) {
	if q.Batch != 0 {
		b, err := s.BatchProgress(ctx, q.Batch)
		if err != nil {
			return "", fmt.Errorf("export: %w", err)
		}
		return b.Puzzle, nil
	}
	if err := s.exportExists(ctx, q); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	return canonical(q.Puzzle), nil
}

// ExportRows writes the rows q selects to w, in (batch, seq) order,
// streaming. A missing batch, or a puzzle without any batch, is
// ErrNotFound; filters that match nothing give an empty export (a CSV
// header only).
func (s *Store) ExportRows(ctx context.Context, q ExportQuery, w io.Writer, format Format) error {
	tw, err := NewTextWriter(w, format)
	if err != nil {
		return fmt.Errorf("export %s: %w", q, err)
	}
	if err := s.EachSolution(ctx, q, tw.Write); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("export %s: %w", q, err)
	}
	return nil
}

// RowWriter writes solutions rows in one export format: Write for each
// row, then Close once, which finishes the output (a CSV's last buffered
// lines, a Parquet file's footer). Close is not called after a failed
// export: what the output holds then is incomplete.
type RowWriter interface {
	Write(*Solution) error
	Close() error
}

// TextWriter writes CSV or JSONL rows through a 64 KiB buffer.
type TextWriter struct {
	bw  *bufio.Writer
	cw  *csv.Writer // nil for JSONL
	enc *json.Encoder
	rec []string
}

var _ RowWriter = (*TextWriter)(nil)

// NewTextWriter writes rows to w in format, csv or jsonl (ErrFormat
// otherwise). A CSV's header goes into the buffer at once: an export
// that fails before its first row never reaches w.
func NewTextWriter(w io.Writer, format Format) (*TextWriter, error) {
	if _, err := ParseFormat(string(format)); err != nil {
		return nil, err
	}
	t := &TextWriter{bw: bufio.NewWriterSize(w, 64<<10)}
	if format == FormatJSONL {
		t.enc = json.NewEncoder(t.bw)
		return t, nil
	}
	t.cw = csv.NewWriter(t.bw)
	t.rec = make([]string, len(SolutionColumns))
	if err := t.cw.Write(SolutionColumns); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	return t, nil
}

// Write writes one row.
func (t *TextWriter) Write(sol *Solution) error {
	var err error
	if t.cw != nil {
		csvRecord(sol, t.rec)
		err = t.cw.Write(t.rec)
	} else {
		err = t.enc.Encode(sol)
	}
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// Close writes what is buffered.
func (t *TextWriter) Close() error {
	if t.cw != nil {
		t.cw.Flush()
		if err := t.cw.Error(); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if err := t.bw.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// EachSolution calls fn with every row q selects, in (batch, seq) order,
// streaming from one query: what an export format other than CSV and
// JSONL (Parquet, internal/parquetfile) reads. fn's *Solution is reused
// for the next row. An error from fn stops the walk and is returned
// wrapped. A missing batch, or a puzzle without any batch, is
// ErrNotFound; filters that match nothing call fn never and return nil.
func (s *Store) EachSolution(ctx context.Context, q ExportQuery, fn func(*Solution) error) error {
	where, args := `batch_id = $1`, []any{q.Batch}
	if q.Batch == 0 {
		where, args = `puzzle = $1`, []any{canonical(q.Puzzle)}
	}
	if q.Length != nil {
		args = append(args, *q.Length)
		where += fmt.Sprintf(` AND length = $%d`, len(args))
	}
	if len(q.Statuses) > 0 {
		args = append(args, q.Statuses)
		where += fmt.Sprintf(` AND status = ANY($%d::text[])`, len(args))
	}
	n := 0
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, solutionSelect+`WHERE `+where+` ORDER BY batch_id, seq`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var sol Solution
		for rows.Next() {
			sol = Solution{}
			if err := scanSolution(rows, &sol); err != nil {
				return err
			}
			n++
			if err := fn(&sol); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("export %s: %w", q, err)
	}
	if n == 0 {
		// A missing batch or puzzle is an error, not an empty file.
		if err := s.exportExists(ctx, q); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}

// exportExists is nil when q's batch, or a batch of q's puzzle, exists.
func (s *Store) exportExists(ctx context.Context, q ExportQuery) error {
	if q.Batch != 0 {
		_, err := s.BatchProgress(ctx, q.Batch)
		return err
	}
	p := canonical(q.Puzzle)
	var ok bool
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM batches WHERE puzzle = $1)`, p).Scan(&ok)
	})
	if err != nil {
		return fmt.Errorf("puzzle %s: %w", p, err)
	}
	if !ok {
		return fmt.Errorf("puzzle %s: no batch: %w", p, ErrNotFound)
	}
	return nil
}

func csvRecord(s *Solution, rec []string) {
	rec[0] = strconv.FormatInt(s.BatchID, 10)
	rec[1] = strconv.FormatInt(s.Seq, 10)
	rec[2] = s.Puzzle
	rec[3] = s.State
	rec[4] = ""
	if s.Moves != nil {
		rec[4] = *s.Moves
	}
	rec[5] = ""
	if s.Length != nil {
		rec[5] = strconv.Itoa(*s.Length)
	}
	rec[6] = strconv.FormatBool(s.Optimal)
	rec[7] = strconv.Itoa(s.LowerBound)
	rec[8] = strconv.FormatInt(s.Nodes, 10)
	rec[9] = strconv.FormatFloat(s.SolveMS, 'f', -1, 64)
	rec[10] = s.Solver
	rec[11] = s.Status
	rec[12] = ""
	if s.Error != nil {
		rec[12] = *s.Error
	}
	rec[13] = s.SolvedAt.UTC().Format(time.RFC3339Nano)
	rec[14] = strconv.Itoa(s.Attempts)
}
