package pdb

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// The dual bound against the BFS distance of every state of small boards:
// never above it (with and without the reflection), and above the
// regular bound on some states (else it would add nothing). On states
// whose blank is home the dual board is the inverse permutation, which
// has the same distance.
func TestDualAdmissible(t *testing.T) {
	cases := []struct {
		w, h     int
		patterns [][]uint8
	}{
		{3, 3, [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}}},
		{3, 3, [][]uint8{{1, 2, 4}, {3, 5, 6}, {7, 8}}},
		{3, 3, [][]uint8{{1, 2, 3, 4, 5, 6, 7, 8}}},
		{4, 2, [][]uint8{{1, 2, 5, 6}, {3, 4, 7}}},
		{2, 4, [][]uint8{{1, 3, 5}, {2, 4, 6, 7}}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dx%d-%d", c.h, c.w, len(c.patterns)), func(t *testing.T) {
			var pdbs []*PDB
			for _, tiles := range c.patterns {
				pdbs = append(pdbs, build(t, c.w, c.h, tiles, Options{}))
			}
			s, err := NewSet(pdbs...)
			if err != nil {
				t.Fatal(err)
			}
			dt, err := newDualTabs(s)
			if err != nil {
				t.Fatal(err)
			}
			tb, dist := bfsTable(t, c.w, c.h)
			n := c.w * c.h
			cells, inv := make([]uint8, n), make([]uint8, n)
			var board [32]uint8
			var pos, dpos Positions
			var above, sumR, sumD int
			for i := uint64(0); i < tb.Size(); i++ {
				tb.Cells(i, cells)
				d := int(dist[i])
				b := 0
				for x, v := range cells {
					board[x] = v
					if v == 0 {
						b = x
					}
				}
				PositionsOf(cells, &pos)
				hr := s.HReflect(&pos)
				hd := s.dualH(&board, b, dt, s.square, Unreached)
				if hd > d {
					t.Fatalf("%v: dual bound %d, distance %d", cells, hd, d)
				}
				if hd > hr {
					above++
				}
				sumR += hr
				sumD += max(hr, hd)
				if b == n-1 {
					dt.sig[b][0].dualPositions(n, &board, &dpos)
					for tile := range n {
						inv[dpos[tile]] = uint8(tile)
					}
					j, ok := tb.Index(inv)
					if !ok || dist[j] != dist[i] {
						t.Fatalf("%v (%d): dual %v (%d, %v)", cells, d, inv, dist[j], ok)
					}
				}
			}
			t.Logf("%d states: mean regular bound %.3f, with the dual %.3f, dual higher on %d",
				tb.Size(), float64(sumR)/float64(tb.Size()), float64(sumD)/float64(tb.Size()), above)
			if len(c.patterns) > 1 && above == 0 {
				// (A pattern of every tile is exact: nothing is above it.)
				t.Errorf("the dual bound is never above the regular one")
			}
		})
	}
}

// With the dual lookups and pathmax the search stays optimal: every 3x3
// state of a stride, its answer replayed and as long as its BFS distance,
// on one thread and two, with and without a second partition and its
// dual lookups, and with the second partition's ranks stepped by move.
func TestDualSolverOptimal3x3(t *testing.T) {
	tb, dist := bfsTable(t, 3, 3)
	s, err := NewSet(build(t, 3, 3, []uint8{1, 2, 3, 4}, Options{}), build(t, 3, 3, []uint8{5, 6, 7, 8}, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewSet(build(t, 3, 3, []uint8{1, 2, 4}, Options{}), build(t, 3, 3, []uint8{3, 5, 6}, Options{}), build(t, 3, 3, []uint8{7, 8}, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	// The stepped extra bounds are checked against the board's as the
	// search goes.
	checkExtraSteps = true
	t.Cleanup(func() { checkExtraSteps = false })
	for _, c := range []struct {
		reflect bool
		opt     dualOptions
	}{{false, dualOptions{}}, {true, dualOptions{}}, {true, dualOptions{Extra: x}}, {true, dualOptions{Extra: x, ExtraDual: true}},
		{false, dualOptions{Extra: x, ExtraSteps: true}}, {true, dualOptions{Extra: x, ExtraSteps: true}}} {
		reflect := c.reflect
		sv, err := newDualSolver(s, reflect, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		cells := make([]uint8, 9)
		for i := uint64(0); i < tb.Size(); i += 31 {
			tb.Cells(i, cells)
			out, err := sv.SolveParallel(cells, search.Budget{}, search.Unweighted, 1+int(i%2))
			if err != nil {
				t.Fatal(err)
			}
			if !coretest.SlidingSolved(coretest.SlidePath(3, cells, out.Path)) || len(out.Path) != int(dist[i]) || !out.Optimal {
				t.Fatalf("%s %v: %d moves, distance %d", sv.Name(), cells, len(out.Path), dist[i])
			}
		}
	}
	if n := extraStepsWrong.Load(); n != 0 {
		t.Errorf("%d stepped extra bounds differ from the board's", n)
	}
}

// Korf's instances that the 5-5-5 set solves quickly: the same optimal
// lengths with the dual lookups, in fewer nodes.
func TestDualSolverKorf555(t *testing.T) {
	pdbs := partition(t, Partition555)
	s, err := NewSet(pdbs...)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := NewSolver(s, true)
	if err != nil {
		t.Fatal(err)
	}
	reg.interleave = false
	dual, err := newDualSolver(s, true, dualOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var nr, nd int64
	for _, k := range instances.Korf100() {
		if !quickKorf[k.ID] {
			continue
		}
		or, err := reg.Solve(k.Cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		od, err := dual.Solve(k.Cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if len(od.Path) != k.Opt || !od.Optimal || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, od.Path)) {
			t.Fatalf("#%d: %d moves, optimum %d", k.ID, len(od.Path), k.Opt)
		}
		nr, nd = nr+or.Nodes, nd+od.Nodes
	}
	t.Logf("nodes: regular %d, with the dual lookups %d", nr, nd)
	if nd >= nr {
		t.Errorf("the dual lookups expand %d nodes, the regular search %d", nd, nr)
	}
}

// The reflected lookup of a partition whose patterns the reflection maps
// onto themselves is the direct one: the dual search skips it.
func TestSymmetricPartition(t *testing.T) {
	sym, err := NewSet(build(t, 3, 3, []uint8{1, 2, 4, 5}, Options{}), build(t, 3, 3, []uint8{3, 6, 7, 8}, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	asym, err := NewSet(build(t, 3, 3, []uint8{1, 2, 3, 4}, Options{}), build(t, 3, 3, []uint8{5, 6, 7, 8}, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if !sym.symmetric() || asym.symmetric() {
		t.Fatalf("symmetric: %v and %v", sym.symmetric(), asym.symmetric())
	}
	tb, _ := bfsTable(t, 3, 3)
	cells := make([]uint8, 9)
	var pos Positions
	for i := uint64(0); i < tb.Size(); i += 7 {
		tb.Cells(i, cells)
		PositionsOf(cells, &pos)
		if sym.H(&pos) != sym.HReflected(&pos) {
			t.Fatalf("%v: direct %d, reflected %d", cells, sym.H(&pos), sym.HReflected(&pos))
		}
	}
}

// The regular bound is not consistent either (an entry is minimised over
// the blank's region): some move changes it by more than one, which is
// why pathmax alone saves nodes.
func TestRegularBoundInconsistent(t *testing.T) {
	s, err := NewSet(partition(t, Partition555)...)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	worst := 0
	for range 2000 {
		cells := puzzle.Random(spec, rng).Cells
		var pos, next Positions
		PositionsOf(cells, &pos)
		h, b := s.H(&pos), int(pos[0])
		for _, nb := range []int{b - 4, b + 4, b - 1, b + 1} {
			if nb < 0 || nb >= 16 || (nb == b-1 && b%4 == 0) || (nb == b+1 && b%4 == 3) {
				continue
			}
			next = pos
			next[cells[nb]], next[0] = uint8(b), uint8(nb)
			d := s.H(&next) - h
			worst = max(worst, d, -d)
		}
	}
	t.Logf("largest change of the 5-5-5 bound in one move: %d", worst)
	if worst < 2 {
		t.Errorf("the bound changed by at most %d in one move", worst)
	}
}
