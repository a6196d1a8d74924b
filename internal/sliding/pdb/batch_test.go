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

// A batch answers every state as Solve does, node for node, whatever the
// number of lanes; budgets end each state on its own.
func TestSolveBatchMatchesSolve(t *testing.T) {
	var pdbs []*PDB
	for _, tiles := range Partition555.Patterns {
		p, _, err := Build(context.Background(), 4, 4, tiles, Options{})
		if err != nil {
			t.Fatal(err)
		}
		pdbs = append(pdbs, p)
	}
	sv := reflectingSolver(t, pdbs...)
	var states [][]uint8
	for _, k := range instances.Korf100() {
		if map[int]bool{1: true, 2: true, 5: true, 6: true, 9: true, 61: true, 65: true}[k.ID] {
			states = append(states, k.Cells)
		}
	}
	goal := make([]uint8, 16)
	for i := range 15 {
		goal[i] = uint8(i + 1)
	}
	states = append(states, goal, []uint8{1, 2, 3}) // the goal itself; not a board
	b := search.Budget{}
	for _, lanes := range []int{1, 3, 16} {
		outs, errs := sv.SolveBatch(states, b, lanes)
		for i, st := range states {
			want, werr := sv.Solve(st, b)
			if (werr == nil) != (errs[i] == nil) || werr != nil && !errors.Is(errs[i], werr) && errs[i].Error() != werr.Error() {
				t.Fatalf("lanes %d, state %d: error %v, Solve: %v", lanes, i, errs[i], werr)
			}
			if string(outs[i].Path) != string(want.Path) || outs[i].Nodes != want.Nodes || outs[i].LowerBound != want.LowerBound || outs[i].Optimal != want.Optimal {
				t.Fatalf("lanes %d, state %d: %+v, Solve: %+v", lanes, i, outs[i], want)
			}
		}
	}
	// A node budget stops a state with the bound it proved, as Solve does.
	b = search.Budget{MaxNodes: 5000}
	outs, errs := sv.SolveBatch(states[:len(states)-2], b, 4)
	for i, st := range states[:len(states)-2] {
		want, werr := sv.Solve(st, b)
		if !errors.Is(errs[i], werr) && (errs[i] != nil || werr != nil) || outs[i].LowerBound != want.LowerBound || outs[i].Nodes != want.Nodes {
			t.Fatalf("budget, state %d: %+v %v, Solve: %+v %v", i, outs[i], errs[i], want, werr)
		}
	}
}

// On small boards (odd, non-square) a batch's answers are BFS distances,
// and on every board (also one wider than 5 columns, whose rank steps take
// the long way) they match Solve node for node, with and without the
// reflected lookup.
func TestSolveBatchSmallBoards(t *testing.T) {
	for _, c := range []struct {
		w, h    int
		a, b    []uint8
		reflect bool
	}{
		{3, 3, []uint8{1, 2, 3, 4}, []uint8{5, 6, 7, 8}, false},
		{3, 3, []uint8{1, 2, 3, 4}, []uint8{5, 6, 7, 8}, true},
		{4, 2, []uint8{1, 2, 3}, []uint8{4, 5, 6, 7}, true},
		{2, 4, []uint8{1, 2, 3}, []uint8{4, 5, 6, 7}, true},
		{6, 2, []uint8{1, 2, 3, 4, 5}, []uint8{6, 7, 8, 9, 10, 11}, true},
	} {
		bfs := c.w*c.h <= 9
		s, err := NewSet(build(t, c.w, c.h, c.a, Options{}), build(t, c.w, c.h, c.b, Options{}))
		if err != nil {
			t.Fatal(err)
		}
		sv, err := NewSolver(s, c.reflect)
		if err != nil {
			t.Fatal(err)
		}
		var states [][]uint8
		var want []int
		if bfs {
			tb, dist := bfsTable(t, c.w, c.h)
			for i := uint64(0); i < tb.Size(); i += tb.Size()/300 + 1 {
				cells := make([]uint8, c.w*c.h)
				tb.Cells(i, cells)
				states = append(states, cells)
				want = append(want, int(dist[i]))
			}
		} else {
			spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: c.h, Cols: c.w}
			rng := rand.New(rand.NewPCG(1, 2))
			for range 40 {
				states = append(states, puzzle.Random(spec, rng).Cells)
				want = append(want, -1)
			}
		}
		outs, errs := sv.SolveBatch(states, search.Budget{}, 0)
		for i, st := range states {
			solo, err := sv.Solve(st, search.Budget{})
			if errs[i] != nil || err != nil {
				t.Fatalf("%dx%d %v: %v (Solve: %v)", c.h, c.w, st, errs[i], err)
			}
			if want[i] < 0 {
				want[i] = len(solo.Path)
			}
			if len(outs[i].Path) != want[i] || !coretest.SlidingSolved(coretest.SlidePath(c.w, st, outs[i].Path)) || outs[i].Nodes != solo.Nodes {
				t.Fatalf("%dx%d %v: %d moves in %d nodes, distance %d, Solve: %d nodes", c.h, c.w, st, len(outs[i].Path), outs[i].Nodes, want[i], solo.Nodes)
			}
		}
	}
}

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
	// A node budget stops every lane with a proved lower bound.
	k := ks[0]
	for _, workers := range []int{1, 2} {
		out, err := sv.SolveParallel(k.Cells, search.Budget{MaxNodes: 20000}, search.Unweighted, workers)
		if !errors.Is(err, search.ErrBudgetExceeded) || out.LowerBound < sv.set.Heuristic(k.Cells) || out.LowerBound > k.Opt ||
			out.Nodes < 20000 || out.Nodes > 20000+int64(workers)*BatchLanes*search.CheckEvery {
			t.Fatalf("node budget, %d workers: %+v %v", workers, out, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sv.SolveParallel(k.Cells, search.Budget{Ctx: ctx}, search.Unweighted, 2); !errors.Is(err, search.ErrBudgetExceeded) {
		t.Fatalf("cancelled: %v", err)
	}
}
