package ida55

import (
	"math/bits"

	"github.com/tessera-solver/tessera/internal/loopover"
)

// dfs55 is dfs for the 5×5 board with walking distance (the board is odd
// by odd, so there is no parity rule: the bound is hr + hc).
//
// rc and cc are the line codes of the first four rows and columns: the
// pattern index reads only those (the last line holds what the others do
// not), and a line's code follows from its own code alone, so the last
// line's is never needed.
//
// With a pattern bound (Solver.pat), nd is the node's piece positions and
// slot values, and the children within the walking-distance bound meet the
// pattern too (pattern55).
func (w *work) dfs55(g int, rc, cc codes55, hr, hc int, last uint8, run int, nd *node55) (int, bool) {
	if w.Skip(g) {
		return 0, false
	}
	if w.Gate.Visit() {
		return 0, false
	}
	if hr+hc == 0 {
		return g, true
	}
	s := w.Solver
	lastAxis, lastLine, lastDir := uint8(2), uint8(0), uint8(0)
	if last != 0xff {
		lastAxis, lastLine, lastDir = s.Move(last)
	}
	cells := &w.B.Cells
	kids := &w.k55[g]
	nk := 0
	// One table serves both axes (the board is square).
	tab, _ := s.Tables()
	tr := tab.Trans
	for ax := uint8(0); ax < 2; ax++ {
		codes, old := &cc, hc
		if ax == loopover.AxisCol {
			codes, old = &rc, hr
		}
		for ln := uint8(0); ln < side; ln++ {
			// Shifts of one axis commute across lines: take them in line
			// order; on the last move's line, only the same way, at most
			// two in a row (a line of five never needs three).
			dirs, nrun := 3, 1
			if ax == lastAxis {
				if ln < lastLine {
					continue
				}
				if ln == lastLine {
					if run >= 2 {
						continue
					}
					dirs, nrun = 1<<lastDir, run+1
				}
			}
			// The labels of the line's cells, in line order: goal
			// columns along a row (what row shifts move between
			// columns), goal rows down a column.
			var lab [side]uint8
			if ax == loopover.AxisRow {
				row := cells[int(ln)*side : int(ln)*side+side]
				for i := range lab {
					lab[i] = row[i] & loopover.ColMask
				}
			} else {
				for i := range lab {
					lab[i] = cells[i*side+int(ln)] >> 3
				}
			}
			// Perpendicular line i loses the piece at position i of
			// this line and gains its neighbour's: the one before it
			// (right, down) or after it (left, up).
			var base [side - 1]int
			for i := range base {
				base[i] = (int(codes[i])*side + int(lab[i])) * side
			}
			if dirs&1 != 0 {
				k := &kids[nk]
				k.codes = codes55{tr[base[0]+int(lab[4])], tr[base[1]+int(lab[0])], tr[base[2]+int(lab[1])], tr[base[3]+int(lab[2])]}
				k.x = index55(&k.codes)
				k.m, k.run, k.old = 2*side*ax+2*ln, uint8(nrun), uint8(old)
				nk++
			}
			if dirs&2 != 0 {
				k := &kids[nk]
				k.codes = codes55{tr[base[0]+int(lab[1])], tr[base[1]+int(lab[2])], tr[base[2]+int(lab[3])], tr[base[3]+int(lab[4])]}
				k.x = index55(&k.codes)
				k.m, k.run, k.old = 2*side*ax+2*ln+1, uint8(nrun), uint8(old)
				nk++
			}
		}
	}
	// Second pass: the table reads, together so that their cache misses
	// overlap; keep the children within the bound, those whose bound
	// dropped first.
	dist := tab.Dist
	n, down := 0, 0
	for i := 0; i < nk; i++ {
		k := kids[i]
		k.h = dist[k.x]
		var f int
		if ax, _, _ := s.Move(k.m); ax == loopover.AxisRow {
			f = g + 1 + hr + int(k.h)
		} else {
			f = g + 1 + int(k.h) + hc
		}
		if f > w.Bound {
			if f < w.Next {
				w.Next = f
			}
			continue
		}
		kids[n] = k
		if k.h < k.old {
			kids[n], kids[down] = kids[down], kids[n]
			down++
		}
		n++
	}
	var nds *[4 * side]node55
	live := ^uint32(0)
	if nd != nil && n > 0 {
		nds = &w.n55[g]
		live = w.pattern55(g, kids, n, nd, nds)
	}
	for i := 0; i < n; i++ {
		if live>>i&1 == 0 {
			continue
		}
		k := &kids[i]
		m := int(k.m)
		w.Shift(m)
		w.Path[g] = k.m
		var knd *node55
		if nds != nil {
			knd = &nds[i]
		}
		var d int
		var ok bool
		if ax, _, _ := s.Move(k.m); ax == loopover.AxisRow {
			d, ok = w.dfs55(g+1, rc, k.codes, hr, int(k.h), k.m, int(k.run), knd)
		} else {
			d, ok = w.dfs55(g+1, k.codes, cc, int(k.h), hc, k.m, int(k.run), knd)
		}
		if ok {
			return d, true
		}
		w.Shift(m ^ 1)
		if w.Gate.Stopped {
			return 0, false
		}
	}
	return 0, false
}

// index55 is the table index of a pattern's line codes (the last line's
// follows from the others).
func index55(c *codes55) uint32 {
	return uint32(c[0]) + uint32(c[1])*nCodes55 + uint32(c[2])*(nCodes55*nCodes55) + uint32(c[3])*(nCodes55*nCodes55*nCodes55)
}

// pattern55 meets the n children of a node at depth g (state nd) that are
// within the walking-distance bound with the pattern bound: it writes each
// one's state into out and returns the set of those that the pattern does
// not prune.
//
// A child's slot value is at most its parent's plus one, and equal when
// the move touched none of the slot's pieces, so only the slots whose
// parent value is at least the children's limit can prune and are read
// (the parent's values are at most the limit plus one: its own limit);
// the others become upper bounds. Values above the limit first, which
// prune the most.
func (w *work) pattern55(g int, kids *kids55, n int, nd *node55, out *[4 * side]node55) uint32 {
	p := w.pat
	lim := w.Bound - g - 1
	ns := len(p.slots)
	pv := nd.vals()
	// The candidates: bytes whose value (flag off) is at least lim, in
	// four classes: exact above lim, exact at lim, bounds above, at.
	var cls [4][maxSlots55]uint8
	var ncl [4]int
	const ones, his = 0x0101010101010101, 0x8080808080808080
	if lim <= 0x80 {
		add := uint64(0x80-lim) * ones
		for wi := 0; wi < (ns+7)/8; wi++ {
			for b := (nd.sv[wi]&^his + add) & his; b != 0; b &= b - 1 {
				s := wi*8 + bits.TrailingZeros64(b)>>3
				if s >= ns {
					break
				}
				c := int(pv[s]>>6) & 2
				if int(pv[s]&^flag55) == lim {
					c++
				}
				cls[c][ncl[c]] = uint8(s)
				ncl[c]++
			}
		}
	}
	var cand [maxSlots55]uint8
	nc := 0
	for c := range cls {
		nc += copy(cand[nc:], cls[c][:ncl[c]])
	}
	// The children's positions, the pieces each move touches, and their
	// slot values as upper bounds.
	cells := &w.B.Cells
	var mm [4 * side]uint32
	for i := 0; i < n; i++ {
		o := &out[i]
		o.pos = nd.pos
		mv := &move55[kids[i].m]
		var mask uint32
		for j := 0; j < side; j++ {
			pc := pieceIdx55[cells[mv.at[j]]]
			o.pos[pc] = mv.to[j]
			mask |= 1 << pc
		}
		mm[i] = mask
		for wi := range (ns + 7) / 8 {
			o.sv[wi] = (nd.sv[wi] + ones) | his
		}
	}
	live := uint32(1)<<n - 1
	var rk [round55 + 4*side]uint64
	var at [round55 + 4*side]uint16
	var nb [round55 + 4*side]uint8
	nib := p.nib
	for c := 0; c < nc && live != 0; {
		// A round: slots in order until it holds round55 reads (or the
		// candidates end), every live child's read of each.
		nr := 0
		for ; c < nc && nr < round55; c++ {
			s := cand[c]
			v := pv[s]
			sl := &p.slots[s]
			for l := live; l != 0; l &= l - 1 {
				i := bits.TrailingZeros32(l)
				if v&flag55 == 0 && sl.mask&mm[i] == 0 {
					out[i].vals()[s] = v
					if int(v) > lim {
						live &^= 1 << i
						w.prune55(g, int(v))
					}
					continue
				}
				rk[nr] = p.index(sl, &out[i].pos)
				at[nr] = uint16(i<<8 | int(s))
				nr++
			}
		}
		// The reads, with nothing between them that depends on what
		// they return.
		for x := 0; x < nr; x++ {
			nb[x] = nib[rk[x]>>1]
		}
		for x := 0; x < nr; x++ {
			i, s := at[x]>>8, at[x]&0xff
			v := nb[x] >> (4 * (rk[x] & 1)) & 15
			out[i].vals()[s] = v
			if int(v) > lim && live>>i&1 != 0 {
				live &^= 1 << i
				w.prune55(g, int(v))
			}
		}
	}
	return live
}

// prune55 lowers the next iteration's bound to a child's (at depth g+1)
// whose pattern value p exceeds its limit.
func (w *work) prune55(g, p int) {
	if f := g + 1 + p; f < w.Next {
		w.Next = f
	}
}
