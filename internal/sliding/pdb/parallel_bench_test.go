package pdb

import (
	"slices"
	"strconv"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
)

// BenchmarkKorfHardestThreads solves the ten hardest of Korf's 100 (the
// most nodes on one thread over 15-pdb-78 with reflection: #60, #88, #82,
// #22, #3, #91, #32, #15, #63, #11) one after the other on 1 and 2
// threads, after an untimed pass over the 100 that brings the mapped
// pages in and ranks them. s/op is wall time (what a user waiting on a few
// hard states sees), cpu-s/op user and system time. Needs `solverd tables
// build 15-pdb-78`.
//
//	go test -run '^$' -bench KorfHardestThreads -benchtime 20x -count 6 ./internal/sliding/pdb
func BenchmarkKorfHardestThreads(b *testing.B) {
	sv, _ := storedSolver(b, storedDir(b), Partition78)
	ks := instances.Korf100()
	nodes := map[int]int64{}
	for _, k := range ks {
		out, err := sv.Solve(k.Cells, search.Budget{})
		if err != nil {
			b.Fatal(err)
		}
		nodes[k.ID] = out.Nodes
	}
	slices.SortStableFunc(ks, func(x, y instances.Instance) int { return int(nodes[y.ID] - nodes[x.ID]) })
	hard := ks[:10]
	for _, threads := range []int{1, 2} {
		b.Run("threads="+strconv.Itoa(threads), func(b *testing.B) {
			var total int64
			cpu0 := coretest.CPUTime()
			for b.Loop() {
				total = 0
				for _, k := range hard {
					out, err := sv.SolveParallel(k.Cells, search.Budget{}, search.Unweighted, threads)
					if err != nil {
						b.Fatal(err)
					}
					if len(out.Path) != k.Opt || !out.Optimal || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) {
						b.Fatalf("#%d: %d moves, optimum %d", k.ID, len(out.Path), k.Opt)
					}
					total += out.Nodes
				}
			}
			b.ReportMetric((coretest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(total), "nodes")
		})
	}
}
