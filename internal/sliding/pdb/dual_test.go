package pdb

import (
	"fmt"
	"testing"
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
			corr := dualCorrections(s)
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
				hd := s.dualH(&board, b, corr, s.square)
				if hd > d {
					t.Fatalf("%v: dual bound %d, distance %d", cells, hd, d)
				}
				if hd > hr {
					above++
				}
				sumR += hr
				sumD += max(hr, hd)
				if b == n-1 {
					dualPositions(n, &board, b, &dpos)
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
