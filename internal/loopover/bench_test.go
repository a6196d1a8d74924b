package loopover

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/search"
)

// BenchmarkRandom4x4 solves a fixed set of random 4×4 states optimally on
// one goroutine and reports the mean time, nodes and length per state:
//
//	go test -run '^$' -bench Random4x4 -benchtime 1x ./internal/loopover
func BenchmarkRandom4x4(b *testing.B) {
	const states = 200
	sp := spec(4, 4)
	s, err := NewSolver(4, 4)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2026, 44))
	set := make([][]uint8, states)
	for i := range set {
		set[i] = randomState(sp, rng)
	}
	var nodes, moves int64
	var worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nodes, moves, worst = 0, 0, 0
		for _, c := range set {
			t0 := time.Now()
			out, err := s.Solve(c, search.Budget{})
			if err != nil {
				b.Fatal(err)
			}
			worst = max(worst, time.Since(t0))
			nodes += out.Nodes
			moves += int64(len(out.Path))
		}
	}
	el := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(el.Microseconds())/1000/states, "ms/state")
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
	b.ReportMetric(float64(nodes)/states, "nodes/state")
	b.ReportMetric(float64(moves)/states, "moves/state")
	b.ReportMetric(float64(nodes)/el.Seconds()/1e6, "Mnodes/s")
}
