package loopover

import "github.com/tessera-solver/tessera/internal/search"

// Solve runs IDA* from cells (1..n row-major) to the goal. Path holds
// move codes (see Moves). When the budget runs out it returns
// search.ErrBudgetExceeded with the lower bound proved so far. The caller
// checks solvability: on an unreachable board the search runs until its
// budget ends it.
func (s *Solver) Solve(cells []uint8, bud search.Budget) (search.Outcome, error) {
	return s.SolveParallel(cells, bud, 1)
}

// SolveParallel is Solve on up to workers goroutines (workers ≤ 1: alone).
// Small iterations run alone; once one passes search.ParallelAbove nodes,
// the following ones share their subtrees among the workers (see
// internal/search). The answer is as short as the one-worker answer but
// may be another path; Nodes counts every worker's nodes.
func (s *Solver) SolveParallel(cells []uint8, bud search.Budget, workers int) (search.Outcome, error) {
	b, err := s.Root(cells)
	if err != nil {
		return search.Outcome{}, err
	}
	w := NewWork(s, b, bud)
	iter := func(w *Work) (int, bool) { return w.dfs(0, b.RC, b.CC, b.HR, b.HC, b.Par, 0xff, 0) }
	t := NewTree(&w, &w, iter, func(c *Work) (*Work, *Work) { return c, c })
	return search.Deepen(t, search.Deepening{H0: s.Bound(&b), Workers: workers})
}

// dfs explores below a node at depth g. last is the previous move code
// (0xff at the root) and run how many unit shifts of last's line in last's
// direction end the path.
func (w *Work) dfs(g int, rc, cc [MaxSide]uint32, hr, hc, par int, last uint8, run int) (int, bool) {
	if w.Skip(g) {
		return 0, false
	}
	if w.Gate.Visit() {
		return 0, false
	}
	if hr+hc == 0 {
		return g, true // every row holds its own pieces and every column too: solved
	}
	s := w.Solver
	lastAxis, lastLine, lastDir := uint8(2), uint8(0), uint8(0)
	if last != 0xff {
		lastAxis, lastLine, lastDir = s.axis[last], s.line[last], s.dir[last]
	}
	cells := &w.B.Cells
	// Children within the bound are collected first and expanded those
	// whose bound dropped first: the last iteration stops at the first
	// solution, and it lies below a dropping bound far more often.
	var kids [4 * MaxSide]child
	nk, down := 0, 0
	for m := 0; m < s.nm; m++ {
		ax, ln, dr := s.axis[m], s.line[m], s.dir[m]
		nrun := 1
		if ax == lastAxis {
			if ln < lastLine {
				continue // shifts of different lines commute: take them in line order
			}
			if ln == lastLine {
				if dr != lastDir {
					continue
				}
				nrun = run + 1
			}
		}
		if nrun > s.maxRun[ax][dr] {
			continue
		}
		npar := par ^ s.movPar[ax]
		// The shift changes one code per perpendicular line: the piece
		// leaving cell k for its neighbour and the one arriving from src.
		mv := &s.mv[m]
		codes, shift, mask, old := &cc, uint8(0), uint8(ColMask), hc
		if ax == AxisCol {
			codes, shift, mask, old = &rc, 3, 0xff, hr
		}
		k := &kids[nk]
		var nh int
		if s.emdR != nil {
			// Every piece of the line moves one cell: its displacement
			// class d (goal line − line, cyclically) becomes d∓1.
			e := s.emdC
			if ax == AxisCol {
				e = s.emdR
			}
			delta, L, x := &e.Down, e.Lines, int(codes[0])
			if dr == 1 {
				delta = &e.Up
			}
			for i := 0; i < mv.n; i++ {
				d := int((cells[mv.cell[i]]>>shift)&mask) - i
				if d < 0 {
					d += L
				}
				x += delta[d]
			}
			k.codes[0] = uint32(x)
			nh = int(e.Dist[x])
		} else {
			t := s.cols
			if ax == AxisCol {
				t = s.rows
			}
			// The last perpendicular line's code is not computed (the
			// child's stays zero): the index leaves it out (the last
			// line holds what the others do not) and a line's next code
			// follows from its own, so no bound ever reads it.
			L, x := t.Lines, 0
			for i := 0; i < mv.n-1; i++ {
				out := (cells[mv.cell[i]] >> shift) & mask
				in := (cells[mv.src[i]] >> shift) & mask
				nc := t.Trans[(int(codes[i])*L+int(out))*L+int(in)]
				k.codes[i] = uint32(nc)
				x += int(nc) * t.Mul[i]
			}
			// The table read waits for the second pass, so that the
			// children's reads (cache misses in a big table) overlap.
			k.x, k.m, k.run, k.par, k.old = uint32(x), uint8(m), uint8(nrun), uint8(npar), uint8(old)
			nk++
			continue
		}
		var f int
		if ax == AxisRow {
			f = g + 1 + s.hval(hr, nh, npar)
		} else {
			f = g + 1 + s.hval(nh, hc, npar)
		}
		if f > w.Bound {
			if f < w.Next {
				w.Next = f
			}
			continue
		}
		k.m, k.h, k.run, k.par = uint8(m), uint8(nh), uint8(nrun), uint8(npar)
		if nh < old {
			kids[nk], kids[down] = kids[down], kids[nk]
			down++
		}
		nk++
	}
	if s.emdR == nil {
		nk = w.bound2(&kids, nk, g, hr, hc)
	}
	for i := 0; i < nk; i++ {
		k := &kids[i]
		m := int(k.m)
		w.Shift(m)
		w.Path[g] = k.m
		var d int
		var ok bool
		if s.axis[m] == AxisRow {
			d, ok = w.dfs(g+1, rc, k.codes, hr, int(k.h), int(k.par), k.m, int(k.run))
		} else {
			d, ok = w.dfs(g+1, k.codes, cc, int(k.h), hc, int(k.par), k.m, int(k.run))
		}
		if ok {
			return d, true
		}
		w.Shift(m ^ 1) // the opposite shift undoes it
		if w.Gate.Stopped {
			return 0, false
		}
	}
	return 0, false
}

// child is a move within the bound and the position it leads to.
type child struct {
	codes          [MaxSide]uint32 // the changed axis's line codes (EMD: its index)
	x              uint32          // walking distance: the changed axis's index
	m, h, run, par uint8
	old            uint8 // the changed axis's bound at the parent
}

// bound2 is the walking-distance search's second pass over the nk
// candidate children: it reads their bounds, keeps those within the
// bound (the ones whose bound dropped first) and returns how many.
func (w *Work) bound2(kids *[4 * MaxSide]child, nk, g, hr, hc int) int {
	s := w.Solver
	n, down := 0, 0
	for i := 0; i < nk; i++ {
		k := kids[i]
		var f int
		if s.axis[k.m] == AxisRow {
			k.h = s.cols.Dist[k.x]
			f = g + 1 + s.hval(hr, int(k.h), int(k.par))
		} else {
			k.h = s.rows.Dist[k.x]
			f = g + 1 + s.hval(int(k.h), hc, int(k.par))
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
	return n
}
