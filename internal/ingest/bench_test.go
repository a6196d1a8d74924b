package ingest_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/result"

	"github.com/tessera-solver/tessera/internal/ingest"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// BenchmarkIngestJetStream measures the results path alone: Results
// messages already in TESSERA_RESULTS (an in-process server) drained into
// PostgreSQL by the ingest loop with the default batch size. A million
// 8-puzzles end to end within 30 s (docs/BENCHMARKS.md's targets) needs
// ≥ 40k rows/s here.
//
//	go test -run '^$' -bench IngestJetStream -benchtime 1x ./internal/ingest
func BenchmarkIngestJetStream(b *testing.B) {
	const msgs, per = 2000, 100 // 200k 8-puzzle rows
	for b.Loop() {
		b.StopTimer()
		st := storetest.NewStore(b)
		_, nc := natstest.Server(b)
		ctx, cancel := context.WithCancel(context.Background())
		js, err := queue.New(nc)
		if err != nil {
			b.Fatal(err)
		}
		qc := queue.DefaultConfig()
		if err := queue.EnsureStreams(ctx, js, qc); err != nil {
			b.Fatal(err)
		}
		cons, err := queue.EnsureResultsConsumer(ctx, js, qc)
		if err != nil {
			b.Fatal(err)
		}
		id, _ := st.CreateBatch(ctx, "8", "optimal", msgs*per)
		for m := 0; m < msgs; m++ {
			rs := job.Results{V: job.Version, JobID: fmt.Sprint(id, "-", m*per), BatchID: id, Puzzle: "sliding:3x3", FirstSeq: int64(m * per)}
			rs.Results = make([]result.Result, per)
			for i := range rs.Results {
				rs.Results[i] = result.Result{Puzzle: "sliding:3x3", State: "8 1 3/4 0 2/7 6 5", Status: result.StatusSolved,
					Moves: "U L D R R U L D D R U L L U R D D L U R R D", Length: 22, Optimal: true, LowerBound: 22, Solver: "bfs-table"}
			}
			if err := queuetest.PublishResults(ctx, js, rs); err != nil {
				b.Fatal(err)
			}
		}
		src, err := queue.NewResultsSource[ingest.Msg](cons)
		if err != nil {
			b.Fatal(err)
		}
		in := ingest.New(src, st, ingest.Options{Logger: slog.New(slog.DiscardHandler)})
		done := make(chan struct{})
		go func() { in.Run(ctx); close(done) }()
		b.StartTimer()
		start := time.Now()
		for in.Stats().Rows < msgs*per {
			time.Sleep(2 * time.Millisecond)
		}
		el := time.Since(start)
		b.StopTimer()
		cancel()
		<-done
		b.ReportMetric(float64(msgs*per)/el.Seconds(), "rows/s")
		b.StartTimer()
	}
}
