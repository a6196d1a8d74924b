package pdb

import (
	"testing"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
)

func BenchmarkTmpWeighted(b *testing.B) {
	for _, pt := range []Partition{Partition663, Partition78} {
		b.Run(pt.Name, func(b *testing.B) {
			sv, _ := storedSolver(b, storedDir(b), pt)
			var nodes, moves int64
			for b.Loop() {
				nodes, moves = 0, 0
				for _, k := range instances.Korf100() {
					out, err := sv.SolveWeighted(k.Cells, search.Budget{}, 24)
					if err != nil || !isGoal(replay(4, k.Cells, out.Path)) {
						b.Fatal(err)
					}
					nodes += out.Nodes
					moves += int64(len(out.Path))
				}
			}
			b.ReportMetric(float64(nodes), "nodes")
			b.ReportMetric(float64(moves), "moves")
		})
	}
}
