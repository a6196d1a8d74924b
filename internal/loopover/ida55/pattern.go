package ida55

import (
	"fmt"
	"unsafe"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/perm"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// The 5×5 search's pattern bound: the two-phase solver's phase-1 table
// (internal/loopover/twophase: the pieces of goal cells 0 1 2 5 6 7, and
// 10 in the seven-piece table; index = the partial-permutation rank of
// their cells, 4-bit entries, entry i in byte i/2, low nibble first) read
// through symmetries of the torus. Every map σ(r, c) = M·(r, c) + t mod 5
// with M one of the square's eight rotations and mirrors maps lines to
// lines, so it conjugates shifts to shifts: the board σ∘b∘σ⁻¹ is as far
// from the goal as b, and the table's value for its pattern pieces (the
// pieces σ⁻¹(pattern) of b, at their cells mapped by σ) bounds both. Each
// of the 200 maps reads a different set of pieces (the patterns have no
// symmetry of their own but for the six-piece one's mirrors), so each is
// a slot of its own; a table value moves by at most one per shift.

// side is the board's side.
const side = 5

// maxSlots55 bounds the slots of a pattern bound: the 25 translations
// times the eight orientations.
const maxSlots55 = 200

// slot55 is one symmetry's lookup: the pattern reads pieces pc (goal cell
// indices, r·5+c) at cells cmap[their cell]; mask has bit pc[i] set.
type slot55 struct {
	pc   [7]uint8
	mask uint32
	cmap [32]uint8 // 25 used
}

// pat55 is the pattern bound: the table payload, its pieces k, its rank
// weights and the slots read, in order.
type pat55 struct {
	nib   []byte
	k     int
	mul   [7]uint64
	slots []slot55
}

// newPat55 wraps a phase-1 table payload (six pieces: 25!/19! entries;
// seven: 25!/18!), read through the first slots of the slot order (the 25
// translations of each orientation in turn, identity and transpose first).
func newPat55(payload []byte, slots int) (*pat55, error) {
	var k int
	for _, kk := range []int{6, 7} {
		if pp := perm.NewPartial(25, kk); uint64(len(payload)) == (pp.Size()+1)/2 {
			k = kk
		}
	}
	if k == 0 {
		return nil, fmt.Errorf("loopover 5x5: pattern table of %d bytes is neither the six- nor the seven-piece phase-1 table: %w", len(payload), puzzle.ErrMalformed)
	}
	if slots < 1 || slots > maxSlots55 {
		return nil, fmt.Errorf("loopover 5x5: %d pattern slots, want 1..%d: %w", slots, maxSlots55, puzzle.ErrMalformed)
	}
	p := &pat55{nib: payload, k: k}
	pp := perm.NewPartial(25, k)
	for i := range k {
		p.mul[i] = pp.Mul(i) // the rest stay 0
	}
	var goal [32]uint8
	for i := range goal[:25] {
		goal[i] = uint8(i)
	}
	if v := p.look(&pat55Identity, &goal); v != 0 {
		return nil, fmt.Errorf("loopover 5x5: pattern table holds %d at the goal: %w", v, puzzle.ErrMalformed)
	}
	for j := 0; j < slots; j++ {
		o, t := j/25, j%25
		m := twophase.Orientations[o]
		var sl slot55
		var inv [25]uint8
		for x := 0; x < 25; x++ {
			r, c := x/side, x%side
			y := ((m[0]*r+m[1]*c+t/side)%side+side)%side*side + ((m[2]*r+m[3]*c+t%side)%side+side)%side
			sl.cmap[x] = uint8(y)
			inv[y] = uint8(x)
		}
		for i, g := range twophase.PatternCells[:k] {
			sl.pc[i] = inv[g]
			sl.mask |= 1 << inv[g]
		}
		p.slots = append(p.slots, sl)
	}
	return p, nil
}

// pat55Identity reads the pattern pieces where they are.
var pat55Identity = func() (sl slot55) {
	copy(sl.pc[:], twophase.PatternCells[:])
	for x := range sl.cmap {
		sl.cmap[x] = uint8(x)
	}
	return sl
}()

// index is the table index of slot sl on a board whose piece i (goal cell
// index) is at cell pos[i]: each cell's rank among the cells the earlier
// pieces leave free, in mixed radix (perm.Rank7; a six-piece table's
// seventh weight is 0).
func (p *pat55) index(sl *slot55, pos *[32]uint8) uint64 {
	c, pc := &sl.cmap, &sl.pc
	x := [7]uint8{c[pos[pc[0]&31]&31], c[pos[pc[1]&31]&31], c[pos[pc[2]&31]&31], c[pos[pc[3]&31]&31],
		c[pos[pc[4]&31]&31], c[pos[pc[5]&31]&31], c[pos[pc[6]&31]&31]}
	return perm.Rank7(&x, &p.mul)
}

// look is slot sl's value on the board with positions pos.
func (p *pat55) look(sl *slot55, pos *[32]uint8) uint8 {
	i := p.index(sl, pos)
	return p.nib[i>>1] >> (4 * (i & 1)) & 15
}

// bound is the largest slot value on the board with positions pos.
func (p *pat55) bound(pos *[32]uint8) int {
	h := uint8(0)
	for i := range p.slots {
		h = max(h, p.look(&p.slots[i], pos))
	}
	return int(h)
}

// node55 is a node's pattern state: the cell of each piece (by goal cell
// index) and each slot's value, exact or, with flag55, an upper bound.
// The values are bytes of sv (a word view lets a child's upper bounds be
// made eight at a time).
type node55 struct {
	pos [32]uint8
	sv  [maxSlots55 / 8]uint64
}

// flag55 marks a slot value that is only an upper bound.
const flag55 = 0x80

func (nd *node55) vals() *[maxSlots55]uint8 { return (*[maxSlots55]uint8)(unsafe.Pointer(&nd.sv)) }

// round55 is how many reads, at least, are issued together (a slot's
// reads for every child still live, slot after slot) before any is
// checked, so that their cache misses overlap. 2, 8 and 16 measured alike.
const round55 = 8

// root55 is the pattern state of board b: every slot read.
func (p *pat55) root55(b *loopover.Board) *node55 {
	nd := new(node55)
	for i, v := range b.Cells[:side*side] {
		nd.pos[pieceIdx55[v]] = uint8(i)
	}
	sv := nd.vals()
	for i := range p.slots {
		sv[i] = p.look(&p.slots[i], &nd.pos)
	}
	return nd
}

// pieceIdx55 maps a search board's piece (goalRow<<3 | goalCol) to its
// goal cell index.
var pieceIdx55 = func() (t [64]uint8) {
	for r := 0; r < side; r++ {
		for c := 0; c < side; c++ {
			t[r<<3|c] = uint8(r*side + c)
		}
	}
	return t
}()

// move55[m] are the cells of move m's line and where each one's piece goes.
var move55 = func() (t [4 * side]struct{ at, to [side]uint8 }) {
	for m := range t {
		ax, ln, step := m/(2*side), m%(2*side)/2, 1
		if m&1 == 1 {
			step = side - 1
		}
		for j := 0; j < side; j++ {
			if ax == loopover.AxisRow {
				t[m].at[j], t[m].to[j] = uint8(ln*side+j), uint8(ln*side+(j+step)%side)
			} else {
				t[m].at[j], t[m].to[j] = uint8(j*side+ln), uint8((j+step)%side*side+ln)
			}
		}
	}
	return t
}()
