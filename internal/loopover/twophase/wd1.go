package twophase

import "github.com/tessera-solver/tessera/internal/bfs"

// wd1 is the seed's small phase-1 walking distance, the fallback bound
// when the big table is missing: pieces are labelled by the block row they
// belong to (0, 1, 2) or 3 for the sixteen others, and each row is a
// multiset, kept as the counts of labels 0..2 (at most 3 each, at most 5
// together). A column shift carries one piece of each row to the next
// row, whichever piece a free row shift brought under it, so the BFS
// distance between patterns bounds the column shifts; the transposed
// board (labels = block columns) bounds the row shifts, and the two add.
type wd1 struct {
	codeOf [64]uint8  // n0 | n1<<2 | n2<<4 → row code (wd1None: invalid)
	counts [][3]uint8 // row code → counts
	dist   []uint8    // Σ code[r]·C^r over rows 0..3 → distance
}

const wd1None = 0xff

func newWD1() *wd1 {
	t := &wd1{}
	for i := range t.codeOf {
		t.codeOf[i] = wd1None
	}
	for n0 := 0; n0 <= 3; n0++ {
		for n1 := 0; n1 <= 3; n1++ {
			for n2 := 0; n2 <= 3; n2++ {
				if n0+n1+n2 <= side {
					t.codeOf[n0|n1<<2|n2<<4] = uint8(len(t.counts))
					t.counts = append(t.counts, [3]uint8{uint8(n0), uint8(n1), uint8(n2)})
				}
			}
		}
	}
	C := len(t.counts)
	var goal [side][3]uint8
	for r := 0; r < 3; r++ {
		goal[r][r] = 3
	}
	dist, _, err := bfs.Serial(C*C*C*C, []int{t.index(&goal)}, func(i int, out []int) []int {
		// The pattern of index i: rows 0..3 from its digits, row 4 the
		// labelled pieces the others leave (three of each label).
		var p [side][3]uint8
		for r := 0; r < side-1; r++ {
			p[r] = t.counts[i%C]
			i /= C
			for l := range 3 {
				p[side-1][l] += p[r][l]
			}
		}
		for l := range 3 {
			p[side-1][l] = 3 - p[side-1][l]
		}
		// Choose the label x[r] leaving each row (3: an unlabelled
		// piece), for a shift down and up.
		var x [side]int
		var rec func(r int)
		rec = func(r int) {
			if r == side {
				for _, dir := range []int{1, side - 1} {
					q := p
					ok := true
					for s := 0; s < side; s++ {
						to := (s + dir) % side
						if x[s] < 3 {
							q[s][x[s]]--
							q[to][x[s]]++
						}
					}
					for s := 0; s < side && ok; s++ {
						n := int(q[s][0]) + int(q[s][1]) + int(q[s][2])
						ok = n <= side && q[s][0] <= 3 && q[s][1] <= 3 && q[s][2] <= 3
					}
					if !ok {
						continue
					}
					out = append(out, t.index(&q))
				}
				return
			}
			n := int(p[r][0]) + int(p[r][1]) + int(p[r][2])
			for l := 0; l < 3; l++ {
				if p[r][l] > 0 {
					x[r] = l
					rec(r + 1)
				}
			}
			if n < side {
				x[r] = 3
				rec(r + 1)
			}
		}
		rec(0)
		return out
	})
	if err != nil {
		// The moves and the index are fixed: nine levels (TestWD1Golden).
		panic(err)
	}
	t.dist = dist
	return t
}

func (t *wd1) index(p *[side][3]uint8) int {
	C := len(t.counts)
	idx := 0
	for r := side - 2; r >= 0; r-- {
		idx = idx*C + int(t.codeOf[p[r][0]|p[r][1]<<2|p[r][2]<<4])
	}
	return idx
}

// axis is the vertical (axis 0: lines = rows, labels = block rows) or
// horizontal (axis 1: the transpose) bound for the cells of the block
// pieces A B C F G H K L M, counted straight from the nine cells, which is
// cheaper than an update.
func (t *wd1) axis(pos *[9]uint8, axis int) int {
	var key [side]uint8
	for i, x := range pos {
		if axis == 0 {
			key[x/side] += 1 << (2 * (i / 3))
		} else {
			key[x%side] += 1 << (2 * (i % 3))
		}
	}
	C := len(t.counts)
	idx := 0
	for r := side - 2; r >= 0; r-- {
		idx = idx*C + int(t.codeOf[key[r]])
	}
	return int(t.dist[idx])
}
