package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/result"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// BenchmarkInsertResults measures the write path of the results service
// with 8-puzzle-sized rows: the issue asks for ~40k rows/s so that a
// million random 8-puzzle states pass end to end in 30 s.
//
//	go test -run '^$' -bench InsertResults -benchtime 20x ./internal/store
func BenchmarkInsertResults(b *testing.B) {
	for _, shape := range []struct {
		msgs, per int
		redeliver bool // one message of each batch is already stored: the staged path
		distinct  bool // every row a new state (else all one state, seen before)
	}{{100, 100, false, false}, {1000, 100, false, false}, {1000, 10, false, false}, {100, 100, true, false}, {100, 100, false, true}} {
		name := fmt.Sprintf("msgs=%d/per=%d", shape.msgs, shape.per)
		if shape.redeliver {
			name += "/redelivered"
		}
		if shape.distinct {
			name += "/distinct"
		}
		b.Run(name, func(b *testing.B) {
			s := storetest.NewStore(b)
			ctx := context.Background()
			id, err := s.CreateBatch(ctx, "8", "optimal", -1)
			if err != nil {
				b.Fatal(err)
			}
			moves := "U L D R R U L D D R U L L U R D D L U R R D"
			seq := int64(0)
			mk := func() []job.Results {
				batch := make([]job.Results, shape.msgs)
				for m := range batch {
					rs := job.Results{V: job.Version, JobID: fmt.Sprint(id, "-", seq), BatchID: id, Puzzle: "sliding:3x3", FirstSeq: seq}
					rs.Results = make([]result.Result, shape.per)
					for i := range rs.Results {
						state := "8 1 3/4 0 2/7 6 5"
						if shape.distinct {
							state = fmt.Sprint("state ", seq+int64(i))
						}
						rs.Results[i] = result.Result{Puzzle: "sliding:3x3", State: state, Status: result.StatusSolved,
							Moves: moves, Length: 22, Optimal: true, LowerBound: 22, Nodes: 1, ElapsedMS: 0.002, Solver: "bfs-table"}
					}
					seq += int64(shape.per)
					batch[m] = rs
				}
				return batch
			}
			rows := 0
			var elapsed time.Duration
			for b.Loop() {
				batch := mk()
				if shape.redeliver {
					if _, err := s.InsertResults(ctx, batch[:1]); err != nil {
						b.Fatal(err)
					}
					rows += shape.per
				}
				start := time.Now()
				n, err := s.InsertResults(ctx, batch)
				elapsed += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				rows += n
			}
			b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
		})
	}
}
