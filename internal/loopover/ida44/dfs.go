package ida44

import (
	"math/bits"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/nibble"
)

// words44 packs a search board into cell and position nibble words.
func words44(b *loopover.Board) (cells, pos uint64) {
	for i := 0; i < 16; i++ {
		v := b.Cells[i]
		p := uint64(v>>3*4 + v&loopover.ColMask)
		cells |= p << (4 * i)
		pos |= uint64(i) << (4 * p)
	}
	return cells, pos
}

func pack44(c *[loopover.MaxSide]uint32) uint32 {
	return uint32(c[0]) | uint32(c[1])<<8 | uint32(c[2])<<16 | uint32(c[3])<<24
}

// transpose44 mirrors a nibble word about the main diagonal: slot (r,c)
// goes to (c,r), and every value (a cell) likewise.
func transpose44(x uint64) uint64 {
	t := (x ^ x>>12) & 0x0000f0f00000f0f0
	x ^= t ^ t<<12
	t = (x ^ x>>24) & 0x00000000ff00ff00
	x ^= t ^ t<<24
	return (x&0x3333333333333333)<<2 | x>>2&0x3333333333333333
}

// slotWords are the words the slots read: position, cells, and both
// transposed.
func slotWords(pos, cells uint64) [4]uint64 {
	return [4]uint64{pos, cells, transpose44(pos), transpose44(cells)}
}

// pdbBound is the largest pattern-database value over the slots in use,
// stopping once it exceeds limit; v receives the values read.
func (s *Solver) pdbBound(tb *pdbTable, cells, pos uint64, limit int, v *slotVals) int {
	ws := slotWords(pos, cells)
	best := 0
	for si, j := range s.order {
		h := tb.get(s.images[j&15].index(ws[j>>4&3]))
		v[si] = h
		if int(h) > best {
			best = int(h)
			if best > limit {
				return best
			}
		}
	}
	return best
}

// piecesAff is the set of forward slots that read a piece of the nibble
// mask of moved pieces.
func (s *Solver) piecesAff(mask uint64) uint32 {
	var a uint32
	for mask != 0 {
		a |= s.pieceImg[bits.TrailingZeros64(mask)>>2]
		mask &= mask - 1
	}
	return a
}

// movedRow has a 1 in the slot of each piece of a row (nibbles 0..3 of
// lane), movedCol of a column (nibbles 0, 4, 8, 12).
func movedRow(lane uint64) uint64 {
	return 1<<(4*(lane&15)) | 1<<(4*(lane>>4&15)) | 1<<(4*(lane>>8&15)) | 1<<(4*(lane>>12&15))
}

func movedCol(col uint64) uint64 {
	return 1<<(4*(col&15)) | 1<<(4*(col>>16&15)) | 1<<(4*(col>>32&15)) | 1<<(4*(col>>48&15))
}

// dfs44 explores below a node at depth g. pv holds the node's slot
// values, exact where pe has the bit and otherwise upper bounds.
func (w *work44) dfs44(g int, cells, pos uint64, rc, cc uint32, hr, hc, par int, last, run int, pv *slotVals, pe uint32) (int, bool) {
	if w.Skip(g) {
		return 0, false
	}
	if w.Gate.Visit() {
		return 0, false
	}
	if hr+hc == 0 {
		return g, true // every row holds its own pieces and every column too: solved
	}
	// Children within the walking-distance bound, those whose bound
	// dropped first (as in dfs).
	s := w.s
	sl := &s.succ[last*3+run]
	rt, ct := w.Tables()
	var kids [16]kid44
	nk, down := 0, 0
	for j := 0; j < sl.n; j++ {
		m := int(sl.m[j])
		k := &kids[nk]
		npar := par ^ 1
		var nh, f int
		if m < 8 {
			sh := uint(16 * (m >> 1))
			lane := cells >> sh & 0xffff
			var nl uint64
			if m&1 == 0 {
				nl = (lane<<4 | lane>>12) & 0xffff
			} else {
				nl = lane>>4 | (lane&15)<<12
			}
			var codes uint32
			x := 0
			for c := uint(0); c < 4; c++ {
				out := lane >> (4 * c) & 3
				in := nl >> (4 * c) & 3
				nc := ct.Trans[(uint64(cc>>(8*c)&0xff)*4+out)*4+in]
				codes |= uint32(nc) << (8 * c)
				x += int(nc) * ct.Mul[c]
			}
			nh = int(ct.Dist[x])
			h := hr + nh
			f = g + 1 + h + (h^npar)&1
			k.cells = cells&^(0xffff<<sh) | nl<<sh
			k.codes = codes
			if f <= w.Bound && nh < hc {
				kids[nk], kids[down] = kids[down], kids[nk]
				k = &kids[down]
				down++
			}
		} else {
			sh := uint(4 * ((m - 8) >> 1))
			col := cells >> sh & laneMask
			var nc64 uint64
			if m&1 == 0 {
				nc64 = bits.RotateLeft64(col, 16)
			} else {
				nc64 = bits.RotateLeft64(col, -16)
			}
			var codes uint32
			x := 0
			for r := uint(0); r < 4; r++ {
				out := col >> (16*r + 2) & 3
				in := nc64 >> (16*r + 2) & 3
				nc := rt.Trans[(uint64(rc>>(8*r)&0xff)*4+out)*4+in]
				codes |= uint32(nc) << (8 * r)
				x += int(nc) * rt.Mul[r]
			}
			nh = int(rt.Dist[x])
			h := nh + hc
			f = g + 1 + h + (h^npar)&1
			k.cells = cells&^(laneMask<<sh) | nc64<<sh
			k.codes = codes
			if f <= w.Bound && nh < hr {
				kids[nk], kids[down] = kids[down], kids[nk]
				k = &kids[down]
				down++
			}
		}
		if f > w.Bound {
			if f < w.Next {
				w.Next = f
			}
			continue
		}
		k.m, k.h, k.run, k.par = uint8(m), uint8(nh), sl.nrun[j], uint8(npar)
		nk++
	}
	// The kids within the walking-distance bound meet the pattern
	// database. A slot none of whose pieces (forward) or cells (inverse)
	// the move touched keeps its value. A forward slot's value changes by
	// at most one per move (the table is a BFS distance), so one whose
	// value plus one is within the kid's limit cannot prune it and is not
	// read; its kid value is then an upper bound. An inverse slot has no
	// such bound (a move relabels the inverse's pieces). Slots are taken
	// in batches (batchSlots), every live kid's reads of a batch issued
	// before any is checked, so that their cache misses overlap.
	limit := w.Bound - g - 1
	lim := uint8(limit)
	kv := &w.buf.kv[g]
	var ke [16]uint32
	var words [16][4]uint64
	var aff [16]uint32
	live := uint32(1)<<nk - 1
	for i := 0; i < nk; i++ {
		k := &kids[i]
		m := int(k.m)
		// The moved pieces' cells step by one in one 2-bit field.
		var mask uint64
		if m < 8 {
			mask = movedRow(cells >> (16 * (m >> 1)) & 0xffff)
		} else {
			mask = movedCol(cells >> (4 * ((m - 8) >> 1)) & laneMask)
		}
		aff[i] = s.lineImg[m>>1] | s.piecesAff(mask)
		if m >= 8 {
			mask <<= 2
		}
		if m&1 == 1 {
			mask *= 3 // −1
		}
		words[i] = slotWords(add2(pos, mask), k.cells)
	}
	tb := w.pdb
	if s.k == 6 {
		// The six-piece table stays in cache: slot by slot in a fixed
		// order, a kid dropped at its first prune, reads the least, and
		// the ordering and batching below cost it a fifth more time.
		for si, j := range s.order {
			if live == 0 {
				break
			}
			bit := uint32(1) << si
			v := pv[si]
			exact := pe&bit != 0
			im := &s.images[j&15]
			ws := j >> 4 & 3
			for l := live; l != 0; l &= l - 1 {
				i := bits.TrailingZeros32(l)
				if aff[i]&bit == 0 {
					kv[i][si] = v
					if exact {
						ke[i] |= bit
						if v > lim {
							live &^= 1 << i
							w.prune(g, int(v), int(kids[i].par))
						}
						continue
					}
					if v <= lim {
						continue
					}
				} else if v < lim && j&16 == 0 {
					kv[i][si] = v + 1
					continue
				}
				r := rank6(im.index(words[i][ws]))
				nv := nibble.At(tb.nib, uint64(r))
				kv[i][si] = nv
				ke[i] |= bit
				if nv > lim {
					live &^= 1 << i
					w.prune(g, int(nv), int(kids[i].par))
				}
			}
		}
		return w.expand44(g, nk, live, &kids, &words, kv, &ke, rc, cc, hr, hc)
	}
	// Slots whose value at this node is above the kids' limit first, then
	// at it: only those can prune, and the first prune the most.
	var ord [maxSlots]uint8
	no := 0
	for si := range s.order {
		if pv[si] > lim {
			ord[no] = uint8(si)
			no++
		}
	}
	for si := range s.order {
		if pv[si] == lim {
			ord[no] = uint8(si)
			no++
		}
	}
	for si := range s.order {
		if pv[si] < lim {
			ord[no] = uint8(si)
			no++
		}
	}
	rk, at, nb := &w.buf.rk, &w.buf.at, &w.buf.nb
	for c0 := 0; c0 < no && live != 0; c0 += batchSlots {
		c1 := min(c0+batchSlots, no)
		n := 0
		for _, o := range ord[c0:c1] {
			si, j := int(o), s.order[o]
			bit := uint32(1) << si
			v := pv[si]
			exact := pe&bit != 0
			var need uint32
			for l := live; l != 0; l &= l - 1 {
				i := bits.TrailingZeros32(l)
				if aff[i]&bit == 0 {
					kv[i][si] = v
					if exact {
						ke[i] |= bit
						if v > lim {
							live &^= 1 << i
							w.prune(g, int(v), int(kids[i].par))
						}
						continue
					}
					if v <= lim {
						continue
					}
				} else if v < lim && j&16 == 0 {
					kv[i][si] = v + 1
					continue
				}
				need |= 1 << i
			}
			im := &s.images[j&15]
			ws := j >> 4 & 3
			for l := need; l != 0; l &= l - 1 {
				i := bits.TrailingZeros32(l)
				rk[n] = tb.rank(im.index(words[i][ws]))
				at[n] = uint16(i<<5 | si)
				n++
			}
		}
		// The reads, with nothing between them that depends on what they
		// return, so that their cache misses overlap.
		nib := tb.nib
		for x := 0; x < n; x++ {
			nb[x] = nib[rk[x]>>1]
		}
		var kmax [16]uint8
		for x := 0; x < n; x++ {
			i, si := at[x]>>5, at[x]&31
			v := nb[x] >> (rk[x] & 1 * 4) & 15
			kv[i][si] = v
			ke[i] |= 1 << si
			kmax[i] = max(kmax[i], v)
		}
		for l := live; l != 0; l &= l - 1 {
			i := bits.TrailingZeros32(l)
			if kmax[i] > lim {
				live &^= 1 << i
				w.prune(g, int(kmax[i]), int(kids[i].par))
			}
		}
	}
	return w.expand44(g, nk, live, &kids, &words, kv, &ke, rc, cc, hr, hc)
}

// expand44 searches below the live kids of a node at depth g.
func (w *work44) expand44(g, nk int, live uint32, kids *[16]kid44, words *[16][4]uint64, kv *[16]slotVals, ke *[16]uint32, rc, cc uint32, hr, hc int) (int, bool) {
	for i := 0; i < nk; i++ {
		if live>>i&1 == 0 {
			continue
		}
		k := &kids[i]
		m := int(k.m)
		w.Path[g] = k.m
		var d int
		var ok bool
		if m < 8 {
			d, ok = w.dfs44(g+1, k.cells, words[i][0], rc, k.codes, hr, int(k.h), int(k.par), m, int(k.run), &kv[i], ke[i])
		} else {
			d, ok = w.dfs44(g+1, k.cells, words[i][0], k.codes, cc, int(k.h), hc, int(k.par), m, int(k.run), &kv[i], ke[i])
		}
		if ok || w.Gate.Stopped {
			return d, ok
		}
	}
	return 0, false
}

// prune lowers the next iteration's bound to a kid's (at depth g+1) whose
// slot value p exceeds the limit.
func (w *work44) prune(g, p, par int) {
	if f := g + 1 + p + (p^par)&1; f < w.Next {
		w.Next = f
	}
}

// batchSlots is how many slots' reads are issued together, for every kid
// still live, before any is checked, with a k-piece table. Checking slot
// by slot makes each slot a round trip to memory, the seven- and
// eight-piece tables being bigger than the caches; reading every slot at
// once reads three times as much (67 M reads on the 200 benchmark states
// instead of 22 M with seven pieces). Two and three measure alike with
// seven pieces; with eight, two is about a tenth faster than three, one
// and four. (The six-piece table, which stays in cache, is read slot by
// slot.)
const batchSlots = 2
