package loopover

import (
	"fmt"
	"math/bits"
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
// and seven pieces, 4+4 and 4+4 inverse for eight):
//
//	pieces  entries      bytes    mean   build            nodes/state
//	6       5,765,760    2.9 MB   8.02   1 s, in memory     21,791
//	7       57,657,600   29 MB    8.88   24 s, 0.55 GB       4,274
//	8       518,918,400  259 MB   9.72   4 min, 2.7 GB         704

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
	return t.nib[r>>1] >> (r & 1 * 4) & 15
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

// buildPDB44 runs the BFS of the first k pieces on a direct index (a
// nibble per piece: 16 MB for six, 256 MB for seven, dropped afterwards)
// and ranks the result into the compact table.
func buildPDB44(k int) *pdbTable {
	mp := movePerm44()
	// Each move maps three nibbles (cells) at a time.
	var chunk [16][1 << 12]uint32
	for m := range chunk {
		for x := range chunk[m] {
			chunk[m][x] = uint32(mp[m][x&15]) | uint32(mp[m][x>>4&15])<<4 | uint32(mp[m][x>>8])<<8
		}
	}
	dist := make([]uint8, 1<<(4*k))
	for i := range dist {
		dist[i] = Unreached
	}
	var goal uint32
	for p := 0; p < k; p++ {
		goal |= uint32(p) << (4 * p)
	}
	dist[goal] = 0
	q := make([]uint32, 0, placements(k))
	q = append(q, goal)
	for h := 0; h < len(q); h++ {
		x := q[h]
		d := dist[x] + 1
		lo, mid, hi := x&0xfff, x>>12&0xfff, x>>24
		for m := range chunk {
			y := chunk[m][lo] | chunk[m][mid]<<12
			if k == 7 {
				y |= uint32(mp[m][hi]) << 24
			}
			if dist[y] == Unreached {
				dist[y] = d
				q = append(q, y)
			}
		}
	}
	t := &pdbTable{nib: make([]uint8, placements(k)/2), k: k}
	for _, x := range q {
		r := t.rank(x)
		t.nib[r>>1] |= dist[x] << (r & 1 * 4)
	}
	return t
}

// buildPDB448 is buildPDB44 for the eight pieces of rows 0 and 1, whose
// direct index would take 4 GB as bytes: a bit per index marks the
// placements reached (512 MB), the queue (2 GB) is kept in BFS order with
// the end of each depth, and the ranks are written from it.
func buildPDB448() *pdbTable {
	mp := movePerm44()
	var chunk [16][1 << 12]uint32
	for m := range chunk {
		for x := range chunk[m] {
			chunk[m][x] = uint32(mp[m][x&15]) | uint32(mp[m][x>>4&15])<<4 | uint32(mp[m][x>>8])<<8
		}
	}
	seen := make([]uint64, 1<<26)
	goal := uint32(0x76543210)
	seen[goal>>6] |= 1 << (goal & 63)
	q := make([]uint32, 0, pdb8Placements)
	q = append(q, goal)
	ends := []int{1}
	for h := 0; h < len(q); h++ {
		x := q[h]
		// The top nibbles' chunk entry carries a third nibble that the
		// shift pushes out of the word.
		lo, mid, hi := x&0xfff, x>>12&0xfff, x>>24
		for m := range chunk {
			y := chunk[m][lo] | chunk[m][mid]<<12 | chunk[m][hi]<<24
			if seen[y>>6]&(1<<(y&63)) == 0 {
				seen[y>>6] |= 1 << (y & 63)
				q = append(q, y)
			}
		}
		if h+1 == ends[len(ends)-1] && len(q) > h+1 {
			ends = append(ends, len(q))
		}
	}
	seen = nil
	t := &pdbTable{nib: make([]uint8, pdb8Placements/2), k: 8}
	h := 0
	for d, end := range ends {
		for ; h < end; h++ {
			r := rank8(q[h])
			t.nib[r>>1] |= uint8(d) << (r & 1 * 4)
		}
	}
	return t
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

// pdb44Generator versions BuildPDB44: bump it when the index or the
// entries change meaning.
const pdb44Generator = 1

// BuildPDB44 builds the 4×4 pattern database of the first k pieces (6:
// under a second; 7: about a minute) and returns its payload, as
// NewSolver44With takes it, and its depth histogram.
func BuildPDB44(k int) (payload []byte, counts []int64, err error) {
	if k < 6 || k > 8 {
		return nil, nil, fmt.Errorf("loopover 4x4 pattern database of %d pieces: only 6, 7 or 8", k)
	}
	var t *pdbTable
	if k == 8 {
		t = buildPDB448()
	} else {
		t = buildPDB44(k)
	}
	return t.nib, pdbCounts(t.nib), nil
}

// pdbCounts is the depth histogram of a table's payload.
func pdbCounts(nib []byte) (counts []int64) {
	for r := range 2 * len(nib) {
		d := int(nib[r>>1] >> (r & 1 * 4) & 15)
		for len(counts) <= d {
			counts = append(counts, 0)
		}
		counts[d]++
	}
	return counts
}
