package sliding

import (
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
)

// korfQuick are instances that need under two million nodes: enough to
// catch a heuristic or search regression in a unit test.
var korfQuick = map[int]bool{1: true, 2: true, 5: true, 6: true, 9: true, 61: true, 65: true}

func TestKorfQuickOptimal(t *testing.T) {
	s, err := NewSearcher(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range instances.Korf100() {
		if !korfQuick[k.ID] {
			continue
		}
		out, err := s.Solve(k.Cells, search.Budget{})
		if err != nil {
			t.Fatalf("#%d: %v", k.ID, err)
		}
		if !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) {
			t.Fatalf("#%d: answer does not reach the goal", k.ID)
		}
		if len(out.Path) != k.Opt || !out.Optimal || out.LowerBound != k.Opt {
			t.Errorf("#%d: length %d optimal %v lb %d, published optimum %d", k.ID, len(out.Path), out.Optimal, out.LowerBound, k.Opt)
		}
	}
}

// BenchmarkKorf100 solves all of Korf's 100 optimally on one goroutine and
// reports the totals behind docs/BENCHMARKS.md:
//
//	go test -run '^$' -bench Korf100 -benchtime 1x ./internal/sliding
func BenchmarkKorf100(b *testing.B) {
	s, err := NewSearcher(4, 4)
	if err != nil {
		b.Fatal(err)
	}
	ks := instances.Korf100()
	var nodes int64
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		nodes = 0
		t0 := time.Now()
		for _, k := range ks {
			out, err := s.Solve(k.Cells, search.Budget{})
			if err != nil {
				b.Fatal(err)
			}
			if len(out.Path) != k.Opt || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) {
				b.Fatalf("#%d: length %d, want %d", k.ID, len(out.Path), k.Opt)
			}
			nodes += out.Nodes
		}
		cpu = time.Since(t0)
	}
	b.ReportMetric(float64(nodes), "nodes")
	b.ReportMetric(cpu.Seconds(), "s/100")
	b.ReportMetric(float64(nodes)/cpu.Seconds()/1e6, "Mnodes/s")
}
