package twophase

import "github.com/tessera-solver/tessera/internal/bfs"

// wd2 is the seed's phase-2 walking distance. Pieces are labelled by goal
// row (0..4). The six cells of the free columns in the block's rows (top
// cells, where no row shift reaches) keep their order; the two free rows
// are multisets, since their shifts are free. A column shift moves one
// piece of each free row (whichever a free row shift put under the
// column), so BFS over these patterns bounds the column shifts of phase 2.
// The transposed view (labels = goal columns, top cells in the free rows
// under the block, column 3 as the multiset) bounds the row shifts; the
// two add. Both bounds of the inverse board are admissible too (a
// solution read backwards, undone, solves the inverse with the same
// shifts), so the search takes the larger sum.
//
// A pattern is indexed by its top labels in base 5 and the code of the
// first free row's multiset; the second free row holds what is left.
type wd2 struct {
	midCode [1 << 15]uint8 // Σ 1<<(3·label) over a free row → code
	mid     [][5]uint8     // code → label counts
	dist    []uint8        // topCode·len(mid) + midCode → distance
	reached int
}

// wd2View names the cells one bound reads: the top cells in order, the
// first free row (or column), and the labelling (goal row or column of a
// piece, i.e. of its goal cell).
type wd2View struct {
	top [6]uint8
	mid [5]uint8
	lab [cells]uint8
}

var wd2Views = func() (v [2]wd2View) {
	// Vertical: top cells (0,3) (0,4) (1,3) (1,4) (2,3) (2,4), row 3.
	// Horizontal: their transposes and column 3.
	for i := 0; i < 6; i++ {
		r, c := i/2, 3+i%2
		v[0].top[i] = uint8(r*side + c)
		v[1].top[i] = uint8(c*side + r)
	}
	for i := 0; i < side; i++ {
		v[0].mid[i] = uint8(3*side + i)
		v[1].mid[i] = uint8(i*side + 3)
	}
	for x := 0; x < cells; x++ {
		v[0].lab[x] = uint8(x / side)
		v[1].lab[x] = uint8(x % side)
	}
	return v
}()

const wd2None = 0xff

var pow5 = [7]int{1, 5, 25, 125, 625, 3125, 15625}

// wd2Mids is the number of free-row multisets: 5 pieces over 5 labels.
const wd2Mids = 126

// wd2Entries is the size of the walking distance's index.
const wd2Entries = 15625 * wd2Mids

// newWD2Index builds the multiset codes, which are cheap; the distances
// come from newWD2's BFS or a table file.
func newWD2Index() *wd2 {
	t := &wd2{}
	for i := range t.midCode {
		t.midCode[i] = wd2None
	}
	var rec func(l, left int, c [5]uint8)
	rec = func(l, left int, c [5]uint8) {
		if l == 4 {
			c[4] = uint8(left)
			key := 0
			for j, n := range c {
				key += int(n) << (3 * j)
			}
			t.midCode[key] = uint8(len(t.mid))
			t.mid = append(t.mid, c)
			return
		}
		for n := 0; n <= left; n++ {
			c[l] = uint8(n)
			rec(l+1, left-n, c)
		}
	}
	rec(0, side, [5]uint8{})
	return t
}

// wd2From wraps distances stored in a table file (wd2Entries bytes).
func wd2From(dist []byte) *wd2 {
	t := newWD2Index()
	t.dist = dist
	return t
}

func newWD2() *wd2 {
	t := newWD2Index()
	M := len(t.mid)
	type pat struct {
		top      [6]uint8
		mid, low [5]uint8
	}
	index := func(p *pat) int {
		tc := 0
		for i := 5; i >= 0; i-- {
			tc = tc*5 + int(p.top[i])
		}
		key := 0
		for j, n := range p.mid {
			key += int(n) << (3 * j)
		}
		return tc*M + int(t.midCode[key])
	}
	goal := pat{top: [6]uint8{0, 0, 1, 1, 2, 2}, mid: [5]uint8{3: 5}, low: [5]uint8{4: 5}}
	// The pattern of index i: the top labels from its base-5 digits, the
	// first free row from its code, the second the pieces of each label
	// the others leave (as many as the goal holds).
	var total [5]uint8
	for _, l := range goal.top {
		total[l]++
	}
	for l := range total {
		total[l] += goal.mid[l] + goal.low[l]
	}
	decode := func(i int) (p pat) {
		tc := i / M
		for j := range p.top {
			p.top[j] = uint8(tc % 5)
			tc /= 5
		}
		p.mid = t.mid[i%M]
		p.low = total
		for l := range p.low {
			p.low[l] -= p.mid[l]
		}
		for _, l := range p.top {
			p.low[l]--
		}
		return p
	}
	expand := func(i int, out []int) []int {
		p := decode(i)
		for c := 0; c < 2; c++ {
			for x := uint8(0); x < 5; x++ { // leaves the first free row
				if p.mid[x] == 0 {
					continue
				}
				for y := uint8(0); y < 5; y++ { // leaves the second
					if p.low[y] == 0 {
						continue
					}
					down, up := p, p
					down.top[c], down.top[c+2], down.top[c+4] = y, p.top[c], p.top[c+2]
					down.mid[x]--
					down.mid[p.top[c+4]]++
					down.low[y]--
					down.low[x]++
					up.top[c], up.top[c+2], up.top[c+4] = p.top[c+2], p.top[c+4], x
					up.mid[x]--
					up.mid[y]++
					up.low[y]--
					up.low[p.top[c]]++
					out = append(out, index(&down), index(&up))
				}
			}
		}
		return out
	}
	dist, counts, err := bfs.Serial(pow5[6]*M, []int{index(&goal)}, expand)
	if err != nil {
		// The moves and the index are fixed: nine levels (TestWD2Golden).
		panic(err)
	}
	t.dist = dist
	for _, c := range counts {
		t.reached += int(c)
	}
	return t
}

// index is the pattern of view v of arr: the board (arr[cell] = piece)
// or the inverse board (arr[piece] = cell, which is a board of the
// inverse permutation).
func (t *wd2) index(arr *board, v *wd2View) int {
	tc := 0
	for i := 5; i >= 0; i-- {
		tc = tc*5 + int(v.lab[arr[v.top[i]]])
	}
	key := 0
	for _, x := range v.mid {
		key += 1 << (3 * v.lab[arr[x]])
	}
	return tc*len(t.mid) + int(t.midCode[key])
}

func (t *wd2) h(arr *board, v *wd2View) int { return int(t.dist[t.index(arr, v)]) }
