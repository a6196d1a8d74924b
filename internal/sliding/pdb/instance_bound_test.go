package pdb

import (
	"fmt"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/search"
)

// The instance tables' bound never exceeds the distance: for starts
// spread over the 3x3 and 2x4 boards and A* stopped early, late or
// never, the bounds summed over a partition are at most the BFS distance
// of every state of the board; closed everywhere they are exact for a
// pattern of every tile.
func TestInstanceBoundAdmissible(t *testing.T) {
	for _, c := range []struct {
		w, h  int
		parts [][][]uint8
	}{
		{3, 3, [][][]uint8{{{1, 2, 3, 4}, {5, 6, 7, 8}}, {{1, 2, 4}, {3, 5, 6}, {7, 8}}, {{1, 2, 3, 4, 5, 6, 7, 8}}}},
		{4, 2, [][][]uint8{{{1, 2, 5, 6}, {3, 4, 7}}}},
	} {
		tb, dist := bfsTable(t, c.w, c.h)
		n := c.w * c.h
		g, err := newGeom(c.h, c.w)
		if err != nil {
			t.Fatal(err)
		}
		start, cells := make([]uint8, n), make([]uint8, n)
		for pi, part := range c.parts {
			for _, maxClosed := range []int{1, 300, 1 << 30} {
				t.Run(fmt.Sprintf("%dx%d-%d-%d", c.h, c.w, pi, maxClosed), func(t *testing.T) {
					var above, exact int
					var pos Positions
					for si := uint64(7); si < tb.Size(); si += tb.Size() / 3 {
						tb.Cells(si, start)
						var at [32]uint8
						for x, v := range start {
							at[v] = uint8(x)
						}
						var pats []*idPattern
						for _, tiles := range part {
							st := make([]uint8, len(tiles))
							for i, tl := range tiles {
								st[i] = at[tl]
							}
							p, err := buildIDPattern(&g, tiles, st, maxClosed)
							if err != nil {
								t.Fatal(err)
							}
							pats = append(pats, p)
						}
						for i := uint64(0); i < tb.Size(); i++ {
							tb.Cells(i, cells)
							PositionsOf(cells, &pos)
							h := 0
							for _, p := range pats {
								h += p.bound(p.place(&pos))
							}
							if d := int(dist[i]); h > d {
								t.Fatalf("start %v, %v: bound %d, distance %d", start, cells, h, d)
							} else if h == d {
								exact++
							}
							if i == si && h > 0 {
								above++
							}
						}
					}
					if above == 0 {
						t.Error("no start has a bound above 0")
					}
					if len(part) == 1 && maxClosed == 1<<30 && exact != 3*int(tb.Size()) {
						t.Errorf("every tile, closed everywhere: exact on %d of %d", exact, 3*tb.Size())
					}
				})
			}
		}
	}
}

// Over the instance tables the search stays optimal: strided 3x3 states,
// each with its own tables, answers replayed and as long as the BFS
// distance.
func TestInstanceSolverOptimal3x3(t *testing.T) {
	tb, dist := bfsTable(t, 3, 3)
	s, err := NewSet(build(t, 3, 3, []uint8{1, 2, 3, 4}, Options{}), build(t, 3, 3, []uint8{5, 6, 7, 8}, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	part := [][]uint8{{1, 2, 4}, {3, 5, 6}, {7, 8}}
	cells := make([]uint8, 9)
	for i := uint64(0); i < tb.Size(); i += 97 {
		tb.Cells(i, cells)
		sv, _, err := newInstanceSolver(s, i%2 == 0, cells, part, 20+int(i%300))
		if err != nil {
			t.Fatal(err)
		}
		out, err := sv.Solve(cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if !coretest.SlidingSolved(coretest.SlidePath(3, cells, out.Path)) || len(out.Path) != int(dist[i]) || !out.Optimal {
			t.Fatalf("%v: %d moves, distance %d", cells, len(out.Path), dist[i])
		}
	}
}
