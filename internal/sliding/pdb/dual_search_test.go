package pdb

import (
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding"
)

// Dual lookups (Felner, Zahavi, Holte, Schaeffer: a permutation puzzle's
// dual state has the same distance and gives the same tables a second,
// different look at a state).
//
// Write a board as a map s from cell to tile identity, a tile's identity
// being its home cell (the blank's is the last cell, z). A move swaps the
// contents of the blank's cell and a neighbour: s' = s∘(b b'). If moves
// τ1…τk take s to the goal, then s⁻¹ = τ1…τk, and τk…τ1 take s⁻¹ to the
// goal too, but only as a legal sequence of moves when s⁻¹'s blank is
// where τk needs it, on z: when s's blank is home.
//
// For a blank on any cell b, take any board σ with its blank on b and let
// d = σ∘s⁻¹. d has its blank on z, and τk…τ1 are legal moves from d (the
// blank walks back along s's path) that end on σ. So d is within dist(s)
// of σ, and since each move moves one tile, the moves of a pattern's
// tiles on that path are at least its abstract distance from d to σ,
// which by the triangle inequality is at least entry(d) − corr(σ), corr
// being σ's abstract distance (blank on b) to the table's goal (pattern
// home, blank in the region of z). The dual bound is
// Σ_j max(0, entry_j(d) − corr_j(σ)): admissible for every b, and the
// plain inverse's sum when the blank is home (σ the goal).
//
// σ is the goal with the blank walked to b along a shortest walk: up the
// last column then left, and left along the last row then up, the greater
// bound kept (dualPaths). Its corrections add up to at most the walk's
// length, the blank's Manhattan distance from home; swapping the blank
// with the tile whose home is b instead costs up to 14 on one 15-puzzle
// pattern. In d, tile t stands on the home of s's tile on the cell where
// σ has t. The reflected dual is the dual of the reflected board.

// dualCorrNodes caps the search of one correction (an abstract search
// from a state a few moves from the goal). A correction past it is left
// unknown, and that pattern then adds nothing to the dual bound of that σ.
const dualCorrNodes = 1 << 20

// dualTabs are, for every blank cell b, the boards σ_b the dual lookups
// use (see sigmaPaths).
type dualTabs struct {
	sig [MaxCells][]dualSigma
}

// dualSigma is one σ_b: the cell of every tile, and for every pattern j
// the correction of its dual entry: the abstract distance of σ_b to the
// table's goal, Unreached when not known.
type dualSigma struct {
	at   [32]uint8 // at[t]: tile t's cell in σ_b
	corr [maxPatterns]uint8
}

// dualPaths is how many blank walks give a σ_b; 0 is every shortest walk,
// −1 none (experiments: the dual lookups off, the rest of the search as
// with them).
var dualPaths = 2

// sigmaPaths are the boards σ_b: the goal with the blank walked to b on
// a shortest walk, up the last column then left, left along the last row
// then up, and with paths 0 every other shortest walk.
func sigmaPaths(g *geom, b, paths int) [][32]uint8 {
	if paths < 0 {
		return nil
	}
	z := g.n - 1
	var goal [32]uint8
	for c := 0; c < z; c++ {
		goal[c] = uint8(c + 1)
	}
	r, c := b/g.cols, b%g.cols
	var out [][32]uint8
	// walk appends every shortest walk from blank, ups before lefts.
	var walk func(board [32]uint8, blank int)
	walk = func(board [32]uint8, blank int) {
		if blank == b {
			out = append(out, board)
			return
		}
		if blank/g.cols > r {
			nb := board
			nb[blank], nb[blank-g.cols] = nb[blank-g.cols], 0
			walk(nb, blank-g.cols)
		}
		if blank%g.cols > c {
			nb := board
			nb[blank], nb[blank-1] = nb[blank-1], 0
			walk(nb, blank-1)
		}
	}
	walk(goal, z)
	if paths == 0 || len(out) <= 1 {
		return out
	}
	// The first walk is all ups then lefts; the last all lefts then ups.
	return [][32]uint8{out[0], out[len(out)-1]}
}

// newDualTabs prepares the σ_b of every blank cell and their corrections.
func newDualTabs(s *Set) (*dualTabs, error) {
	if len(s.pdbs) > maxPatterns {
		return nil, fmt.Errorf("pdb dual: %d tables, at most %d", len(s.pdbs), maxPatterns)
	}
	g := s.g
	dt := &dualTabs{}
	for b := 0; b < g.n; b++ {
		for _, sigma := range sigmaPaths(&g, b, dualPaths) {
			var sg dualSigma
			for c := 0; c < g.n; c++ {
				sg.at[sigma[c]&31] = uint8(c)
			}
			for j, p := range s.pdbs {
				var ps [MaxCells]uint8
				for x, t := range p.tiles {
					ps[x] = sg.at[t&31]
				}
				sg.corr[j] = Unreached
				if d, ok := abstractDistance(p, ps, b, dualCorrNodes); ok && d < Unreached {
					sg.corr[j] = uint8(d)
				}
			}
			dt.sig[b] = append(dt.sig[b], sg)
		}
	}
	return dt, nil
}

// abstractDistance is the least number of moves of p's tiles that bring
// the placement ps home, with the blank starting on cell blank and ending
// in the region of the last cell (the table's goal), by IDA* over the
// table itself (its entry is that distance minimised over the blank's
// cell: a lower bound). It reports false past maxNodes nodes.
func abstractDistance(p *PDB, ps [MaxCells]uint8, blank int, maxNodes int) (int, bool) {
	g := &p.g
	h := int(p.data[p.rank(&ps)])
	if h == Unreached {
		return 0, false
	}
	nodes := 0
	var dfs func(depth, bound, blank int) (int, bool)
	// dfs returns the least f past bound met below, or −1 at the goal.
	dfs = func(depth, bound, blank int) (int, bool) {
		nodes++
		if nodes > maxNodes {
			return 0, false
		}
		hh := int(p.data[p.rank(&ps)])
		if f := depth + hh; f > bound {
			return f, true
		}
		home := true
		var occ uint32
		for x := 0; x < p.k; x++ {
			occ |= 1 << ps[x]
			home = home && ps[x] == p.tiles[x]-1
		}
		region := g.fill(1<<blank, g.all&^occ)
		if home && region&(1<<(g.n-1)) != 0 {
			return -1, true
		}
		next := int(^uint(0) >> 1)
		for x := 0; x < p.k; x++ {
			c := ps[x]
			to := g.nb[c] & region
			for to != 0 {
				e := uint8(bits.TrailingZeros32(to))
				to &= to - 1
				ps[x] = e
				f, ok := dfs(depth+1, bound, int(c))
				ps[x] = c
				if !ok {
					return 0, false
				}
				if f < 0 {
					return -1, true
				}
				next = min(next, f)
			}
		}
		return next, true
	}
	for bound := h; bound < Unreached; {
		f, ok := dfs(0, bound, blank)
		if !ok {
			return 0, false
		}
		if f < 0 {
			return bound, true
		}
		bound = f
	}
	return 0, false
}

// dualPositions fills pos with the dual board of board (cell → tile)
// for sg: tile → cell, as described above.
func (sg *dualSigma) dualPositions(n int, board *[32]uint8, pos *Positions) {
	for t := 1; t < n; t++ {
		pos[t&31] = board[sg.at[t&31]&31] - 1
	}
	pos[0] = uint8(n - 1)
}

// dualH is the dual bound of board (blank on b) over the tables dt, or
// any value of at least enough that it met first (a search needs no more
// than what prunes).
func (s *Set) dualH(board *[32]uint8, b int, dt *dualTabs, reflect bool, enough int) int {
	h := s.dualSum(board, b, dt, enough)
	if !reflect || h >= enough {
		return h
	}
	var rboard [32]uint8
	for c := 0; c < s.g.n; c++ {
		rboard[s.transpose[c]&31] = s.relabel[board[c]&31]
	}
	return max(h, s.dualSum(&rboard, int(s.transpose[b&31]), dt, enough))
}

// dualSum is the greatest sum of corrected dual entries of board (blank
// on b) over its σ_b, or the first of at least enough.
func (s *Set) dualSum(board *[32]uint8, b int, dt *dualTabs, enough int) int {
	var pos Positions
	best := 0
	for i := range dt.sig[b&31] {
		sg := &dt.sig[b&31][i]
		sg.dualPositions(s.g.n, board, &pos)
		h := 0
		for j, p := range s.pdbs {
			if v := int(p.data[p.Rank(&pos)]); v != Unreached {
				h += max(0, v-int(sg.corr[j&7]))
			}
		}
		if best = max(best, h); best >= enough {
			break
		}
	}
	return best
}

// symmetric reports whether the reflection maps every pattern of s onto
// itself: its reflected lookup is then the direct one.
func (s *Set) symmetric() bool {
	if !s.square {
		return false
	}
	for j := range s.pdbs {
		for _, t := range s.rtiles[j] {
			if s.of[t] != int8(j) {
				return false
			}
		}
	}
	return true
}

// dualOptions are what newDualSolver adds to the dual lookups of a set.
type dualOptions struct {
	// Extra is a second partition of the board, looked up (with its
	// reflection, unless the reflection maps each of its patterns onto
	// itself) where the dual lookups are; ExtraDual adds its own dual
	// lookups.
	Extra     *Set
	ExtraDual bool
	// ExtraSteps steps the extra partition's ranks by move, as the
	// regular search's are (extraStep), instead of ranking the board
	// afresh: the same lookups and nodes, each cheaper. A child descended
	// into without them reads its entries then.
	ExtraSteps bool
}

// dualSearch is the dual search (Solver.dual): the dual lookups of the
// children the regular ones leave at the bound (dualSlack), and
// bidirectional pathmax between a node and its children, the dual bound
// being admissible but not consistent. dt are its σ and corrections per
// blank cell.
type dualSearch struct {
	dt *dualTabs
	// extra is a second partition looked up where the dual lookups are
	// (with its reflection, and its dual lookups when extraDual is set).
	extra        *Set
	extraDual    *dualTabs
	extraReflect bool
	// xsv, with ExtraSteps, is a search over extra whose step tables
	// the dual search uses (its own search never runs).
	xsv *Solver
}

// newDualSolver is NewSolver with the dual search. Its iterations do not
// run in lanes.
func newDualSolver(s *Set, reflect bool, opt dualOptions) (*Solver, error) {
	sv, err := NewSolver(s, reflect)
	if err != nil {
		return nil, err
	}
	ds := &dualSearch{}
	if ds.dt, err = newDualTabs(s); err != nil {
		return nil, err
	}
	if x := opt.Extra; x != nil {
		if x.g != s.g {
			return nil, fmt.Errorf("pdb dual: extra partition of another board")
		}
		ds.extra, ds.extraReflect = x, sv.reflect && x.square && !x.symmetric()
		if opt.ExtraDual {
			if ds.extraDual, err = newDualTabs(x); err != nil {
				return nil, err
			}
		}
		if opt.ExtraSteps {
			if opt.ExtraDual {
				return nil, fmt.Errorf("pdb dual: the extra partition's dual lookups with its steps")
			}
			if ds.xsv, err = NewSolver(x, ds.extraReflect); err != nil {
				return nil, err
			}
		}
	}
	sv.dual, sv.interleave = ds, false
	return sv, nil
}

// dualWork is a search's (or a parallel worker's) dual search.
type dualWork struct {
	*idaWork
	ds *dualSearch
	// parity is the parity of the start's distance (its Manhattan
	// distance's: a move changes that by one), so a node's at depth g is
	// parity+g: the dual search rounds its bounds up to it.
	parity int
	// up is, when dfsDual returns without the goal, the bound of its
	// node's distance it ended with (pathmax).
	up int
	// The extra partition's ranks, entries and sums per side, with
	// ExtraSteps.
	xrank [2][patSlots]uint32
	xhv   [2][patSlots]uint8
	xsum  [2]int
}

// begin is the dual search of k, at the start, and the start's dual
// bound.
func (ds *dualSearch) begin(k *idaWork) (*dualWork, int) {
	g := &k.set.g
	v, hz := sliding.ManhattanAxes(g.rows, g.cols, k.board[:g.n])
	w := &dualWork{idaWork: k, ds: ds, parity: (v + hz) & 1}
	if xs := ds.xsv; xs != nil {
		xk := &idaWork{Solver: xs, pos: k.pos}
		xk.rankAll()
		w.xrank, w.xhv, w.xsum = xk.rank, xk.hv, xk.sum
	}
	hd := max(w.lookMore(0, Unreached, int(k.pos[0])), w.xsum[0], w.xsum[1])
	return w, hd + (hd^w.parity)&1
}

func (ds *dualSearch) bound(k *idaWork) int {
	_, hd := ds.begin(k)
	return hd
}

func (ds *dualSearch) dfsRoot(k *idaWork) (int, bool) {
	w, hd := ds.begin(k)
	return w.dfsDual(0, int(k.pos[0]), 0, k.sum[0], k.sum[1], nil, hd)
}

// dualChild is a child of the dual search with its bound after the dual
// lookups and pathmax.
type dualChild struct {
	child
	h int
	// The extra partition's pattern of the moved tile, its rank and
	// entry, per side (ExtraSteps), when looked is set.
	looked bool
	xj     [2]uint8
	xr     [2]uint32
	xv     [2]uint8
}

// childUndo is what leave restores: the moved tile's ranks and entries
// per side at the parent.
type childUndo struct {
	r [2]uint32
	v [2]uint8
}

// enter makes child c of the node whose blank is on blank the current
// node of the test searches (dfsDual, dfsID): the board, and the moved
// tile's ranks and entries; leave undoes it.
func (k *idaWork) enter(blank int, c *child) childUndo {
	src := k.moves[blank][c.dir&3].src & 31
	j0, j1 := c.j[0]&15, c.j[1]&15
	u := childUndo{r: [2]uint32{k.rank[0][j0], k.rank[1][j1]}, v: [2]uint8{k.hv[0][j0], k.hv[1][j1]}}
	k.board[blank], k.board[src] = c.t, 0
	k.rank[0][j0], k.rank[1][j1], k.hv[0][j0], k.hv[1][j1] = c.r[0], c.r[1], c.v[0], c.v[1]
	return u
}

func (k *idaWork) leave(blank int, c *child, u childUndo) {
	src := k.moves[blank][c.dir&3].src & 31
	j0, j1 := c.j[0]&15, c.j[1]&15
	k.board[blank], k.board[src] = 0, c.t
	k.rank[0][j0], k.rank[1][j1], k.hv[0][j0], k.hv[1][j1] = u.r[0], u.r[1], u.v[0], u.v[1]
}

// checkExtraSteps makes the search compare every stepped extra bound
// with one computed from the board (checkExtraStep), counting the
// differences in extraStepsWrong: a test's switch.
var (
	checkExtraSteps bool
	extraStepsWrong atomic.Int64
)

// checkExtraStep compares the stepped extra sums of tile t's move m into
// blank (the moved tile's patterns xj with entries xv) with the extra
// partition's bounds of the child's board.
func (k *dualWork) checkExtraStep(blank int, m *move, t uint8, xj [2]uint8, xv [2]uint8) {
	src := m.src & 31
	k.board[blank], k.board[src] = t, 0
	var pos Positions
	for c := range k.set.g.n {
		pos[k.board[c]&31] = uint8(c)
	}
	want := [2]int{k.ds.extra.H(&pos), 0}
	if k.ds.extraReflect {
		want[1] = k.ds.extra.HReflected(&pos)
	}
	k.board[blank], k.board[src] = 0, t
	for s := range 2 {
		if got := k.xsum[s] - int(k.xhv[s][xj[s]&15]) + int(xv[s]); got != want[s] {
			extraStepsWrong.Add(1)
		}
	}
}

// extraStep is the extra lookups (ExtraSteps) of tile t's move m from
// the current board: the moved tile's extra patterns, ranks and entries
// per side, and h raised by the child's extra bound. As lookMore does,
// the reflected entry is not read once h reaches enough (the child is
// pruned).
func (k *dualWork) extraStep(m *move, t uint8, h, enough int) (xj [2]uint8, xr [2]uint32, xv [2]uint8, _ int) {
	xs := k.ds.xsv
	xj[0], xj[1] = xs.pat[0][t]&15, xs.pat[1][t]&15
	d0, d1 := xs.steps(&k.board, m, t)
	xr[0], xr[1] = k.xrank[0][xj[0]]+d0, k.xrank[1][xj[1]]+d1
	xv[0] = xs.data[xj[0]][xr[0]]
	h = max(h, k.xsum[0]-int(k.xhv[0][xj[0]])+int(xv[0]))
	if h >= enough {
		return xj, xr, xv, h
	}
	xv[1] = xs.data[xj[1]][xr[1]]
	return xj, xr, xv, max(h, k.xsum[1]-int(k.xhv[1][xj[1]])+int(xv[1]))
}

// lookMore raises h, the bound of the board (blank on src), by the
// extra partition's and the dual lookups, cheapest first, stopping once h
// reaches enough.
func (k *dualWork) lookMore(h, enough, src int) int {
	ds := k.ds
	if x := ds.extra; x != nil && ds.xsv == nil {
		var pos Positions
		for c := range x.g.n {
			pos[k.board[c]&31] = uint8(c)
		}
		h = max(h, x.H(&pos))
		if ds.extraReflect && h < enough {
			h = max(h, x.HReflected(&pos))
		}
	}
	if h < enough {
		h = max(h, k.set.dualH(&k.board, src, ds.dt, k.reflect, enough))
	}
	if ds.extraDual != nil && h < enough {
		h = max(h, ds.extra.dualH(&k.board, src, ds.extraDual, ds.extraReflect, enough))
	}
	return h
}

// dfsDual is dfs with the dual lookups and pathmax. hp is a lower
// bound of the node's distance known from elsewhere (the parent's
// lookups and pathmax; 0 when none).
func (k *dualWork) dfsDual(g, blank int, st int32, s0, s1 int, kr *kidRanks, hp int) (int, bool) {
	k.up = 0
	if g == k.split && !k.claim(blank, st, s0, s1) {
		return 0, false
	}
	if k.gate.Visit() {
		return 0, false
	}
	if max(s0, s1) == 0 && k.isGoal() {
		return g, true
	}
	sv := k.Solver
	blank &= 31
	var cs [4]dualChild
	nc := 0
	hn := max(s0, s1, hp) // the node's bound, raised by its children's (pathmax)
	mask := sv.legal[blank] & sv.fsm.allow[st]
	for mask != 0 {
		d := uint8(bits.TrailingZeros8(mask))
		mask &= mask - 1
		m := &sv.moves[blank][d&3]
		t := k.board[m.src&31] & 31
		j0, j1 := sv.pat[0][t]&15, sv.pat[1][t]&15
		var r0, r1 uint32
		if kr != nil {
			r0, r1 = kr[d&3][0], kr[d&3][1]
		} else {
			// The vertical side's step: cols, corrected for the tiles
			// jumped (cells past the cols−1 between are the always empty
			// cell 31); the same as steps, written out: it is the
			// search's inner loop.
			vs := m.vs & 1
			cr := &sv.cross[vs][t]
			a := sv.vert[vs][t] + cr[k.board[m.between[0]&31]&31] + cr[k.board[m.between[1]&31]&31] +
				cr[k.board[m.between[2]&31]&31] + cr[k.board[m.between[3]&31]&31]
			if sv.wide {
				a += sv.wideSteps(&k.board, m, t)
			}
			// sel is all ones when the board's side is the horizontal one.
			sel := -uint32(vs)
			r0 = k.rank[0][j0] + ((a&^sel | sv.horiz[0][t]&sel) ^ m.neg[0] - m.neg[0])
			r1 = k.rank[1][j1] + ((a&sel | sv.horiz[1][t]&^sel) ^ m.neg[1] - m.neg[1])
		}
		v0 := sv.data[j0][r0]
		c0 := s0 - int(k.hv[0][j0]) + int(v0)
		// A child the board's side alone prunes needs its reflection only
		// to lower the next bound: f ≥ this side's f, so when that is no
		// lower than the next bound so far, the second load (often a
		// miss) is skipped and the search is unchanged.
		if f := k.f(g+1, c0); f > k.bound && f >= k.next {
			if c0-1 > hn {
				if hn = c0 - 1; k.f(g, hn) > k.bound {
					k.next, k.up = min(k.next, k.f(g, hn)), hn
					return 0, false
				}
			}
			continue
		}
		v1 := sv.data[j1][r1]
		c1 := s1 - int(k.hv[1][j1]) + int(v1)
		h := max(c0, c1)
		var xj [2]uint8
		var xr [2]uint32
		var xv [2]uint8
		looked := false
		// The child's dual lookups, when the regular ones leave it
		// within the bound; then pathmax: a node is at most one move
		// from its child, so each bounds the other's distance to
		// within one.
		if h = max(h, hn-1); k.f(g+1, h) <= k.bound && k.f(g+1, h) >= k.bound-dualSlack {
			src := m.src & 31
			// Enough prunes the child (weighted bounds go to the end).
			enough := Unreached
			if k.weight == search.Unweighted {
				enough = k.bound - g
			}
			if k.ds.xsv != nil {
				xj, xr, xv, h = k.extraStep(m, t, h, enough)
				looked = true
				if checkExtraSteps && h < enough {
					k.checkExtraStep(blank, m, t, xj, xv)
				}
			}
			k.board[blank], k.board[src] = t, 0
			h = k.lookMore(h, enough, int(src))
			k.board[blank], k.board[src] = 0, t
		}
		// A bound of the wrong parity is one below the distance at
		// least; rounded, f keeps one parity and IDA*'s bounds step
		// by two, as the regular search's do.
		h += (h ^ k.parity ^ (g + 1)) & 1
		if h-1 > hn {
			if hn = h - 1; k.f(g, hn) > k.bound {
				k.next, k.up = min(k.next, k.f(g, hn)), hn
				return 0, false
			}
		}
		f := k.f(g+1, h)
		if f > k.bound {
			k.next = min(k.next, f)
			continue
		}
		cs[nc] = dualChild{child{r: [2]uint32{r0, r1}, s0: c0, s1: c1, f: f, dir: d, t: t, j: [2]uint8{j0, j1}, v: [2]uint8{v0, v1}}, h, looked, xj, xr, xv}
		nc++
	}
	// Most promising first: only the last iteration's count depends on
	// the order, and it shrinks.
	for i := 1; i < nc; i++ {
		for j := i; j > 0 && cs[j].f < cs[j-1].f; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	var krs [4]kidRanks
	if sv.prefetch {
		// Prefetch the entries of every child's successors now: the
		// misses overlap, and those of the children after the first are
		// over before their turn comes.
		for i := range nc {
			c := &cs[i]
			src := int(sv.moves[blank][c.dir&3].src) & 31
			j0, j1 := c.j[0]&15, c.j[1]&15
			k.board[blank], k.board[src] = c.t, 0
			r0, r1 := k.rank[0][j0], k.rank[1][j1]
			k.rank[0][j0], k.rank[1][j1] = c.r[0], c.r[1]
			k.prefetchKids(src, sv.fsm.next[st][c.dir&3], &krs[i&3])
			k.board[blank], k.board[src] = 0, c.t
			k.rank[0][j0], k.rank[1][j1] = r0, r1
		}
	}
	for i := range nc {
		c := &cs[i]
		m := &sv.moves[blank][c.dir&3]
		if k.ds.xsv != nil && !c.looked {
			// A child within the bound but not at it: its extra entries,
			// read now from the parent's board.
			c.xj, c.xr, c.xv, _ = k.extraStep(m, c.t, 0, Unreached)
			if checkExtraSteps {
				k.checkExtraStep(blank, m, c.t, c.xj, c.xv)
			}
		}
		u := k.enter(blank, &c.child)
		k.path[g] = c.dir
		var kr *kidRanks
		if sv.prefetch {
			kr = &krs[i&3]
		}
		hp := max(c.h, hn-1)
		var xr [2]uint32
		var xv [2]uint8
		if k.ds.xsv != nil {
			for s := range 2 {
				j := c.xj[s] & 15
				xr[s], xv[s] = k.xrank[s][j], k.xhv[s][j]
				k.xrank[s][j], k.xhv[s][j] = c.xr[s], c.xv[s]
				k.xsum[s] += int(c.xv[s]) - int(xv[s])
			}
		}
		if d, ok := k.dfsDual(g+1, int(m.src), sv.fsm.next[st][c.dir&3], c.s0, c.s1, kr, hp); ok {
			return d, true
		}
		if k.ds.xsv != nil {
			for s := range 2 {
				j := c.xj[s] & 15
				k.xsum[s] += int(xv[s]) - int(c.xv[s])
				k.xrank[s][j], k.xhv[s][j] = xr[s], xv[s]
			}
		}
		k.leave(blank, &c.child, u)
		if k.gate.Stopped {
			return 0, false
		}
		// Pathmax back up: what the child learnt of its own bound
		// bounds this node's, which may now exceed the bound.
		if u := k.up - 1; u > hn {
			if hn = u; k.f(g, hn) > k.bound {
				k.next, k.up = min(k.next, k.f(g, hn)), hn
				return 0, false
			}
		}
	}
	k.up = hn
	return 0, false
}

// dualSlack limits the dual lookups to children whose f after the regular
// lookups is within it of the bound. On Korf's 100 over 15-pdb-78, 1
// expands fewer nodes than lookups on every child within the bound, whose
// dual bounds reorder the last iteration for the worse (docs/BENCHMARKS.md,
// "Fewer nodes").
var dualSlack = 1
