package ida55

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/tables"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

func spec(r, c int) puzzle.Spec { return puzzle.Spec{Kind: puzzle.Loopover, Rows: r, Cols: c} }

// wd55FromDir maps the 5×5 walking distance from $TESSERA_SOLVER_TABLES_DIR
// (built by `solverd tables build loopover-5x5-wd`), or skips.
func wd55FromDir(tb testing.TB) *Solver {
	dir := os.Getenv("TESSERA_SOLVER_TABLES_DIR")
	if dir == "" {
		tb.Skip("set TESSERA_SOLVER_TABLES_DIR to a directory holding loopover-5x5-wd")
	}
	m := metaOf(Kind{Side: 5}.Tables()[0])
	f, err := tables.Open(filepath.Join(dir, m.FileName()), m, false)
	if err != nil {
		tb.Skip(err)
	}
	tb.Cleanup(func() { f.Close() })
	wd, err := loopover.NewWDFrom(5, 5, f.Data)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(wd)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Over the mapped 5×5 table: the bound never exceeds the BFS distance of
// any state within 4 moves of the goal, and a sample of them is solved in
// exactly that many moves.
func TestWD55Ball(t *testing.T) {
	s := wd55FromDir(t)
	dist := coretest.Ball(spec(5, 5), 4)
	n := 0
	for key, d := range dist {
		cells := []uint8(key)
		h, err := s.Heuristic(cells)
		if err != nil || h > d {
			t.Fatalf("%v: bound %d, BFS distance %d (%v)", cells, h, d, err)
		}
		if n++; n%97 == 0 {
			out, err := s.Solve(cells, search.Budget{})
			if err != nil || len(out.Path) != d {
				t.Fatalf("%v: %d moves, BFS distance %d (%v)", cells, len(out.Path), d, err)
			}
		}
	}
	t.Logf("%d states within 4 moves", len(dist))
}

// BenchmarkWalk5x5WD is BenchmarkWalk5x5's walks over the 5×5 walking
// distance mapped from $TESSERA_SOLVER_TABLES_DIR:
//
//	TESSERA_SOLVER_TABLES_DIR=~/.cache/tessera/tables go test -run '^$' -bench Walk5x5WD -benchtime 1x ./internal/loopover/ida55
func BenchmarkWalk5x5WD(b *testing.B) {
	s := wd55FromDir(b)
	walks := []int{12, 14, 16}
	if os.Getenv("LOOP_WALK18") != "" {
		walks = append(walks, 18)
	}
	benchWalks(b, s, walks)
}

// BenchmarkWalk5x5 solves 5×5 random walks of 10 to 16 moves optimally
// (the displacement bound) and reports, per walk length, the mean time,
// nodes and optimal length:
//
//	go test -run '^$' -bench Walk5x5 -benchtime 1x -timeout 30m ./internal/loopover/ida55
func BenchmarkWalk5x5(b *testing.B) {
	s, err := loopover.NewEMDSolver(5, 5)
	if err != nil {
		b.Fatal(err)
	}
	benchWalks(b, s, []int{10, 12, 14, 16}) // 18-move walks take many minutes each
}

// benchWalks solves ten random walks of each length optimally with s.
func benchWalks(b *testing.B, s loopover.Optimal, walks []int) {
	sp := spec(5, 5)
	for _, walk := range walks {
		b.Run(fmt.Sprintf("walk=%d", walk), func(b *testing.B) {
			const states = 10
			rng := rand.New(rand.NewPCG(2026, uint64(walk)))
			set := make([][]uint8, states)
			for i := range set {
				set[i] = puzzle.RandomWalk(sp, rng, walk).Cells
			}
			var nodes, moves int64
			var worst time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				nodes, moves, worst = solveAll(b, s, set)
			}
			el := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(el.Microseconds())/1000/states, "ms/state")
			b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
			b.ReportMetric(float64(nodes)/states, "nodes/state")
			b.ReportMetric(float64(moves)/states, "moves/state")
		})
	}
}

// solveAll solves every state of set optimally: total nodes and moves, and
// the slowest solve.
func solveAll(b *testing.B, s loopover.Optimal, set [][]uint8) (nodes, moves int64, worst time.Duration) {
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
	return nodes, moves, worst
}

// metaOf is the header of a table as its kind describes it (package
// tables may not import the solvers' vocabulary: results links it).
func metaOf(id search.Table) tables.Meta {
	return tables.Meta{Name: id.Name, Puzzle: id.Puzzle, Pattern: id.Pattern, Encoding: id.Encoding,
		Entries: id.Entries, Generator: id.Generator}
}
