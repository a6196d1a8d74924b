package loopover

import (
	"fmt"
	"math/bits"
	"unsafe"

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
			r, c := x/side55, x%side55
			y := ((m[0]*r+m[1]*c+t/side55)%side55+side55)%side55*side55 + ((m[2]*r+m[3]*c+t%side55)%side55+side55)%side55
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
func (p *pat55) root55(b *board) *node55 {
	nd := new(node55)
	for i, v := range b.cells[:side55*side55] {
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
	for r := 0; r < side55; r++ {
		for c := 0; c < side55; c++ {
			t[r<<3|c] = uint8(r*side55 + c)
		}
	}
	return t
}()

// move55[m] are the cells of move m's line and where each one's piece goes.
var move55 = func() (t [4 * side55]struct{ at, to [side55]uint8 }) {
	for m := range t {
		ax, ln, step := m/(2*side55), m%(2*side55)/2, 1
		if m&1 == 1 {
			step = side55 - 1
		}
		for j := 0; j < side55; j++ {
			if ax == axisRow {
				t[m].at[j], t[m].to[j] = uint8(ln*side55+j), uint8(ln*side55+(j+step)%side55)
			} else {
				t[m].at[j], t[m].to[j] = uint8(j*side55+ln), uint8((j+step)%side55*side55+ln)
			}
		}
	}
	return t
}()

// pattern55 meets the n children of a node at depth g (state nd) that are
// within the walking-distance bound with the pattern bound: it writes each
// one's state into out and returns the set of those that the pattern does
// not prune.
//
// A child's slot value is at most its parent's plus one, and equal when
// the move touched none of the slot's pieces, so only the slots whose
// parent value is at least the children's limit can prune and are read
// (the parent's values are at most the limit plus one: its own limit);
// the others become upper bounds. Values above the limit first, which
// prune the most.
func (w *work) pattern55(g int, kids *kids55, n int, nd *node55, out *[4 * side55]node55) uint32 {
	p := w.pat
	lim := w.bound - g - 1
	ns := len(p.slots)
	pv := nd.vals()
	// The candidates: bytes whose value (flag off) is at least lim, in
	// four classes: exact above lim, exact at lim, bounds above, at.
	var cls [4][maxSlots55]uint8
	var ncl [4]int
	const ones, his = 0x0101010101010101, 0x8080808080808080
	if lim <= 0x80 {
		add := uint64(0x80-lim) * ones
		for wi := 0; wi < (ns+7)/8; wi++ {
			for b := (nd.sv[wi]&^his + add) & his; b != 0; b &= b - 1 {
				s := wi*8 + bits.TrailingZeros64(b)>>3
				if s >= ns {
					break
				}
				c := int(pv[s]>>6) & 2
				if int(pv[s]&^flag55) == lim {
					c++
				}
				cls[c][ncl[c]] = uint8(s)
				ncl[c]++
			}
		}
	}
	var cand [maxSlots55]uint8
	nc := 0
	for c := range cls {
		nc += copy(cand[nc:], cls[c][:ncl[c]])
	}
	// The children's positions, the pieces each move touches, and their
	// slot values as upper bounds.
	cells := &w.b.cells
	var mm [4 * side55]uint32
	for i := 0; i < n; i++ {
		o := &out[i]
		o.pos = nd.pos
		mv := &move55[kids[i].m]
		var mask uint32
		for j := 0; j < side55; j++ {
			pc := pieceIdx55[cells[mv.at[j]]]
			o.pos[pc] = mv.to[j]
			mask |= 1 << pc
		}
		mm[i] = mask
		for wi := range (ns + 7) / 8 {
			o.sv[wi] = (nd.sv[wi] + ones) | his
		}
	}
	live := uint32(1)<<n - 1
	var rk [round55 + 4*side55]uint64
	var at [round55 + 4*side55]uint16
	var nb [round55 + 4*side55]uint8
	nib := p.nib
	for c := 0; c < nc && live != 0; {
		// A round: slots in order until it holds round55 reads (or the
		// candidates end), every live child's read of each.
		nr := 0
		for ; c < nc && nr < round55; c++ {
			s := cand[c]
			v := pv[s]
			sl := &p.slots[s]
			for l := live; l != 0; l &= l - 1 {
				i := bits.TrailingZeros32(l)
				if v&flag55 == 0 && sl.mask&mm[i] == 0 {
					out[i].vals()[s] = v
					if int(v) > lim {
						live &^= 1 << i
						w.prune55(g, int(v))
					}
					continue
				}
				rk[nr] = p.index(sl, &out[i].pos)
				at[nr] = uint16(i<<8 | int(s))
				nr++
			}
		}
		// The reads, with nothing between them that depends on what
		// they return.
		for x := 0; x < nr; x++ {
			nb[x] = nib[rk[x]>>1]
		}
		for x := 0; x < nr; x++ {
			i, s := at[x]>>8, at[x]&0xff
			v := nb[x] >> (4 * (rk[x] & 1)) & 15
			out[i].vals()[s] = v
			if int(v) > lim && live>>i&1 != 0 {
				live &^= 1 << i
				w.prune55(g, int(v))
			}
		}
	}
	return live
}

// prune55 lowers the next iteration's bound to a child's (at depth g+1)
// whose pattern value p exceeds its limit.
func (w *work) prune55(g, p int) {
	if f := g + 1 + p; f < w.next {
		w.next = f
	}
}

// NewWD55Pattern is the 5×5 walking-distance search over wd maxed with a
// phase-1 table of the two-phase solver (six or seven pieces, e.g. the
// mapped file of loopover-5x5-p7; it is only read) through its first
// slots symmetries (1..200).
func NewWD55Pattern(wd *WD, pattern []byte, slots int) (*Solver, error) {
	s, err := NewWDSolverWith(side55, side55, wd, wd)
	if err != nil {
		return nil, err
	}
	if s.pat, err = newPat55(pattern, slots); err != nil {
		return nil, err
	}
	return s, nil
}
