package twophase

import (
	"github.com/tessera-solver/tessera/internal/bfs"
	"github.com/tessera-solver/tessera/internal/perm"
)

// Phase-2 region: the 16 cells outside the block, numbered 0..15 in
// row-major order.
// regionIdx maps a cell to its region number (0xff: block). transpose[x]
// is cell x reflected in the main diagonal; the block and the region map
// onto themselves.
var regionCells, regionIdx, transpose = makeRegion()

func makeRegion() (regionCells [16]uint8, regionIdx, transpose [cells]uint8) {
	n := 0
	for x := 0; x < cells; x++ {
		transpose[x] = uint8(x%side*side + x/side)
		regionIdx[x] = 0xff
		if x/side >= 3 || x%side >= 3 {
			regionCells[n] = uint8(x)
			regionIdx[x] = uint8(n)
			n++
		}
	}
	return
}

// pdb2 is a pattern database of phase 2: the exact cells of the six
// pieces of the free columns in the block's rows (D E I J N O) under the
// eight phase-2 shifts, by BFS from the goal. They cannot move sideways
// without first being carried into a free row, which the walking distance,
// counting rows only, does not see (it adds about 0.6 to the mean bound).
// It is looked up also on the transposed board (the six pieces under the
// block) and on the inverse board, each admissible.
//
// The index is a pair of triples, each the dense rank of three distinct
// region numbers (16·15·14 = 3360), so a move is two reads of a small
// transition table: the BFS costs no ranking.
type pdb2 struct {
	dist []uint8 // rank3(D E I)·3360 + rank3(J N O) → distance
}

// p2Arm are the goal cells of the pattern pieces.
var p2Arm = [6]uint8{3, 4, 8, 9, 13, 14}

const n3 = 16 * 15 * 14

// rank3 maps three packed region numbers (a | b<<4 | c<<8) to a dense
// index; trans3 is that index after each phase-2 move.
var rank3, trans3 = makeTriples()

// The dense index is the 3-of-16 partial permutation rank of (c, b, a):
// the distinct triples numbered in increasing order of the packed value.
func makeTriples() (rank [4096]uint16, trans [n3][8]uint16) {
	var unpack [n3]uint16
	p3 := perm.NewPartial(16, 3)
	for v := 0; v < 4096; v++ {
		a, b, c := v&15, v>>4&15, v>>8
		if a != b && a != c && b != c {
			r := p3.Rank([]uint8{uint8(c), uint8(b), uint8(a)})
			rank[v] = uint16(r)
			unpack[r] = uint16(v)
		}
	}
	for i, v := range unpack {
		for m := range p2Region {
			t := &p2Region[m]
			w := int(t[v&15]) | int(t[v>>4&15])<<4 | int(t[v>>8])<<8
			trans[i][m] = rank[w]
		}
	}
	return
}

func newPDB2() *pdb2 {
	var r [6]int
	for i, g := range p2Arm {
		r[i] = int(regionIdx[g])
	}
	start := int(rank3[r[0]|r[1]<<4|r[2]<<8])*n3 + int(rank3[r[3]|r[4]<<4|r[5]<<8])
	dist, _, err := bfs.Serial(n3*n3, []int{start}, func(v int, out []int) []int {
		a, b := &trans3[v/n3], &trans3[v%n3]
		for m := 0; m < 8; m++ {
			out = append(out, int(a[m])*n3+int(b[m]))
		}
		return out
	})
	if err != nil {
		// The moves and the index are fixed: sixteen levels (TestArmPDB).
		panic(err)
	}
	return &pdb2{dist: dist}
}

// pdb2States is the number of placements of the six pieces, 16!/10!.
const pdb2States = 16 * 15 * 14 * 13 * 12 * 11

// h is the bound for the pattern pieces' cells given by where[piece] (the
// board's piece positions, or the board itself for the inverse), through
// cell map cmap (identity or transpose) and piece map pmap.
func (t *pdb2) h(where *board, pmap, cmap *[cells]uint8) int {
	var r [6]int
	for i, g := range p2Arm {
		r[i] = int(regionIdx[cmap[where[pmap[g]]]])
	}
	return int(t.dist[int(rank3[r[0]|r[1]<<4|r[2]<<8])*n3+int(rank3[r[3]|r[4]<<4|r[5]<<8])])
}

// p2Region[m][r] is region number r after phase-2 move m (0..7 of p2Moves).
var p2Region = func() (t [8][16]uint8) {
	for i, m := range p2Moves {
		for r, x := range regionCells {
			t[i][r] = regionIdx[dest[m][x]]
		}
	}
	return t
}()
