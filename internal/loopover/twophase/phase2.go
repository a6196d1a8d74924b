package twophase

import "github.com/tessera-solver/tessera/internal/nibble"

// p2Moves are the shifts of phase 2: rows 3, 4 and columns 3, 4.
var p2Moves = [8]int{6, 7, 8, 9, 16, 17, 18, 19}

// p2Bounds are the bounds of a phase-2 node: the walking distances of the
// board (vertical, horizontal) and of its inverse, and the arm PDB on the
// board, its transpose, the inverse and the inverse's transpose. A child
// recomputes only what its move can change.
type p2Bounds struct {
	hv, hh, iv, ih int
	arm            [4]uint8
	// a8 and a8hi bound the eight-piece lookups from below and above
	// (equal when looked up): one shift changes a lookup of the board by
	// at most one, so one that cannot prune is not looked up. A shift
	// relabels the inverse's pieces, which can change its lookups by up
	// to six: a touched one is unknown.
	a8, a8hi [8]uint8
}

// look8 is eight-piece lookup k: arm8Sym[k] on the board's piece cells
// (k < 4) or arm8Sym[k-4] on the inverse board.
func (w *work) look8(k int) uint8 {
	where := &w.pos2
	if k >= 4 {
		where = &w.b2
	}
	i := arm8Index(where, k&3)
	return nibble.At(w.arm8, i)
}

// a8Touch[k][m] says whether phase-2 move m can change eight-piece lookup
// k (a lookup of the inverse reads the board at fixed cells), and
// a8Step[k] by how much at most: one for a lookup of the board, which
// follows its pieces through the shift, unknown (the table's 14) for one of
// the inverse.
var a8Step = [8]uint8{1, 1, 1, 1, 14, 14, 14, 14}

var a8Touch = func() (t [8][8]bool) {
	for i, m := range p2Moves {
		for k := 0; k < 4; k++ {
			t[k][i] = true
			for _, g := range arm8Cells {
				if dest[m][arm8Sym[k].pmap[g]] != arm8Sym[k].pmap[g] {
					t[k+4][i] = true
				}
			}
		}
	}
	return
}()

// p2Touch[k][m] says whether phase-2 move m (index into p2Moves) can
// change arm lookup k: the inverse lookups read the board at the arm's
// goal cells (columns 3, 4 of the block's rows, or their transposes), so
// only shifts through those cells change them.
var p2Touch = func() (t [4][8]bool) {
	for i, m := range p2Moves {
		col := axisOf(m) == 1
		t[0][i], t[1][i] = true, true
		t[2][i], t[3][i] = col, !col
	}
	return
}()

// armLookup is arm lookup k at the phase-2 board: the pieces' cells on
// the board (0) and on its transpose (1), and the same on the inverse
// board, where a piece's cell is what the board holds at its goal (2, 3).
func (w *work) armLookup(k int) uint8 {
	a := w.arm
	switch k {
	case 0:
		return uint8(a.h(&w.pos2, &identity, &identity))
	case 1:
		return uint8(a.h(&w.pos2, &transpose, &transpose))
	case 2:
		return uint8(a.h(&w.b2, &identity, &identity))
	}
	return uint8(a.h(&w.b2, &transpose, &transpose))
}

// phase2 completes the phase-1 solution in w.path[:p1len] by an optimal
// phase 2 shorter than what would improve on the best answer.
func (w *work) phase2() {
	w.setup2()
	t := w.wd2
	var hb p2Bounds
	hb.hv, hb.hh = t.h(&w.b2, &wd2Views[0]), t.h(&w.b2, &wd2Views[1])
	hb.iv, hb.ih = t.h(&w.pos2, &wd2Views[0]), t.h(&w.pos2, &wd2Views[1])
	h := max(hb.hv+hb.hh, hb.iv+hb.ih)
	limit := w.best - 1 - w.p1len
	if h > limit {
		return // the cheap bounds first: most phase-1 solutions end here
	}
	if w.arm8 != nil {
		// The eight-piece table holds the six-piece one's pieces.
		for k := range hb.a8 {
			v := w.look8(k)
			hb.a8[k], hb.a8hi[k] = v, v
			if h = max(h, int(v)); h > limit {
				return
			}
		}
	} else {
		for k := range hb.arm {
			hb.arm[k] = w.armLookup(k)
			h = max(h, int(hb.arm[k]))
		}
	}
	if w.needOne {
		// Weighted IDA*, bounds from one and a half times the root's.
		for bound := h * 3 / 2; bound <= limit && !w.stopped; bound++ {
			w.bound2 = w.p1len + bound
			if w.dfs2(w.p1len, hb, -1, 0) {
				w.improve()
				return
			}
		}
		return
	}
	if slackP2 >= 0 {
		limit = min(limit, h+slackP2)
	}
	k := p2Key(&w.b2)
	if limit <= w.tried.failed(k) {
		return // a search as deep from this position found nothing
	}
	// Most searches fail: one pass at the limit costs less than IDA*'s
	// passes up to it. A success may be longer than needed, so search
	// again below it.
	for limit >= h && !w.stopped {
		w.bound2 = w.p1len + limit
		if !w.dfs2(w.p1len, hb, -1, 0) {
			if !w.stopped {
				w.tried.record(k, limit)
			}
			return
		}
		w.improve()
		limit = w.len2 - w.p1len - 1
		w.setup2()
	}
}

// setup2 sets the phase-2 board: the variant's after w.path[:p1len].
func (w *work) setup2() {
	w.b2 = w.vb
	for _, m := range w.path[:w.p1len] {
		w.b2.apply(int(m))
	}
	for x, p := range w.b2 {
		w.pos2[p] = uint8(x)
	}
}

// improve records the answer phase 2 just found.
func (w *work) improve() {
	w.best = w.len2
	w.bestPath = append(w.bestPath[:0], w.path[:w.best]...)
	w.bestVar = w.v
	w.needOne = false
}

// slackP2 caps how far above its root bound a phase-2 search goes once
// there is an answer: long phase 2s are costly to find and rarely win, the
// time is better spent on more phase-1 solutions. At the default budget
// (BenchmarkDefault5x5) a search 4 above its bound failed 9 times in 10 at
// about 3,800 nodes each; with repeats skipped (tried), 3 gives 26.32
// moves against 26.48 (seed 20) and 25.98 against 26.48 (seed 21); 2 and
// 5 give 26.48 and 27.12 (seed 20). With the eight-piece table phase 2
// takes a twentieth of the nodes and 3, 4 and 5 give the same 26.10.
var slackP2 = 3

// dfs2 searches phase 2 below a node at depth g (counting phase 1) whose
// bounds are hb.
func (w *work) dfs2(g int, hb p2Bounds, last, run int) bool {
	w.nodes++
	if w.nodes >= w.check && w.expired() {
		return false
	}
	if w.b2 == goalBoard {
		w.len2 = g // the weighted search may end below its bound
		return true
	}
	t := w.wd2
	// What a child's bound may be, halved: before the first answer the
	// bounds count one and a half (weighted IDA*: a longer phase 2, found
	// far sooner), later they count once.
	left2 := 2 * (w.bound2 - g - 1)
	wt := 2
	if w.needOne {
		wt = 3
	}
	for i, m := range p2Moves {
		if !canFollow(last, run, m) {
			continue
		}
		w.b2.apply(m)
		for _, x := range moveCells[m] {
			w.pos2[w.b2[x]] = x
		}
		nb := hb
		if left2 == 0 {
			// A child at the bound must be the goal: no bound needed.
			if w.b2 == goalBoard {
				w.path[g] = uint8(m)
				w.len2 = g + 1
				return true
			}
		} else if axisOf(m) == 0 {
			nb.hh, nb.ih = t.h(&w.b2, &wd2Views[1]), t.h(&w.pos2, &wd2Views[1])
		} else {
			nb.hv, nb.iv = t.h(&w.b2, &wd2Views[0]), t.h(&w.pos2, &wd2Views[0])
		}
		ok := left2 > 0 && (nb.hv+nb.hh)*wt <= left2 && (nb.iv+nb.ih)*wt <= left2
		if w.arm8 != nil {
			for k := 0; k < 8 && ok; k++ {
				if a8Touch[k][i] {
					nb.a8[k], nb.a8hi[k] = max(nb.a8[k], a8Step[k])-a8Step[k], min(nb.a8hi[k]+a8Step[k], 14)
				}
				if int(nb.a8hi[k])*wt <= left2 {
					continue
				}
				if nb.a8[k] != nb.a8hi[k] {
					v := w.look8(k)
					nb.a8[k], nb.a8hi[k] = v, v
				}
				ok = int(nb.a8[k])*wt <= left2
			}
		}
		for k := 0; k < 4 && ok && w.arm8 == nil; k++ {
			if p2Touch[k][i] {
				nb.arm[k] = w.armLookup(k)
			}
			ok = int(nb.arm[k])*wt <= left2
		}
		if ok {
			nrun := 1
			if m == last {
				nrun = run + 1
			}
			w.path[g] = uint8(m)
			if w.dfs2(g+1, nb, m, nrun) {
				return true
			}
		}
		w.b2.apply(m ^ 1)
		for _, x := range moveCells[m] {
			w.pos2[w.b2[x]] = x
		}
		if w.stopped {
			return false
		}
	}
	return false
}

var identity = func() (b [cells]uint8) {
	for i := range b {
		b[i] = uint8(i)
	}
	return
}()
