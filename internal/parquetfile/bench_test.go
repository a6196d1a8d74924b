package parquetfile_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/parquetfile"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/store"
)

// benchRows is the rows of one export in the benchmarks: a large batch.
const benchRows = 1_000_000

// benchChunk is how many rows are made at a time, off the clock.
const benchChunk = 10_000

// rowMaker makes realistic 15-puzzle rows: each state is a random walk of
// 50 to 60 moves from the goal (no move undoing the previous one) and its
// moves the walk undone, a real solution of that length in the stored
// notation; nodes are log-uniform over 10³..10⁸, solve_ms that at about
// 20 M nodes/s, solved_at half a millisecond apart, one batch in seq
// order, every row solved and optimal, as an optimal batch's rows are.
type rowMaker struct {
	rng  *rand.Rand
	spec puzzle.Spec
	seq  int64
	at   time.Time
}

func newRowMaker() *rowMaker {
	sp, err := puzzle.ParseSpec("15")
	if err != nil {
		panic(err)
	}
	return &rowMaker{rng: rand.New(rand.NewPCG(15, 1)), spec: sp, at: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
}

func (m *rowMaker) fill(rows []store.Solution) {
	for i := range rows {
		s, walk := puzzle.RandomWalkMoves(m.spec, m.rng, 50+m.rng.IntN(11))
		moves := puzzle.FormatMoves(m.spec, puzzle.InvertMoves(m.spec, walk))
		n := len(walk)
		nodes := int64(math.Pow(10, 3+5*m.rng.Float64()))
		rows[i] = store.Solution{BatchID: 1, Seq: m.seq, Puzzle: "sliding:4x4", State: s.String(), Moves: &moves, Length: &n,
			Optimal: true, LowerBound: n, Nodes: nodes, SolveMS: float64(nodes) / 20000 * (0.9 + 0.2*m.rng.Float64()),
			Solver: "ida*(pdb-7-8+reflect)", Status: "solved", SolvedAt: m.at, Attempts: 1}
		m.seq++
		m.at = m.at.Add(time.Duration(400+m.rng.IntN(200)) * time.Microsecond)
	}
}

// Exports of 10⁶ rows in each format to a byte counter: rows/s on the
// clock (making the rows is off it), bytes/row of the output, and the
// most live heap seen after a collection at each chunk of rows, which is
// what the writer holds plus one chunk of made rows (about 3 MB).
//
//	go test -run '^$' -bench Export -benchtime 1x ./internal/parquetfile
func BenchmarkExport(b *testing.B) {
	for _, tc := range []struct {
		name  string
		group int // Parquet row group; 0: a text format
		text  store.Format
	}{
		{"csv", 0, store.FormatCSV},
		{"jsonl", 0, store.FormatJSONL},
		{"parquet-rg16384", 16384, ""},
		{fmt.Sprintf("parquet-rg%d", parquetfile.DefaultRowGroupRows), parquetfile.DefaultRowGroupRows, ""},
		{"parquet-rg1048576", 1 << 20, ""},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var out countingWriter
			var peak uint64
			rows := make([]store.Solution, benchChunk)
			for b.Loop() {
				b.StopTimer()
				out.n = 0
				m := newRowMaker()
				var w store.RowWriter
				var err error
				if tc.group > 0 {
					w, err = parquetfile.NewWriter(&out, tc.group, parquetfile.Meta{Puzzle: "sliding:4x4", Batch: 1, Created: time.Now()})
				} else {
					w, err = store.NewTextWriter(&out, tc.text)
				}
				if err != nil {
					b.Fatal(err)
				}
				for done := 0; done < benchRows; done += benchChunk {
					m.fill(rows)
					peak = max(peak, liveHeap())
					b.StartTimer()
					for i := range rows {
						if err := w.Write(&rows[i]); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
				}
				b.StartTimer()
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(out.n)/benchRows, "bytes/row")
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-MB")
		})
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
