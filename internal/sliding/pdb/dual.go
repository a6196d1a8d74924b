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
// For a blank on any cell b, relabel the inverse: d = σ∘s⁻¹ with σ the
// swap of identities b and z. d has its blank on z, and τk…τ1 are then
// legal moves from d (the blank walks back along s's path) that end on
// σ: the goal with the blank on b and the tile whose home is b on z. So
// d is within dist(s) of σ, and since each move moves one tile, the moves
// of a pattern's tiles on that path are at least its abstract distance
// from d to σ, which by the triangle inequality is at least
// entry(d) − corr(σ), corr being the abstract distance from σ (blank on
// b) to the table's goal (pattern home, blank in the region of z). The
// dual bound is Σ_j max(0, entry_j(d) − corr[j][b]): admissible for every
// b, and the plain inverse's sum when the blank is home. corr is not 0
// only for the pattern that holds the tile whose home is b, and for
// patterns that wall the cell b off from z.
//
// In d, the tile whose home is cell c (c ≠ b, z) stands on the home of
// s's tile on c, and the tile whose home is b on the home of s's tile on
// z. The reflected dual is the reflection of d, whose σ is the one of
// the reflected blank's cell, so the same corrections serve it.

// dualCorrNodes caps the search of one correction (an abstract search
// from a state one tile away from the goal; tens of nodes on the 15- and
// 24-puzzle partitions). A correction past it is left unknown, and that
// pattern then adds nothing to the dual bound on that cell.
const dualCorrNodes = 1 << 20

// dualCorrections are, for every pattern j and blank cell b, the abstract
// distance to the table's goal of σ_b (the tile whose home is b on the
// last cell, the blank on b, every other tile home) in pattern j's space,
// Unreached when not known.
func dualCorrections(s *Set) [][MaxCells]uint8 {
	g := s.g
	z := g.n - 1
	out := make([][MaxCells]uint8, len(s.pdbs))
	for j, p := range s.pdbs {
		for b := 0; b < z; b++ {
			var ps [MaxCells]uint8
			for x, t := range p.tiles {
				ps[x] = t - 1
				if int(t) == b+1 {
					ps[x] = uint8(z)
				}
			}
			d, ok := abstractDistance(p, ps, b, dualCorrNodes)
			if !ok || d >= Unreached {
				d = Unreached
			}
			out[j][b] = uint8(d)
		}
	}
	return out
}

// abstractDistance is the least number of moves of p's tiles that bring
// the placement ps home, with the blank starting on cell blank and ending
// in the region of the last cell (the table's goal), by IDA* over the
// table itself (its entry is that
// distance minimised over the blank's cell: a lower bound). It reports
// false past maxNodes nodes.
func abstractDistance(p *PDB, ps [MaxCells]uint8, blank int, maxNodes int) (int, bool) {
	g := &p.g
	h := int(p.data[p.rank(&ps)])
	if h == Unreached {
		return 0, false
	}
	nodes := 0
	var dfs func(depth, bound, blank int) (int, bool)
	// dfs returns the least f past bound met below, or −1 when home.
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

// dualPositions fills pos with the dual board of board (cell → tile,
// blank on cell b): tile → cell, as described above.
func dualPositions(n int, board *[32]uint8, b int, pos *Positions) {
	z := n - 1
	for c := 0; c < z; c++ {
		src := c
		if c == b {
			src = z
		}
		pos[(c+1)&31] = board[src&31] - 1
	}
	pos[0] = uint8(z)
}

// DualH is the dual bound of the board (row-major, 0 the blank), and with
// reflect on a square board the maximum with its reflection's: an
// admissible bound, not a consistent one (one move can change it by more
// than one).
func (s *Set) DualH(cells []uint8, reflect bool) (int, error) {
	if len(cells) != s.g.n {
		return 0, fmt.Errorf("pdb dual: %d cells, want %d", len(cells), s.g.n)
	}
	var board [32]uint8
	b := -1
	for i, t := range cells {
		board[i] = t
		if t == 0 {
			b = i
		}
	}
	corr := dualCorrections(s)
	return s.dualH(&board, b, corr, reflect && s.square), nil
}

// dualH is the dual bound of board (blank on b) given the corrections.
func (s *Set) dualH(board *[32]uint8, b int, corr [][MaxCells]uint8, reflect bool) int {
	var pos Positions
	dualPositions(s.g.n, board, b, &pos)
	h := 0
	for j, p := range s.pdbs {
		if v := int(p.data[p.Rank(&pos)]); v != Unreached {
			h += max(0, v-int(corr[j][b]))
		}
	}
	if !reflect {
		return h
	}
	rb := int(s.transpose[b&31])
	hr := 0
	for j, p := range s.pdbs {
		if v := int(p.data[s.reflectedRank(j, &pos)]); v != Unreached {
			hr += max(0, v-int(corr[j][rb&31]))
		}
	}
	return max(h, hr)
}
