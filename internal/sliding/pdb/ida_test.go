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

// reflectingSolver is the solver over pdbs with the reflected lookup.
func reflectingSolver(tb testing.TB, pdbs ...*PDB) *Solver {
	tb.Helper()
	s, err := NewSet(pdbs...)
	if err != nil {
		tb.Fatal(err)
	}
	sv, err := NewSolver(s, true)
	if err != nil {
		tb.Fatal(err)
	}
	return sv
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
			if !coretest.SlidingSolved(coretest.SlidePath(3, cells, out.Path)) || len(out.Path) != int(dist[i]) || !out.Optimal || out.LowerBound != len(out.Path) {
				t.Fatalf("%s %v: %d moves (reaches goal %v), distance %d", sv.Name(), cells, len(out.Path), coretest.SlidingSolved(coretest.SlidePath(3, cells, out.Path)), dist[i])
			}
		}
	}
}

// quickKorf are Korf's instances the 5-5-5 set solves in a few tens of
// thousands of nodes.
var quickKorf = map[int]bool{1: true, 2: true, 5: true, 6: true, 9: true, 61: true, 65: true}

func TestSolverKorfQuick(t *testing.T) {
	pdbs := partition(t, Partition555)
	sv := reflectingSolver(t, pdbs...)
	var nodes int64
	for _, k := range instances.Korf100() {
		if !quickKorf[k.ID] {
			continue
		}
		out, err := sv.Solve(k.Cells, search.Budget{})
		if err != nil {
			t.Fatalf("#%d: %v", k.ID, err)
		}
		if !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) || len(out.Path) != k.Opt {
			t.Fatalf("#%d: %d moves, optimum %d", k.ID, len(out.Path), k.Opt)
		}
		nodes += out.Nodes
	}
	t.Logf("%s: %d nodes", sv.Name(), nodes)
	// A node budget stops the search with a proved lower bound.
	k := instances.Korf100()[2]
	out, err := sv.Solve(k.Cells, search.Budget{MaxNodes: 1000})
	if !errors.Is(err, search.ErrBudgetExceeded) || out.Nodes != 1000 || out.LowerBound < sv.set.Heuristic(k.Cells) || out.LowerBound > k.Opt {
		t.Fatalf("budget: %+v %v", out, err)
	}
	// Random boards: optimal lengths are not known, but answers replay.
	rng := rand.New(rand.NewPCG(1, 2))
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	for i := 0; i < 20; i++ {
		st := puzzle.RandomWalk(spec, rng, 40)
		out, err := sv.Solve(st.Cells, search.Budget{})
		if err != nil || !coretest.SlidingSolved(coretest.SlidePath(4, st.Cells, out.Path)) || len(out.Path) < out.LowerBound {
			t.Fatalf("%v: %v %+v", st.Cells, err, out)
		}
	}
}

// The rank steps of the search (steps, which dfs writes out): after random
// moves on boards of several shapes, with patterns that leave tiles out,
// the ranks updated move by move equal the ranks computed afresh.
func TestIncrementalRanks(t *testing.T) {
	type tc struct {
		w, h int
		pats [][]uint8
	}
	for _, c := range []tc{
		{4, 4, [][]uint8{{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15}}},
		{4, 4, [][]uint8{{3, 1, 7, 12, 2}, {5, 6, 9, 10, 13}, {15, 11, 8}}},
		{5, 5, [][]uint8{{13, 18, 19, 20, 23, 24}, {11, 12, 16, 17, 21, 22}, {4, 5, 9, 10, 14, 15}, {1, 2, 3, 6, 7, 8}}},
		{3, 3, [][]uint8{{8, 1, 4}, {2, 3}}},
		{5, 3, [][]uint8{{1, 2, 3, 6, 7}, {14, 9, 11, 12}}},
		{2, 6, [][]uint8{{1, 2, 3, 4, 5}, {11, 6, 8}}},
		{12, 2, [][]uint8{{1, 2, 3, 13, 14, 15, 20}, {23, 4, 9}}},
	} {
		var pdbs []*PDB
		for _, tiles := range c.pats {
			p, err := newPDB(c.h, c.w, tiles)
			if err != nil {
				t.Fatal(err)
			}
			pdbs = append(pdbs, p)
		}
		sv := reflectingSolver(t, pdbs...)
		n := c.w * c.h
		k := &idaWork{Solver: sv}
		for i := 0; i < n-1; i++ {
			k.board[i] = uint8(i + 1)
			k.pos[i+1] = uint8(i)
		}
		k.pos[0] = uint8(n - 1)
		fresh := func() {
			for j := range sv.pats {
				k.rank[0][j] = uint32(k.rankDirect(j))
				if sv.reflect {
					k.rank[1][j] = uint32(k.rankReflected(j))
				}
			}
		}
		fresh()
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		blank := n - 1
		for step := 0; step < 20000; step++ {
			d := uint8(rng.IntN(4))
			if sv.legal[blank]&(1<<d) == 0 {
				continue
			}
			m := &sv.moves[blank][d]
			tl := k.board[m.src]
			d0, d1 := sv.steps(&k.board, m, tl)
			j0, j1 := sv.pat[0][tl], sv.pat[1][tl]
			r0, r1 := k.rank[0][j0]+d0, k.rank[1][j1]+d1
			k.board[blank], k.board[m.src] = tl, 0
			k.pos[tl], k.pos[0] = uint8(blank), m.src
			blank = int(m.src)
			want := k.rank
			fresh()
			if r0 != k.rank[0][j0] || r1 != k.rank[1][j1] {
				t.Fatalf("%dx%d %v step %d: tile %d: ranks %d %d, afresh %d %d", c.h, c.w, c.pats, step, tl, r0, r1, k.rank[0][j0], k.rank[1][j1])
			}
			want[0][j0], want[1][j1] = r0, r1
			if want != k.rank {
				t.Fatalf("%dx%d step %d: another pattern's rank changed", c.h, c.w, step)
			}
		}
	}
}

// Non-square boards: every answer is the BFS distance.
func TestSolverOptimal2x4(t *testing.T) {
	for _, wh := range [][2]int{{4, 2}, {2, 4}} {
		w, h := wh[0], wh[1]
		tb, dist := bfsTable(t, w, h)
		pdbs := []*PDB{build(t, w, h, []uint8{1, 2, 3}, Options{}), build(t, w, h, []uint8{4, 5, 6, 7}, Options{})}
		sv := reflectingSolver(t, pdbs...)
		cells := make([]uint8, w*h)
		for i := uint64(0); i < tb.Size(); i += 7 {
			tb.Cells(i, cells)
			out, err := sv.Solve(cells, search.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			if !coretest.SlidingSolved(coretest.SlidePath(w, cells, out.Path)) || len(out.Path) != int(dist[i]) {
				t.Fatalf("%dx%d %v: %d moves, distance %d", h, w, cells, len(out.Path), dist[i])
			}
		}
	}
}

// Parallel iterations share out the subtrees below search.MaxSplit: a lost or
// doubled work item would show as a longer answer, a missed one as a
// failed search. With parAbove lowered, every iteration after the first
// few is split, on boards solved at many depths.
func TestSolverParallel(t *testing.T) {
	old := parAbove
	parAbove = 100
	defer func() { parAbove = old }()
	pdbs := partition(t, Partition555)
	sv := reflectingSolver(t, pdbs...)
	ks := instances.Korf100()
	coretest.ParallelOptimal(t, sv, 1, 2, 5, 6, 9, 61, 65)
	// Budgets stop every worker with a proved lower bound.
	k := ks[0]
	out, err := sv.SolveParallel(k.Cells, search.Budget{MaxNodes: 20000}, search.Unweighted, 2)
	if !errors.Is(err, search.ErrBudgetExceeded) || out.LowerBound < sv.set.Heuristic(k.Cells) || out.LowerBound > k.Opt ||
		out.Nodes < 20000 || out.Nodes > 20000+2*search.CheckEvery {
		t.Fatalf("node budget: %+v %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sv.SolveParallel(k.Cells, search.Budget{Ctx: ctx}, search.Unweighted, 2); !errors.Is(err, search.ErrBudgetExceeded) {
		t.Fatalf("cancelled: %v", err)
	}
	// Weighted search in parallel still returns a path that replays.
	out, err = sv.SolveParallel(k.Cells, search.Budget{}, 24, 2)
	if err != nil || out.Optimal || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) {
		t.Fatalf("weighted: %+v %v", out, err)
	}
}
