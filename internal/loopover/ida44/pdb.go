package ida44

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/tessera-solver/tessera/internal/bfs"
	"github.com/tessera-solver/tessera/internal/nibble"
)

// The 4×4 pattern database: for every placement of k pieces (six, seven
// or eight; the others unlabelled), the least number of moves of any kind
// that brings those k home, by BFS from the goal. It counts every move, so
// it does not add to the walking distances; it is maxed with their sum.
// Symmetries of the torus map moves to moves, so one table bounds the k
// pieces of every translate and transpose of the pattern (relabel, look
// up), and since a state's inverse is as far from the goal as the state,
// the inverse's too.
//
// Legend (the 200 random states of BenchmarkRandom4x4, slots 8+8 for six
// and seven pieces, 4+4 and 4+4 inverse for eight; build times in
// docs/BENCHMARKS.md):
//
//	pieces  entries      bytes    mean   builder peak  nodes/state
//	6       5,765,760    2.9 MB   8.02   in memory          21,791
//	7       57,657,600   29 MB    8.88   32 MB               4,274
//	8       518,918,400  259 MB   9.72   253 MB                704

// A pattern is the first k pieces in row-major order (k = 6: row 0 and
// the first two of row 1; k = 7: row 0 and the first three of row 1; k =
// 8: rows 0 and 1): in a nibble word indexed by piece, their cells are the
// low 4k bits.
const (
	pdbPlacements  = 16 * 15 * 14 * 13 * 12 * 11 // of six pieces
	pdb7Placements = pdbPlacements * 10          // of seven
	pdb8Placements = pdb7Placements * 9          // of eight
)

// placements is the number of placements of the first k pieces.
func placements(k int) int {
	switch k {
	case 8:
		return pdb8Placements
	case 7:
		return pdb7Placements
	}
	return pdbPlacements
}

// pdbTable holds the distances two to a byte, indexed by the rank of the
// placement: the search reads it at random, so the smaller the better it
// stays in cache (a direct 16^6-byte index measured slower).
type pdbTable struct {
	nib []uint8
	k   int // pieces: 6, 7 or 8 (rank6, rank7, rank8)
}

// rank6 ranks six distinct cells (nibble i: the cell of piece i, the first
// the most significant digit) among all placements: each cell less the
// earlier cells below it, in mixed radix 16, 15, …, 11. The terms are
// independent so that they overlap in the pipeline.
func rank6(x uint32) uint32 {
	p0, p1, p2, p3, p4, p5 := x&15, x>>4&15, x>>8&15, x>>12&15, x>>16&15, x>>20
	u1 := uint32(1) << p0
	u2 := u1 | 1<<p1
	u3 := u2 | 1<<p2
	u4 := u3 | 1<<p3
	u5 := u4 | 1<<p4
	d1 := p1 - uint32(bits.OnesCount32(u1&(1<<p1-1)))
	d2 := p2 - uint32(bits.OnesCount32(u2&(1<<p2-1)))
	d3 := p3 - uint32(bits.OnesCount32(u3&(1<<p3-1)))
	d4 := p4 - uint32(bits.OnesCount32(u4&(1<<p4-1)))
	d5 := p5 - uint32(bits.OnesCount32(u5&(1<<p5-1)))
	return p0*(15*14*13*12*11) + d1*(14*13*12*11) + d2*(13*12*11) + d3*(12*11) + d4*11 + d5
}

// rank7 is rank6 for seven cells (mixed radix 16, 15, …, 10).
func rank7(x uint32) uint32 {
	p0, p1, p2, p3, p4, p5, p6 := x&15, x>>4&15, x>>8&15, x>>12&15, x>>16&15, x>>20&15, x>>24
	u1 := uint32(1) << p0
	u2 := u1 | 1<<p1
	u3 := u2 | 1<<p2
	u4 := u3 | 1<<p3
	u5 := u4 | 1<<p4
	u6 := u5 | 1<<p5
	d1 := p1 - uint32(bits.OnesCount32(u1&(1<<p1-1)))
	d2 := p2 - uint32(bits.OnesCount32(u2&(1<<p2-1)))
	d3 := p3 - uint32(bits.OnesCount32(u3&(1<<p3-1)))
	d4 := p4 - uint32(bits.OnesCount32(u4&(1<<p4-1)))
	d5 := p5 - uint32(bits.OnesCount32(u5&(1<<p5-1)))
	d6 := p6 - uint32(bits.OnesCount32(u6&(1<<p6-1)))
	return p0*(15*14*13*12*11*10) + d1*(14*13*12*11*10) + d2*(13*12*11*10) + d3*(12*11*10) + d4*(11*10) + d5*10 + d6
}

// rank8 is rank6 for eight cells (mixed radix 16, 15, …, 9).
func rank8(x uint32) uint32 {
	p7 := x >> 28
	u7 := uint32(1)<<(x&15) | 1<<(x>>4&15) | 1<<(x>>8&15) | 1<<(x>>12&15) | 1<<(x>>16&15) | 1<<(x>>20&15) | 1<<(x>>24&15)
	d7 := p7 - uint32(bits.OnesCount32(u7&(1<<p7-1)))
	return rank7(x&(1<<28-1))*9 + d7
}

// rank is the index of the placement x (nibble i: the cell of piece i).
// The branches go the same way for every read of a solver.
func (t *pdbTable) rank(x uint32) uint32 {
	switch t.k {
	case 8:
		return rank8(x)
	case 7:
		return rank7(x)
	}
	return rank6(x)
}

// get is the distance of the placement x.
func (t *pdbTable) get(x uint32) uint8 {
	r := t.rank(x)
	return nibble.At(t.nib, uint64(r))
}

// movePerm44 is where each cell's piece goes under each 4×4 move code.
func movePerm44() [16][16]uint8 {
	var mp [16][16]uint8
	for m := 0; m < 16; m++ {
		line, step := m/2%4, 1
		if m&1 == 1 {
			step = 3
		}
		for c := 0; c < 16; c++ {
			r, col := c/4, c%4
			if m < 8 && r == line {
				col = (col + step) % 4
			}
			if m >= 8 && col == line {
				r = (r + step) % 4
			}
			mp[m][c] = uint8(r*4 + col)
		}
	}
	return mp
}

// buildPDB44 runs the BFS of the first k pieces with internal/bfs's
// builder over the ranks themselves (no direct index: the eight-piece
// table builds in its own 259 MB), every core expanding a placement by
// unranking it, moving its pieces three cells at a time and ranking each
// image. progress, if not nil, is told the placements labelled so far.
func buildPDB44(ctx context.Context, k int, progress func(done, total uint64)) (*pdbTable, []int64, error) {
	mp := movePerm44()
	w := &pdb44Walker{k: k, mask: uint32(1<<(4*k) - 1)}
	for m := range w.chunk {
		for x := range w.chunk[m] {
			w.chunk[m][x] = uint32(mp[m][x&15]) | uint32(mp[m][x>>4&15])<<4 | uint32(mp[m][x>>8])<<8
		}
	}
	t := &pdbTable{k: k}
	var goal uint32
	for p := 0; p < k; p++ {
		goal |= uint32(p) << (4 * p)
	}
	n := uint64(placements(k))
	tb, err := bfs.Build(ctx, bfs.Spec{Size: n, Goals: []uint64{uint64(t.rank(goal))}, MaxDepth: -1, Progress: progress},
		func() bfs.Walker { return w })
	if err != nil {
		return nil, nil, fmt.Errorf("loopover 4x4 pattern database of %d pieces: %w", k, err)
	}
	t.nib = nibble.Payload(tb.Packed, n)
	return t, tb.Counts, nil
}

// pdb44Walker names a placement's neighbours for internal/bfs: the
// placements one move away. It holds only read-only tables, so every
// worker shares one.
type pdb44Walker struct {
	k     int
	mask  uint32              // the low 4k bits: the pattern's nibbles
	chunk [16][1 << 12]uint32 // per move, three cells at a time
}

// image is placement x after move m: each chunk entry carries three
// nibbles, those past the pattern masked off.
func (w *pdb44Walker) image(x uint32, m int) uint32 {
	c := &w.chunk[m]
	return (c[x&0xfff] | c[x>>12&0xfff]<<12 | c[x>>24]<<24) & w.mask
}

func (w *pdb44Walker) Expand(idx uint64, lv *bfs.Level) {
	x := unrank44(uint32(idx), w.k)
	t := pdbTable{k: w.k}
	for m := range w.chunk {
		lv.Reach(uint64(t.rank(w.image(x, m))))
	}
}

// Touches: every move has its inverse among the moves.
func (w *pdb44Walker) Touches(idx uint64, lv *bfs.Level) bool {
	x := unrank44(uint32(idx), w.k)
	t := pdbTable{k: w.k}
	for m := range w.chunk {
		if lv.InFrontier(uint64(t.rank(w.image(x, m)))) {
			return true
		}
	}
	return false
}

// unrank44 is the placement of k pieces of rank r (rank6, rank7, rank8):
// digit i, in radix 16−i, picks the cell of piece i among the cells the
// earlier pieces left free, in increasing order.
func unrank44(r uint32, k int) uint32 {
	var digits [8]uint32
	for i := k - 1; i >= 0; i-- {
		radix := uint32(16 - i)
		digits[i] = r % radix
		r /= radix
	}
	var used uint32
	var x uint32
	for i := 0; i < k; i++ {
		free := ^used & 0xffff
		for d := digits[i]; d > 0; d-- {
			free &= free - 1 // drop the lowest free cells before the pick
		}
		c := uint32(bits.TrailingZeros32(free))
		used |= 1 << c
		x |= c << (4 * i)
	}
	return x
}

// pdbImage is a translate of the pattern: rotate a nibble word (slot =
// piece, or cell for the inverse) so that the translate's slots land on
// the pattern's, keep those, and subtract the translation from every
// value (a cell).
type pdbImage struct {
	rot      int    // word rotation (rows)
	lsh, rsh uint   // lane rotation (columns)
	lmask    uint64 // bits kept by the right shift of the lane rotation
	add      uint32 // per nibble: (−dr mod 4)<<2 | (−dc mod 4)
	keep     uint64 // the pattern's nibbles
	plain    bool   // no lane rotation
	set      uint16 // the slots it reads
}

const (
	nibbleHi2 = 0xaaaaaaaaaaaaaaaa // the high bit of every 2-bit field
	laneMask  = 0x000f000f000f000f // one column of a cell word
)

// add2 adds y to x in every 2-bit field (the row or column of a nibble
// cell) without carries between fields.
func add2(x, y uint64) uint64 {
	return ((x &^ nibbleHi2) + (y &^ nibbleHi2)) ^ ((x ^ y) & nibbleHi2)
}

// newImage is the translate by (dr, dc) of the pattern of the first k
// pieces.
func newImage(dr, dc, k int) pdbImage {
	im := pdbImage{rot: -16 * dr, plain: dc == 0}
	im.rsh = uint(4 * dc)
	im.lsh = uint(16 - 4*dc)
	im.lmask = uint64(0xffff) >> im.rsh * 0x0001000100010001
	im.keep = 1<<(4*k) - 1
	im.add = uint32(((4-dr)&3)<<2|(4-dc)&3) * uint32(0x11111111&im.keep)
	for p := 0; p < k; p++ {
		r, c := (p/4+dr)%4, (p%4+dc)%4
		im.set |= 1 << (r*4 + c)
	}
	return im
}

// index is the table index of the image of a nibble word.
func (im *pdbImage) index(x uint64) uint32 {
	y := bits.RotateLeft64(x, im.rot)
	if !im.plain {
		y = (y>>im.rsh)&im.lmask | (y<<im.lsh)&^im.lmask
	}
	return uint32(add2(y&im.keep, uint64(im.add)))
}

// pdb44Generator versions buildPDB44Payload: bump it when the index or the
// entries change meaning.
const pdb44Generator = 1

// buildPDB44Payload builds the 4×4 pattern database of the first k pieces
// and returns its payload, as NewWith takes it, and its depth
// histogram.
func buildPDB44Payload(ctx context.Context, k int, progress func(done, total uint64)) ([]byte, []int64, error) {
	if k < 6 || k > 8 {
		return nil, nil, fmt.Errorf("loopover 4x4 pattern database of %d pieces: only 6, 7 or 8", k)
	}
	t, counts, err := buildPDB44(ctx, k, progress)
	if err != nil {
		return nil, nil, err
	}
	return t.nib, counts, nil
}
