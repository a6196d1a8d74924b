package ida44

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/loopover"

	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/tables"
)

// BenchmarkRandom4x4 solves a fixed set of random 4×4 states optimally on
// one goroutine and reports the mean time, nodes and length per state:
//
//	go test -run '^$' -bench Random4x4 -benchtime 1x ./internal/loopover/ida44
//
// Without tables the first solve builds the six-piece pattern database;
// with TESSERA_SOLVER_TABLES_DIR naming a directory that holds a table
// `solverd tables build loopover-4x4-pdb7` (or -pdb6) wrote, the solver
// maps the largest there, as solverd does. The first solve is timed
// apart (first-ms, including the table's build or mapping).
// cpu-ms/state is the process's CPU time, steadier than the wall clock on
// a shared machine; median-ms the median wall time per state.
func BenchmarkRandom4x4(b *testing.B) {
	const states = 200
	sp := spec(4, 4)
	t0 := time.Now()
	s := solver44(b)
	rng := rand.New(rand.NewPCG(2026, 44))
	set := make([][]uint8, states)
	for i := range set {
		set[i] = randomState(sp, rng)
	}
	if _, err := s.Solve(set[0], search.Budget{}); err != nil {
		b.Fatal(err)
	}
	first := time.Since(t0)
	var nodes, moves int64
	var times []time.Duration
	cpu0 := coretest.CPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nodes, moves, times = solveAllTimes(b, s, set)
	}
	el := b.Elapsed() / time.Duration(b.N)
	cpu := (coretest.CPUTime() - cpu0) / time.Duration(b.N)
	slices.Sort(times)
	b.ReportMetric(float64(el.Microseconds())/1000/states, "ms/state")
	b.ReportMetric(float64(cpu.Microseconds())/1000/states, "cpu-ms/state")
	b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "worst-ms")
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(nodes)/states, "nodes/state")
	b.ReportMetric(float64(moves)/states, "moves/state")
	b.ReportMetric(float64(nodes)/el.Seconds()/1e6, "Mnodes/s")
}

// solver44 is the 4×4 solver over the largest pattern database in
// $TESSERA_SOLVER_TABLES_DIR (copied to huge pages with
// TESSERA_TABLES_PRIVATE=1, as solverd --tables-private does), else the
// one that builds its own.
func solver44(tb testing.TB) loopover.Optimal {
	for _, k := range []int{8, 7, 6} {
		if s := mapped44(tb, k); s != nil {
			return s
		}
	}
	s, err := New()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// mapped44 is the 4×4 solver over the k-piece table that `solverd tables
// build` wrote to $TESSERA_SOLVER_TABLES_DIR, or nil if it is not there.
func mapped44(tb testing.TB, k int) *Solver {
	dir := os.Getenv("TESSERA_SOLVER_TABLES_DIR")
	if dir == "" {
		return nil
	}
	m := metaOf(Kind{Pieces: k}.Tables()[0])
	f, err := tables.Open(filepath.Join(dir, m.FileName()), m, false)
	if err != nil {
		return nil
	}
	tb.Cleanup(func() { f.Close() })
	if os.Getenv("TESSERA_TABLES_PRIVATE") != "" {
		if err := f.Private(); err != nil {
			tb.Fatal(err)
		}
	}
	s, err := NewWith(f.Data)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// solveAllTimes is solveAll with each state's wall time.
func solveAllTimes(b *testing.B, s loopover.Optimal, set [][]uint8) (nodes, moves int64, times []time.Duration) {
	for _, c := range set {
		t0 := time.Now()
		out, err := s.Solve(c, search.Budget{})
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		nodes += out.Nodes
		moves += int64(len(out.Path))
	}
	return nodes, moves, times
}

// metaOf is the header of a table as its kind describes it (package
// tables may not import the solvers' vocabulary: results links it).
func metaOf(id search.Table) tables.Meta {
	return tables.Meta{Name: id.Name, Puzzle: id.Puzzle, Pattern: id.Pattern, Encoding: id.Encoding,
		Entries: id.Entries, Generator: id.Generator}
}
