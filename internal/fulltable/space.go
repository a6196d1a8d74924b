package fulltable

import (
	"math/bits"

	"github.com/tessera-solver/tessera/internal/bfs"
	"github.com/tessera-solver/tessera/internal/perm"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// MaxCells is the largest board Build accepts: 12! = 479,001,600 fits a
// uint32 rank and a 240 MB nibble table.
const MaxCells = 12

// space is the perfect index of one puzzle's reachable states. Every index
// in [0, size) is a reachable state and every reachable state has exactly
// one index, so the table has no holes and no "unreachable" entries.
//
// Sliding: index = blank·stride + lehmer(tiles)>>1, where tiles is the
// sequence of the N−1 tiles in row-major order skipping the blank and
// stride = (N−1)!/2. Moving the blank sideways leaves that sequence
// unchanged, so horizontal neighbours are index ± stride. For a fixed blank
// cell only one parity of the tile sequence is reachable, and the two
// sequences with ranks 2k and 2k+1 differ by swapping the last two tiles
// (opposite parities): dropping the last bit is a bijection.
//
// Loopover: index = lehmer(cells), halved the same way when both sides are
// odd (every move is then an odd-length cycle, an even permutation, and
// exactly the even permutations are reachable); otherwise all N! are.
//
// Both Lehmer codes are perm.Full ranks (of the N−1 tiles, or of the N
// pieces, values shifted to start at 0). Only the cold rankLoopover calls
// perm; the BFS's hot paths are specialised and take perm's multipliers
// (mul) and digit: rankSliding skips the blank while it ranks, rankMoved
// reranks only the cells a move changes, and the unranks divide by
// reciprocals (no hardware divide) and get the parity as they go.
type space struct {
	rows, cols, n int
	sliding       bool                 // the family's SpaceIndex is BlankAndTiles (else PieceOrder)
	half          bool                 // loopover: odd×odd, only even permutations
	size          uint64               // number of indices = reachable states
	stride        uint32               // sliding: (N−1)!/2 indices per blank cell
	perm          perm.Partial         // the Lehmer code: of the tiles (sliding), of the pieces (loopover)
	mul           [16]uint32           // perm's multipliers (12! < 2³²: the hot sums stay 32-bit); 16 for masked indexes
	fact          [MaxCells + 1]uint32 // k!: the divisors of the unranks
	recip         [MaxCells + 1]uint64 // ⌈2⁶⁴/k!⌉: r/k! = high word of r·recip for 32-bit r
	strideRec     uint64               // ⌈2⁶⁴/stride⌉, the same for the blank's cell
	tilePar       [MaxCells]uint8      // sliding: reachable tile-sequence parity per blank cell
	goal          [MaxCells]uint8
	goalIndex     uint64
	moves         []puzzle.Move // loopover: the distinct generators, in a fixed order
	window        [][2]int      // loopover: first and last cell each move changes
	src           []board       // loopover: after move i, cell j holds the piece from cell src[i][j]
}

func newSpace(sp puzzle.Spec) *space {
	// supported admitted only the two indexes below: anything not
	// BlankAndTiles is PieceOrder.
	s := &space{rows: sp.Rows, cols: sp.Cols, n: sp.Cells(), sliding: sp.Family().SpaceIndex() == puzzle.BlankAndTiles}
	s.fact[0] = 1
	for i := 1; i <= MaxCells; i++ {
		s.fact[i] = s.fact[i-1] * uint32(i)
	}
	for i := 2; i <= MaxCells; i++ { // 0! = 1! = 1: divide special-cases them
		s.recip[i] = ^uint64(0)/uint64(s.fact[i]) + 1
	}
	if s.sliding {
		s.perm = perm.Full(s.n - 1)
	} else {
		s.perm = perm.Full(s.n)
	}
	for i := range s.perm.N() {
		s.mul[i] = uint32(s.perm.Mul(i))
	}
	if s.sliding {
		s.stride = s.fact[s.n-1] / 2
		s.strideRec = ^uint64(0)/uint64(s.stride) + 1
		s.size = uint64(s.n) * uint64(s.stride)
		last := s.n - 1
		for b := 0; b < s.n; b++ {
			// Each move swaps the blank with a neighbour: the parity of the
			// whole arrangement (blank = largest value) tracks the parity of
			// the blank's grid distance to its goal cell. The blank is
			// inverted with every tile after it, N−1−b of them.
			dist := abs(b/s.cols-last/s.cols) + abs(b%s.cols-last%s.cols)
			s.tilePar[b] = uint8((dist + last - b) & 1)
		}
		for i := 0; i < last; i++ {
			s.goal[i] = uint8(i + 1)
		}
	} else {
		s.half = s.cols&1 == 1 && s.rows&1 == 1
		s.size = uint64(s.fact[s.n])
		if s.half {
			s.size /= 2
		}
		for i := 0; i < s.n; i++ {
			s.goal[i] = uint8(i + 1)
		}
		// A 2-cell line has one shift: left and right are the same move.
		for r := 0; r < s.rows; r++ {
			s.moves = append(s.moves, puzzle.Move{Dir: puzzle.Right, Line: r})
			s.window = append(s.window, [2]int{r * s.cols, r*s.cols + s.cols - 1})
			if s.cols > 2 {
				s.moves = append(s.moves, puzzle.Move{Dir: puzzle.Left, Line: r})
				s.window = append(s.window, [2]int{r * s.cols, r*s.cols + s.cols - 1})
			}
		}
		for c := 0; c < s.cols; c++ {
			s.moves = append(s.moves, puzzle.Move{Dir: puzzle.Down, Line: c})
			s.window = append(s.window, [2]int{c, (s.rows-1)*s.cols + c})
			if s.rows > 2 {
				s.moves = append(s.moves, puzzle.Move{Dir: puzzle.Up, Line: c})
				s.window = append(s.window, [2]int{c, (s.rows-1)*s.cols + c})
			}
		}
		// Each move as a map of source cells: labelling a board with its
		// own cell numbers and shifting it yields the map.
		for _, m := range s.moves {
			var b board
			for i := range b {
				b[i] = uint8(i)
			}
			s.shift(&b, m)
			s.src = append(s.src, b)
		}
	}
	var g board
	copy(g[:], s.goal[:s.n])
	s.goalIndex = s.rank(&g)
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// board is a fixed-size cell buffer so the hot loops never allocate.
type board [MaxCells]uint8

// rank is the index of a reachable board (see space).
func (s *space) rank(c *board) uint64 {
	if s.sliding {
		return s.rankSliding(c)
	}
	return s.rankLoopover(c)
}

// rankSliding: perm's Lehmer code of the tile sequence, fused with the
// pass that finds the blank and skips it (a hot path: vertical moves).
func (s *space) rankSliding(c *board) uint64 {
	var used uint32
	var r uint32
	blank, j := 0, 0
	for i := 0; i < s.n; i++ {
		v := c[i]
		if v == 0 {
			blank = i
			continue
		}
		v--
		r += perm.Digit(used, v) * s.mul[j&15]
		used |= 1 << (v & 31)
		j++
	}
	return uint64(blank)*uint64(s.stride) + uint64(r>>1)
}

func (s *space) rankLoopover(c *board) uint64 {
	var v board
	for i := 0; i < s.n; i++ {
		v[i] = c[i] - 1
	}
	r := s.perm.Rank(v[:s.n])
	if s.half {
		r >>= 1
	}
	return r
}

// divide returns r / k! and r mod k! without a hardware divide: a 32-bit
// numerator times the 64-bit rounded-up reciprocal gives the exact
// quotient in the high word (Lemire, Kaser & Kurz 2019).
func (s *space) divide(r uint32, k int) (q, rem uint32) {
	if k < 2 {
		return r, 0
	}
	hi, _ := bits.Mul64(uint64(r), s.recip[k])
	q = uint32(hi)
	return q, r - q*s.fact[k]
}

// blankSplit divides a sliding index (< 2³²) into the blank's cell and the
// halved tile rank, by the same reciprocal trick.
func (s *space) blankSplit(idx uint64) (blank, rest uint32) {
	hi, _ := bits.Mul64(idx, s.strideRec)
	blank = uint32(hi)
	return blank, uint32(idx) - blank*s.stride
}

// unrank writes the board of index idx into c.
func (s *space) unrank(idx uint64, c *board) {
	if s.sliding {
		s.unrankSliding(idx, c)
		return
	}
	s.unrankLoopover(idx, c)
}

func (s *space) unrankSliding(idx uint64, c *board) {
	q, rem := s.blankSplit(idx)
	blank, r := int(q), rem<<1
	var seq board
	m := s.n - 1 // tiles
	list := uint64(perm.Identity)
	var par, d uint32
	for k := 0; k < m; k++ {
		d, r = s.divide(r, m-1-k)
		par ^= d
		seq[k] = perm.Take(&list, d) + 1
	}
	if uint8(par&1) != s.tilePar[blank] {
		seq[m-2], seq[m-1] = seq[m-1], seq[m-2]
	}
	j := 0
	for i := 0; i < s.n; i++ {
		if i == blank {
			c[i] = 0
			continue
		}
		c[i] = seq[j]
		j++
	}
}

func (s *space) unrankLoopover(idx uint64, c *board) {
	r := uint32(idx)
	if s.half {
		r <<= 1
	}
	list := uint64(perm.Identity)
	var par, d uint32
	for k := 0; k < s.n; k++ {
		d, r = s.divide(r, s.n-1-k)
		par ^= d
		c[k] = perm.Take(&list, d) + 1
	}
	if s.half && par&1 == 1 {
		c[s.n-2], c[s.n-1] = c[s.n-1], c[s.n-2]
	}
}

// check reports whether cells is a well-formed board of the space (right
// length, a permutation of the right values) and whether it is reachable.
func (s *space) check(cells []uint8) (b board, wellFormed, reachable bool) {
	if len(cells) != s.n {
		return b, false, false
	}
	var seen uint32
	lo := uint8(1)
	if s.sliding {
		lo = 0
	}
	// The parity comes from the inversions, counted as the values are
	// checked: each adds the earlier values above it, read off the mask
	// (a pairwise loop mispredicts half its comparisons on random boards).
	// A sliding board's
	// blank is not a tile and counts in no pair.
	blank, inv := 0, 0
	for i, v := range cells {
		if v < lo || int(v-lo) >= s.n || seen&(1<<(v-lo)) != 0 {
			return b, false, false
		}
		k := v - lo
		if s.sliding && v == 0 {
			blank = i
		} else {
			inv += bits.OnesCount32(seen >> k >> 1)
		}
		seen |= 1 << k
		b[i] = v
	}
	if s.sliding {
		return b, true, uint8(inv&1) == s.tilePar[blank]
	}
	return b, true, !s.half || inv&1 == 0
}

// blankOf is the blank's cell of a sliding board.
func (s *space) blankOf(c *board) int {
	for i := 0; i < s.n; i++ {
		if c[i] == 0 {
			return i
		}
	}
	return -1
}

// shift applies a Loopover move to c in place.
func (s *space) shift(c *board, m puzzle.Move) {
	rows, cols := s.rows, s.cols
	switch m.Dir {
	case puzzle.Left: // every cell takes its right neighbour's piece
		base := m.Line * cols
		t := c[base]
		copy(c[base:base+cols-1], c[base+1:base+cols])
		c[base+cols-1] = t
	case puzzle.Right:
		base := m.Line * cols
		t := c[base+cols-1]
		copy(c[base+1:base+cols], c[base:base+cols-1])
		c[base] = t
	case puzzle.Up: // every cell takes the piece below it
		col := m.Line
		t := c[col]
		for r := 0; r+1 < rows; r++ {
			c[r*cols+col] = c[(r+1)*cols+col]
		}
		c[(rows-1)*cols+col] = t
	case puzzle.Down:
		col := m.Line
		t := c[(rows-1)*cols+col]
		for r := rows - 1; r > 0; r-- {
			c[r*cols+col] = c[(r-1)*cols+col]
		}
		c[col] = t
	}
}

// unshift undoes shift.
func (s *space) unshift(c *board, m puzzle.Move) {
	m.Dir = m.Dir.Opposite()
	s.shift(c, m)
}

// maxDegree bounds the neighbours of a state: 4 sliding moves, or two
// shifts per row and column of a 12-cell Loopover board.
const maxDegree = 16

// neighbours writes the indices of the states one move from c (whose index
// is idx) into out and returns how many there are. c is left unchanged.
func (s *space) neighbours(c *board, idx uint64, out *[maxDegree]uint64) int {
	k := 0
	if s.sliding {
		q, _ := s.blankSplit(idx)
		blank := int(q)
		st := uint64(s.stride)
		col, row := blank%s.cols, blank/s.cols
		// Sideways the tile sequence is unchanged: only the blank term moves.
		if col+1 < s.cols {
			out[k] = idx + st
			k++
		}
		if col > 0 {
			out[k] = idx - st
			k++
		}
		if row+1 < s.rows {
			t := blank + s.cols
			c[blank], c[t] = c[t], 0
			out[k] = s.rankSliding(c)
			c[t], c[blank] = c[blank], 0
			k++
		}
		if row > 0 {
			t := blank - s.cols
			c[blank], c[t] = c[t], 0
			out[k] = s.rankSliding(c)
			c[t], c[blank] = c[blank], 0
			k++
		}
		return k
	}
	var p prefix
	s.prepare(c, &p)
	for i := range s.moves {
		out[k] = s.rankMoved(c, &p, i)
		k++
	}
	return k
}

// touches reports whether any neighbour of c (index idx) is in lv's
// frontier; it stops at the first, which is what makes pulling cheap once
// the frontier is large.
func (s *space) touches(c *board, idx uint64, lv *bfs.Level) bool {
	if s.sliding {
		q, _ := s.blankSplit(idx)
		blank := int(q)
		st := uint64(s.stride)
		col, row := blank%s.cols, blank/s.cols
		if col+1 < s.cols && lv.InFrontier(idx+st) {
			return true
		}
		if col > 0 && lv.InFrontier(idx-st) {
			return true
		}
		for _, t := range [2]int{blank + s.cols, blank - s.cols} {
			if (t > blank && row+1 < s.rows) || (t < blank && row > 0) {
				c[blank], c[t] = c[t], 0
				n := s.rankSliding(c)
				c[t], c[blank] = c[blank], 0
				if lv.InFrontier(n) {
					return true
				}
			}
		}
		return false
	}
	var p prefix
	s.prepare(c, &p)
	for i := range s.moves {
		if lv.InFrontier(s.rankMoved(c, &p, i)) {
			return true
		}
	}
	return false
}

// prefix is a Loopover board's Lehmer code split by position, so that a
// move's neighbour is ranked by recomputing only the cells it changes: a
// digit counts smaller values after its cell, and a move permutes the
// values inside its window, so the digits before and after it stay put.
type prefix struct {
	pre   [MaxCells + 1]uint32 // Σ digit·weight over the cells before i
	after [MaxCells + 1]uint32 // mask of the values in cells ≥ i
}

func (s *space) prepare(c *board, p *prefix) {
	var digit [MaxCells]uint32
	var m uint32
	p.after[s.n] = 0
	for i := s.n - 1; i >= 0; i-- {
		v := c[i] - 1
		digit[i] = uint32(bits.OnesCount32(m & (1<<(v&31) - 1))) // counted from the right: not perm.Digit
		m |= 1 << (v & 31)
		p.after[i] = m
	}
	p.pre[0] = 0
	for i := 0; i < s.n; i++ {
		p.pre[i+1] = p.pre[i] + digit[i]*s.mul[i&15]
	}
}

// rankMoved is the rank of the board that move i makes of the prepared
// board c, without making it: only the cells inside the move's window get
// new digits, read through the move's source map.
func (s *space) rankMoved(c *board, p *prefix, i int) uint64 {
	a, b := s.window[i][0], s.window[i][1]
	src := &s.src[i]
	r := p.pre[a] + p.pre[s.n] - p.pre[b+1]
	m := p.after[b+1]
	for j := b; j >= a; j-- {
		v := c[src[j]] - 1
		r += uint32(bits.OnesCount32(m&(1<<(v&31)-1))) * s.mul[j&15]
		m |= 1 << (v & 31)
	}
	if s.half {
		r >>= 1
	}
	return uint64(r)
}
