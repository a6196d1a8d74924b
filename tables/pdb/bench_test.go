package pdb

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/search"
)

// BenchmarkBuild builds the 15-puzzle partitions on every core and reports
// build time, the builder's arrays and the heap it allocated:
//
//	go test -run '^$' -bench Build -benchtime 1x ./tables/pdb
func BenchmarkBuild(b *testing.B) {
	for _, pt := range []Partition{Partition555, Partition663} {
		b.Run(pt.Name, func(b *testing.B) {
			var work, tab uint64
			var states uint64
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			t0 := time.Now()
			for i := 0; i < b.N; i++ {
				_, sts, err := BuildPartition(context.Background(), pt, Options{})
				if err != nil {
					b.Fatal(err)
				}
				work, tab, states = 0, 0, 0
				for _, st := range sts {
					work = max(work, st.WorkBytes) // one build at a time
					tab += st.TableBytes
					states += st.States
				}
			}
			el := time.Since(t0)
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(el.Seconds()/float64(b.N), "s/build")
			b.ReportMetric(float64(tab)/1e6, "table-MB")
			b.ReportMetric(float64(work+tab)/1e6, "peak-arrays-MB")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/1e6, "alloc-MB/build")
			b.ReportMetric(float64(states), "states")
		})
	}
}

// BenchmarkKorf100 solves Korf's 100 optimally on one goroutine with
// IDA* over the 5-5-5 and 6-6-3 sets, with and without the reflected
// lookup. The tables are built before the timer starts. Compare with
// go test -run '^$' -bench Korf100 -benchtime 1x ./internal/search (WD+ID).
//
//	go test -run '^$' -bench Korf100 -benchtime 1x ./tables/pdb
func BenchmarkKorf100(b *testing.B) {
	ks := readKorf(b)
	for _, pt := range []Partition{Partition555, Partition663} {
		pdbs, _, err := BuildPartition(context.Background(), pt, Options{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := NewSet(pdbs...)
		if err != nil {
			b.Fatal(err)
		}
		for _, reflect := range []bool{false, true} {
			sv, err := NewSolver(s, reflect)
			if err != nil {
				b.Fatal(err)
			}
			name := pt.Name
			if reflect {
				name += "+reflect"
			}
			b.Run(name, func(b *testing.B) {
				var nodes int64
				var el time.Duration
				for i := 0; i < b.N; i++ {
					nodes = 0
					t0 := time.Now()
					for _, k := range ks {
						out, err := sv.Solve(k.Cells, search.Budget{})
						if err != nil {
							b.Fatal(err)
						}
						if len(out.Path) != k.Opt || !isGoal(replay(4, k.Cells, out.Path)) {
							b.Fatalf("#%d: %d moves, optimum %d", k.ID, len(out.Path), k.Opt)
						}
						nodes += out.Nodes
					}
					el = time.Since(t0)
				}
				b.ReportMetric(float64(nodes), "nodes")
				b.ReportMetric(el.Seconds(), "s/100")
				b.ReportMetric(float64(nodes)/el.Seconds()/1e6, "Mnodes/s")
			})
		}
	}
}
