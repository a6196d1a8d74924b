package construct

import (
	"sync"

	"github.com/tessera-solver/tessera/internal/perm"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// On boards with R+C−1 > 9 the last row (n cells) and a buffer cell, the
// one above its last cell, are finished from a table over the
// arrangements of their pieces: for each, the first macro of a cheapest
// macro sequence that solves it (Dijkstra from the solved arrangement).
// Macros:
//   - the row's rotations (1 move);
//   - B(s) = [column n−1 down, row by s], a 3-cycle of the buffer, the
//     row's last cell and the cell s along (2+2|s| moves), and its inverse;
//   - pure 3-cycles of the row, P(j, a, c) = Q(a)·Q(c)⁻¹ where Q(s) =
//     [column j, row by s] is a 3-cycle of two row cells and a cell off the
//     row that cancels out (4+|a|+|c|+|a−c| moves, 8 for three
//     neighbours).
//
// Every macro is checked by simulation on boards of several heights to
// move nothing outside the region, so one table serves every height.

// step is one shift of a macro: column j by k, or the row by k.
type step struct {
	col  bool
	j, k int8
}

type macro struct {
	steps []step
	// perm: after the macro, region point x holds what point perm[x] held
	// (points 0..n−1 are the row, n the buffer).
	perm [maxL]uint8
	cost int
}

const noMacro = 255

type lineTable struct {
	macros []macro
	// next[rank(arrangement)] is the macro to apply next, noMacro when
	// the arrangement is solved (or unreachable).
	next []uint8
}

var (
	lineOnce   [puzzle.MaxSide + 1]sync.Once
	lineTables [puzzle.MaxSide + 1]*lineTable
)

// lineTableFor is built on first use: at most 9! entries, a quarter of a
// second for n = 8 and a few milliseconds for n ≤ 6.
func lineTableFor(n int) *lineTable {
	lineOnce[n].Do(func() { lineTables[n] = buildLineTable(n) })
	return lineTables[n]
}

// fullPerm[n] ranks the permutations of n points (Lehmer code), the index
// of the line and L tables.
var fullPerm = func() (t [maxL + 1]perm.Partial) {
	for n := 1; n <= maxL; n++ {
		t[n] = perm.Full(n)
	}
	return t
}()

// rank is the Lehmer rank of a permutation of 0..n−1; the identity is 0.
func rank(p []uint8) int { return int(fullPerm[len(p)].Rank(p)) }

// effect simulates steps on a board of h rows and n columns whose last row
// is the line and returns the permutation of the region, or ok = false if
// anything outside it moved.
func effect(steps []step, h, n int) (perm [maxL]uint8, ok bool) {
	var b [maxCells]uint8
	for i := 0; i < h*n; i++ {
		b[i] = uint8(i)
	}
	var tmp [puzzle.MaxSide]uint8
	for _, st := range steps {
		if st.col {
			j := int(st.j)
			for i := 0; i < h; i++ {
				tmp[i] = b[mod(i+int(st.k), h)*n+j]
			}
			for i := 0; i < h; i++ {
				b[i*n+j] = tmp[i]
			}
		} else {
			base := (h - 1) * n
			for j := 0; j < n; j++ {
				tmp[j] = b[base+mod(j+int(st.k), n)]
			}
			copy(b[base:base+n], tmp[:n])
		}
	}
	buf := (h-1)*n - 1
	point := func(c int) int {
		switch {
		case c >= (h-1)*n:
			return c - (h-1)*n
		case c == buf:
			return n
		}
		return -1
	}
	for c := 0; c < h*n; c++ {
		pc, pb := point(c), point(int(b[c]))
		if pc < 0 && b[c] != uint8(c) || pc >= 0 && pb < 0 {
			return perm, false
		}
		if pc >= 0 {
			perm[pc] = uint8(pb)
		}
	}
	return perm, true
}

func buildLineTable(n int) *lineTable {
	t := &lineTable{}
	size := n + 1
	// With 9 points only the 8-move pure 3-cycles are kept: the others are
	// rarely on a cheapest path and would make the table slow to build.
	pMax := 1 << 30
	if size > 8 {
		pMax = 8
	}
	add := func(maxCost int, steps ...step) {
		cost := 0
		for _, st := range steps {
			cost += dist(int(st.k), n)
		}
		if cost > maxCost {
			return
		}
		var perm [maxL]uint8
		for h := 3; h <= 5; h++ {
			p, ok := effect(steps, h, n)
			if !ok || (h > 3 && p != perm) {
				return
			}
			perm = p
		}
		id := true
		for x := 0; x < size; x++ {
			id = id && perm[x] == uint8(x)
		}
		if id {
			return
		}
		for i := range t.macros {
			if t.macros[i].perm == perm {
				if cost < t.macros[i].cost {
					t.macros[i] = macro{steps: steps, perm: perm, cost: cost}
				}
				return
			}
		}
		t.macros = append(t.macros, macro{steps: steps, perm: perm, cost: cost})
	}
	add(1, step{k: 1})
	add(1, step{k: -1})
	last := int8(n - 1)
	for s := 1; s < n; s++ {
		k := int8(short(s, n))
		add(1<<30, step{col: true, j: last, k: -1}, step{k: k}, step{col: true, j: last, k: 1}, step{k: -k})
		add(1<<30, step{k: k}, step{col: true, j: last, k: -1}, step{k: -k}, step{col: true, j: last, k: 1})
	}
	for j := int8(0); j < int8(n); j++ {
		for a := 1; a < n; a++ {
			for c := 1; c < n; c++ {
				if a == c {
					continue
				}
				for _, u := range []int8{1, -1} {
					add(pMax,
						step{col: true, j: j, k: u}, step{k: int8(short(a, n))}, step{col: true, j: j, k: -u},
						step{k: int8(short(c-a, n))},
						step{col: true, j: j, k: u}, step{k: int8(short(-c, n))}, step{col: true, j: j, k: -u})
				}
			}
		}
	}
	t.next = shortest(size, t.macros)
	return t
}

// packed is an arrangement of at most 9 points, 4 bits per point, with its
// rank from bit 40 up.
type packed uint64

const rankShift = 40

// shortest runs Dijkstra (with a bucket queue: costs are small integers)
// from the solved arrangement backwards and returns, for each arrangement
// rank, the first macro of a cheapest solution. X reaches Y by macro m
// when Y[x] = X[perm[x]], so X[j] = Y[inv[j]] with inv the inverse of
// perm; X's rank is computed as it is gathered.
func shortest(size int, macros []macro) []uint8 {
	total := int(fullPerm[size].Size())
	distTo := make([]uint8, total)
	for i := range distTo {
		distTo[i] = 255
	}
	next := make([]uint8, total)
	for i := range next {
		next[i] = noMacro
	}
	// The rank of each arrangement is computed while it is gathered: the
	// loop of perm.Partial.Rank fused with the gather, with its weights.
	var weight [16]int // of each position in the rank
	pr := &fullPerm[size]
	for j := 0; j < size; j++ {
		weight[j] = int(pr.Mul(j))
	}
	inv := make([][16]uint8, len(macros))
	for mi, m := range macros {
		for x := 0; x < size; x++ {
			inv[mi][m.perm[x]] = uint8(x)
		}
	}
	var id packed
	for x := 0; x < size; x++ {
		id |= packed(x) << (4 * x)
	}
	var buckets [][]packed
	push := func(d int, p packed) {
		for len(buckets) <= d {
			buckets = append(buckets, nil)
		}
		buckets[d] = append(buckets[d], p)
	}
	distTo[0] = 0
	push(0, id)
	for d := 0; d < len(buckets); d++ {
		for k := 0; k < len(buckets[d]); k++ {
			y := buckets[d][k]
			if int(distTo[y>>rankShift]) != d {
				continue // reached more cheaply since it was queued
			}
			for mi := range macros {
				nd := d + macros[mi].cost
				if nd >= 255 {
					continue
				}
				iv := &inv[mi]
				var x packed
				var used uint32
				r := 0
				for j := range size {
					v := uint(y>>(4*iv[j&15])) & 15
					r += int(perm.Digit(used, uint8(v))) * weight[j&15]
					used |= 1 << v
					x |= packed(v) << (4 * j)
				}
				if int(distTo[r]) > nd {
					distTo[r] = uint8(nd)
					next[r] = uint8(mi)
					push(nd, x|packed(r)<<rankShift)
				}
			}
		}
		buckets[d] = nil
	}
	return next
}
