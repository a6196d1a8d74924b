package pdb

import (
	"fmt"
	"math/bits"
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
