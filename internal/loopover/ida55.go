package loopover

// The 5×5 walking-distance search, specialised: the general dfs serves
// every shape through per-move cell lists, variable line counts and an
// array of children sized for 8×8 that it clears at every node. Here the
// sizes are constants, a line's labels are read once for both directions,
// the line codes are 16-bit, the children of each depth live in the
// search's own buffer, and the fifth line's codes are not kept (dfs55).
// Same bound, same move rules, same order of children as dfs, so the same
// nodes (TestDFS55MatchesGeneral).

const (
	side55   = 5
	nCodes55 = 126 // label multisets of a 5-cell line over 5 labels
)

// codes55 are the codes of the first four lines of an axis.
type codes55 [side55 - 1]uint16

// kid55 is a child within the bound: the changed axis's line codes and
// pattern index, its move, run and bound, and the axis's bound at the
// parent.
type kid55 struct {
	codes          codes55
	x              uint32
	m, run, h, old uint8
}

// kids55 is one depth's children: at most the five lines of each axis,
// both ways.
type kids55 [4 * side55]kid55

// uses55 reports whether s is the 5×5 walking-distance search over one
// table for both axes (the table file's), which dfs55 runs; the tests
// give two tables to run the general dfs on the same distances.
func (s *Solver) uses55() bool {
	return s.r == 5 && s.c == 5 && s.emdR == nil && s.rows == s.cols
}

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
	if g == w.split && !w.claim() {
		return 0, false
	}
	if w.gate.Visit() {
		return 0, false
	}
	if hr+hc == 0 {
		return g, true
	}
	s := w.Solver
	lastAxis, lastLine, lastDir := uint8(2), uint8(0), uint8(0)
	if last != 0xff {
		lastAxis, lastLine, lastDir = s.axis[last], s.line[last], s.dir[last]
	}
	cells := &w.b.cells
	kids := &w.k55[g]
	nk := 0
	// One table serves both axes (the board is square).
	tr := s.rows.Trans
	for ax := uint8(0); ax < 2; ax++ {
		codes, old := &cc, hc
		if ax == axisCol {
			codes, old = &rc, hr
		}
		for ln := uint8(0); ln < side55; ln++ {
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
			var lab [side55]uint8
			if ax == axisRow {
				row := cells[int(ln)*side55 : int(ln)*side55+side55]
				for i := range lab {
					lab[i] = row[i] & colMask
				}
			} else {
				for i := range lab {
					lab[i] = cells[i*side55+int(ln)] >> 3
				}
			}
			// Perpendicular line i loses the piece at position i of
			// this line and gains its neighbour's: the one before it
			// (right, down) or after it (left, up).
			var base [side55 - 1]int
			for i := range base {
				base[i] = (int(codes[i])*side55 + int(lab[i])) * side55
			}
			if dirs&1 != 0 {
				k := &kids[nk]
				k.codes = codes55{tr[base[0]+int(lab[4])], tr[base[1]+int(lab[0])], tr[base[2]+int(lab[1])], tr[base[3]+int(lab[2])]}
				k.x = index55(&k.codes)
				k.m, k.run, k.old = 2*side55*ax+2*ln, uint8(nrun), uint8(old)
				nk++
			}
			if dirs&2 != 0 {
				k := &kids[nk]
				k.codes = codes55{tr[base[0]+int(lab[1])], tr[base[1]+int(lab[2])], tr[base[2]+int(lab[3])], tr[base[3]+int(lab[4])]}
				k.x = index55(&k.codes)
				k.m, k.run, k.old = 2*side55*ax+2*ln+1, uint8(nrun), uint8(old)
				nk++
			}
		}
	}
	// Second pass: the table reads, together so that their cache misses
	// overlap; keep the children within the bound, those whose bound
	// dropped first.
	dist := s.rows.Dist
	n, down := 0, 0
	for i := 0; i < nk; i++ {
		k := kids[i]
		k.h = dist[k.x]
		var f int
		if s.axis[k.m] == axisRow {
			f = g + 1 + hr + int(k.h)
		} else {
			f = g + 1 + int(k.h) + hc
		}
		if f > w.bound {
			if f < w.next {
				w.next = f
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
	var nds *[4 * side55]node55
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
		w.shift(m)
		w.path[g] = k.m
		var knd *node55
		if nds != nil {
			knd = &nds[i]
		}
		var d int
		var ok bool
		if s.axis[m] == axisRow {
			d, ok = w.dfs55(g+1, rc, k.codes, hr, int(k.h), k.m, int(k.run), knd)
		} else {
			d, ok = w.dfs55(g+1, k.codes, cc, int(k.h), hc, k.m, int(k.run), knd)
		}
		if ok {
			return d, true
		}
		w.shift(m ^ 1)
		if w.gate.Stopped {
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
