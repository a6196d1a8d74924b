package pdb

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// A search alone whose iterations run in lanes (laneAbove lowered, lanes
// forced on small tables) answers optimally: every work item's subtree
// is searched, a lost one would show as a longer answer or a failure.
func TestSolverLanes(t *testing.T) {
	old := laneAbove
	laneAbove = 100
	defer func() { laneAbove = old }()
	pdbs := partition(t, Partition555)
	sv := reflectingSolver(t, pdbs...)
	sv.interleave = true
	ks := instances.Korf100()
	for _, id := range []int{1, 2, 5, 6, 9, 61, 65} {
		k := ks[id-1]
		for _, workers := range []int{1, 2, 3} {
			out, err := sv.SolveParallel(k.Cells, search.Budget{}, search.Unweighted, workers)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Path) != k.Opt || !out.Optimal || out.LowerBound != k.Opt || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) {
				t.Fatalf("#%d, %d workers: %d moves (optimum %d), %+v", k.ID, workers, len(out.Path), k.Opt, out)
			}
		}
	}
	// Small boards: every answer is the BFS distance.
	for _, c := range []struct{ w, h int }{{3, 3}, {4, 2}} {
		s, err := NewSet(build(t, c.w, c.h, []uint8{1, 2, 3, 4}, Options{}), build(t, c.w, c.h, []uint8{5, 6, 7}, Options{}))
		if err != nil {
			t.Fatal(err)
		}
		sv, err := NewSolver(s, true)
		if err != nil {
			t.Fatal(err)
		}
		sv.interleave = true
		tb, dist := bfsTable(t, c.w, c.h)
		cells := make([]uint8, c.w*c.h)
		for i := uint64(0); i < tb.Size(); i += 13 {
			tb.Cells(i, cells)
			out, err := sv.Solve(cells, search.Budget{})
			if err != nil || len(out.Path) != int(dist[i]) || !coretest.SlidingSolved(coretest.SlidePath(c.w, cells, out.Path)) {
				t.Fatalf("%dx%d %v: %d moves, distance %d, %v", c.h, c.w, cells, len(out.Path), dist[i], err)
			}
		}
	}
	// A board wider than 5 columns, whose rank steps take the long way:
	// the lanes' answers are as long as the dfs's.
	s, err := NewSet(build(t, 6, 2, []uint8{1, 2, 3, 4, 5}, Options{}), build(t, 6, 2, []uint8{6, 7, 8, 9, 10, 11}, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewSolver(s, true)
	if err != nil {
		t.Fatal(err)
	}
	wide, err := NewSolver(s, true)
	if err != nil {
		t.Fatal(err)
	}
	wide.interleave = true
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 2, Cols: 6}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		cells := puzzle.Random(spec, rng).Cells
		want, err := plain.Solve(cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := wide.Solve(cells, search.Budget{})
		if err != nil || len(out.Path) != len(want.Path) || !coretest.SlidingSolved(coretest.SlidePath(6, cells, out.Path)) {
			t.Fatalf("2x6 %v: %d moves, the dfs %d, %v", cells, len(out.Path), len(want.Path), err)
		}
	}
	// A node budget stops every lane with a proved lower bound.
	k := ks[0]
	for _, workers := range []int{1, 2} {
		out, err := sv.SolveParallel(k.Cells, search.Budget{MaxNodes: 20000}, search.Unweighted, workers)
		if !errors.Is(err, search.ErrBudgetExceeded) || out.LowerBound < sv.set.Heuristic(k.Cells) || out.LowerBound > k.Opt ||
			out.Nodes < 20000 || out.Nodes > 20000+int64(workers)*laneCount*search.CheckEvery {
			t.Fatalf("node budget, %d workers: %+v %v", workers, out, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sv.SolveParallel(k.Cells, search.Budget{Ctx: ctx}, search.Unweighted, 2); !errors.Is(err, search.ErrBudgetExceeded) {
		t.Fatalf("cancelled: %v", err)
	}
}
