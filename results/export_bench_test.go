package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// `results export` of one batch of 10⁶ 15-puzzle rows from PostgreSQL to
// a file, in each format: rows/s of the whole command (query, encoding,
// write), bytes/row of the file. The rows are made as in
// internal/parquetfile's BenchmarkExport (random walks of 50 to 60 moves
// and their undoing, log-uniform nodes) and stored once, before the clock
// (about a minute).
//
//	go test -run '^$' -bench ExportFromPostgreSQL -benchtime 3x ./results
func BenchmarkExportFromPostgreSQL(b *testing.B) {
	const rows, per = 1_000_000, 1000
	u := storetest.SchemaURL(b)
	ctx := context.Background()
	db := "--database-url=" + u
	var o, e discard
	if code := run(ctx, []string{"migrate", db}, &o, &e); code != 0 {
		b.Fatalf("migrate: exit %d", code)
	}
	st, err := store.Open(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	id, err := st.CreateBatch(ctx, "15", "optimal", rows)
	if err != nil {
		b.Fatal(err)
	}
	sp, _ := puzzle.ParseSpec("15")
	rng := rand.New(rand.NewPCG(15, 1))
	for seq := int64(0); seq < rows; seq += per {
		rs := job.Results{V: job.Version, JobID: fmt.Sprint(id, "-", seq), BatchID: id, Puzzle: "sliding:4x4", FirstSeq: seq}
		for range per {
			s, walk := puzzle.RandomWalkMoves(sp, rng, 50+rng.IntN(11))
			nodes := int64(math.Pow(10, 3+5*rng.Float64()))
			rs.Results = append(rs.Results, result.Result{Puzzle: "sliding:4x4", State: s.String(), Status: result.StatusSolved,
				Moves: puzzle.FormatMoves(sp, puzzle.InvertMoves(sp, walk)), Length: len(walk), Optimal: true, LowerBound: len(walk),
				Nodes: nodes, ElapsedMS: float64(nodes) / 20000 * (0.9 + 0.2*rng.Float64()), Solver: "ida*(pdb-7-8+reflect)"})
		}
		if _, err := st.InsertResults(ctx, []job.Results{rs}); err != nil {
			b.Fatal(err)
		}
	}
	for _, format := range []string{"csv", "jsonl", "parquet"} {
		b.Run(format, func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "rows."+format)
			for b.Loop() {
				if code := run(ctx, []string{"export", "--batch", fmt.Sprint(id), "--format", format, "-o", file, db}, &o, &e); code != 0 {
					b.Fatalf("export: exit %d", code)
				}
			}
			fi, err := os.Stat(file)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(fi.Size())/rows, "bytes/row")
		})
	}
}

// discard is an io.Writer that keeps nothing.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
