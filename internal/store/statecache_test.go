package store

import (
	"crypto/sha256"
	"testing"
)

// Two states whose hashes share the cache's 8-byte slot: the first keeps
// it, and the second is never taken as known (so it is always sent).
func TestStateCacheSlotShared(t *testing.T) {
	var a, b [sha256.Size]byte
	a[0], b[0], b[31] = 7, 7, 1 // one slot, two hashes
	var sc stateCache
	var c stateCandidates
	c.add("sliding:3x3", a[:], 20, 1, 5)
	c.add("sliding:3x3", b[:], 20, 1, 6)
	sc.remember(c)
	for _, k := range []struct {
		puzzle string
		hash   [sha256.Size]byte
		v      cacheVal
		want   bool
	}{
		{"sliding:3x3", a, cacheVal{20, 1, 5}, true}, // the remembered key itself
		{"sliding:3x3", a, cacheVal{21, 0, 0}, true},
		{"sliding:3x3", a, cacheVal{20, 1, 4}, false}, // less: may lower the row
		{"sliding:3x3", b, cacheVal{30, 9, 9}, false}, // the slot holds a
		{"sliding:4x4", a, cacheVal{30, 9, 9}, false}, // another puzzle
	} {
		if got := sc.known(sc.puzzleID(k.puzzle, false), &k.hash, k.v); got != k.want {
			t.Errorf("known(%s, %x…, %v) = %v, want %v", k.puzzle, k.hash[:2], k.v, got, k.want)
		}
	}
	// A lower key for a lowers the entry; one for b changes nothing.
	var d stateCandidates
	d.add("sliding:3x3", a[:], 19, 2, 0)
	d.add("sliding:3x3", b[:], 1, 1, 1)
	sc.remember(d)
	p := sc.puzzleID("sliding:3x3", false)
	if !sc.known(p, &a, cacheVal{19, 2, 0}) || sc.known(p, &a, cacheVal{19, 1, 9}) {
		t.Error("a's entry was not lowered to (19, 2, 0)")
	}
	if sc.known(p, &b, cacheVal{30, 9, 9}) {
		t.Error("b took a's slot")
	}
}
