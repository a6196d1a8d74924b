package pdb

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// replay applies tile directions to a copy of cells.
func replay(w int, cells []uint8, path []uint8) []uint8 {
	b := append([]uint8(nil), cells...)
	blank := 0
	for i, v := range b {
		if v == 0 {
			blank = i
		}
	}
	for _, d := range path {
		var src int
		switch d {
		case tileUp:
			src = blank + w
		case tileDown:
			src = blank - w
		case tileLeft:
			src = blank + 1
		case tileRight:
			src = blank - 1
		}
		b[blank], b[src] = b[src], 0
		blank = src
	}
	return b
}

func isGoal(b []uint8) bool {
	for i := 0; i < len(b)-1; i++ {
		if b[i] != uint8(i+1) {
			return false
		}
	}
	return b[len(b)-1] == 0
}

// Every answer is replayed, and its length is the BFS distance.
func TestSolverOptimal3x3(t *testing.T) {
	tb, dist := bfsTable(t, 3, 3)
	pdbs := []*PDB{build(t, 3, 3, []uint8{1, 2, 3, 4}, Options{}), build(t, 3, 3, []uint8{5, 6, 7, 8}, Options{})}
	s, err := NewSet(pdbs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, reflect := range []bool{false, true} {
		sv, err := NewSolver(s, reflect)
		if err != nil {
			t.Fatal(err)
		}
		cells := make([]uint8, 9)
		for i := uint64(0); i < tb.Size(); i += 37 {
			tb.Cells(i, cells)
			out, err := sv.Solve(cells, search.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			if !isGoal(replay(3, cells, out.Path)) || len(out.Path) != int(dist[i]) || !out.Optimal || out.LowerBound != len(out.Path) {
				t.Fatalf("%s %v: %d moves (reaches goal %v), distance %d", sv.Name(), cells, len(out.Path), isGoal(replay(3, cells, out.Path)), dist[i])
			}
		}
	}
}

func TestSolverKorfQuick(t *testing.T) {
	pdbs := partition(t, Partition555)
	s, _ := NewSet(pdbs...)
	sv, err := NewSolver(s, true)
	if err != nil {
		t.Fatal(err)
	}
	quick := map[int]bool{1: true, 2: true, 5: true, 6: true, 9: true, 61: true, 65: true}
	var nodes int64
	for _, k := range readKorf(t) {
		if !quick[k.ID] {
			continue
		}
		out, err := sv.Solve(k.Cells, search.Budget{})
		if err != nil {
			t.Fatalf("#%d: %v", k.ID, err)
		}
		if !isGoal(replay(4, k.Cells, out.Path)) || len(out.Path) != k.Opt {
			t.Fatalf("#%d: %d moves, optimum %d", k.ID, len(out.Path), k.Opt)
		}
		nodes += out.Nodes
	}
	t.Logf("%s: %d nodes", sv.Name(), nodes)
	// A node budget stops the search with a proved lower bound.
	k := readKorf(t)[2]
	out, err := sv.Solve(k.Cells, search.Budget{MaxNodes: 1000})
	if !errors.Is(err, search.ErrBudgetExceeded) || out.Nodes != 1000 || out.LowerBound < s.Heuristic(k.Cells) || out.LowerBound > k.Opt {
		t.Fatalf("budget: %+v %v", out, err)
	}
	// Random boards: optimal lengths are not known, but answers replay.
	rng := rand.New(rand.NewPCG(1, 2))
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	for i := 0; i < 20; i++ {
		st := puzzle.RandomWalk(spec, rng, 40)
		out, err := sv.Solve(st.Cells, search.Budget{})
		if err != nil || !isGoal(replay(4, st.Cells, out.Path)) || len(out.Path) < out.LowerBound {
			t.Fatalf("%v: %v %+v", st.Cells, err, out)
		}
	}
}
