package twophase

// tried remembers the phase-2 positions whose search failed, with the
// deepest phase 2 each failed at. Different phase-1 solutions often leave
// the same position (two searches in five repeated one at the default
// budget), and a search that found nothing within a depth finds nothing
// within a smaller one, so a repeat is skipped. The set is cleared when
// three quarters full, which keeps it small and the search deterministic.
type tried struct {
	keys  []uint64 // p2Key, 0 for an empty slot
	depth []uint8
	n     int
}

// triedBits sizes the set: 2^14 slots, several times the distinct failed
// searches of a default budget.
const triedBits = 14

// p2Key packs a phase-2 position: the region numbers of the pieces on the
// first fifteen region cells (four bits each; the sixteenth is the one
// left). It is never 0, as the numbers are distinct.
func p2Key(b *board) uint64 {
	var k uint64
	for _, x := range regionCells[:15] {
		k = k<<4 | uint64(regionIdx[b[x]])
	}
	return k
}

func (t *tried) slot(k uint64) int { return int((k * 0x9e3779b97f4a7c15) >> (64 - triedBits)) }

// failed is the deepest phase 2 a search from the position of key k found
// nothing within, or -1.
func (t *tried) failed(k uint64) int {
	if t.keys == nil {
		return -1
	}
	for i := t.slot(k); ; i = (i + 1) & (1<<triedBits - 1) {
		switch t.keys[i] {
		case 0:
			return -1
		case k:
			return int(t.depth[i])
		}
	}
}

// record notes that a search from the position of key k found nothing
// within depth.
func (t *tried) record(k uint64, depth int) {
	if t.keys == nil {
		t.keys, t.depth = make([]uint64, 1<<triedBits), make([]uint8, 1<<triedBits)
	}
	if t.n >= 3<<triedBits/4 {
		clear(t.keys)
		t.n = 0
	}
	for i := t.slot(k); ; i = (i + 1) & (1<<triedBits - 1) {
		switch t.keys[i] {
		case 0:
			t.keys[i], t.depth[i] = k, uint8(depth)
			t.n++
			return
		case k:
			t.depth[i] = max(t.depth[i], uint8(depth))
			return
		}
	}
}
