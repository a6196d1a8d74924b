package store

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
)

// stateCache remembers, for states this Store has written to puzzle_states,
// a key (length, batch_id, seq) the stored row is at most. A stored row's
// key only ever falls (rows are inserted or lowered, never raised or
// deleted), so a candidate whose key is not less than the remembered one
// cannot change the row and need not be sent: on a corpus of small boards
// most rows repeat a state already stored (an 8-puzzle has 181,440), and
// each repeat cost PostgreSQL an index probe and a row lock (logged) in
// insertStates. Entries are added only after their transaction commits.
// Other writers' rows are not known here: their states are sent as before.
// It relies on no row of puzzle_states or solutions being deleted while
// the Store is open (tessera deletes none; migration 007 down and up again
// refills the table from solutions, at keys no greater): a database
// restored from an older backup under a running writer needs the writer
// restarted.
type stateCache struct {
	mu sync.Mutex
	m  map[uint64]cacheEntry
}

// stateCacheMax bounds the cache (about 100 bytes an entry): past it, new
// states are not remembered, and a corpus of distinct states (15-puzzles)
// costs one failed lookup per row.
const stateCacheMax = 1 << 19

// The cache is keyed by the first 8 bytes of the state's hash, which are
// as uniform as the hash: a map of plain integers costs a third of one
// keyed by (puzzle, hash), which hashed and compared 48 bytes and a
// string per row (a map lookup per optimal row, 3 % of producer --local's
// CPU on 8-puzzles). Two states of one prefix share an entry: the first
// remembered keeps it, and the other is never skipped, which only sends
// a candidate more.
type cacheEntry struct {
	puzzle string
	hash   [sha256.Size]byte
	val    cacheVal
}

func cacheSlot(hash *[sha256.Size]byte) uint64 { return binary.LittleEndian.Uint64(hash[:8]) }

type cacheVal struct {
	length     int32
	batch, seq int64
}

func (v cacheVal) less(w cacheVal) bool {
	if v.length != w.length {
		return v.length < w.length
	}
	if v.batch != w.batch {
		return v.batch < w.batch
	}
	return v.seq < w.seq
}

// known reports whether the row of (puzzle, hash) is known to be at most
// v, so that a candidate v cannot lower it. The caller holds sc.mu.
func (sc *stateCache) known(puzzle string, hash *[sha256.Size]byte, v cacheVal) bool {
	e, ok := sc.m[cacheSlot(hash)]
	return ok && e.hash == *hash && e.puzzle == puzzle && !v.less(e.val)
}

// remember records c, written by a committed transaction: each state's
// row is now at most its candidate's key.
func (sc *stateCache) remember(c stateCandidates) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.m == nil {
		sc.m = make(map[uint64]cacheEntry)
	}
	for i := range c.puzzle {
		h := [sha256.Size]byte(c.hash[i])
		v := cacheVal{c.length[i], c.batch[i], c.seq[i]}
		slot := cacheSlot(&h)
		if e, ok := sc.m[slot]; ok {
			if e.hash == h && e.puzzle == c.puzzle[i] && v.less(e.val) {
				e.val = v
				sc.m[slot] = e
			}
		} else if len(sc.m) < stateCacheMax {
			sc.m[slot] = cacheEntry{c.puzzle[i], h, v}
		}
	}
}
