package store

import (
	"crypto/sha256"
	"encoding/binary"
	"strings"
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
// Other writers' rows are not known here: their states are sent and probed.
// It relies on no row of puzzle_states or solutions being deleted while
// the Store is open (tessera deletes none; migration 007 down and up again
// refills the table from solutions, at keys no greater): a database
// restored from an older backup under a running writer needs the writer
// restarted.
type stateCache struct {
	mu sync.Mutex
	m  map[uint64]cacheEntry
	// puzzles are the names that cacheEntry.puzzle indexes: an entry
	// holds no pointer, so the collector does not scan the map (a fifth of
	// a million entries on 8-puzzles), and comparing a name reads this
	// copy, not the decoded message that first carried it.
	puzzles []string
}

// stateCacheMax bounds the cache (about 80 bytes an entry): past it, new
// states are not remembered, and a corpus of distinct states (15-puzzles)
// costs one failed lookup per row. Past cachePuzzlesMax names, states of
// new ones are not remembered either.
const (
	stateCacheMax   = 1 << 19
	cachePuzzlesMax = 64
)

// The cache is keyed by the first 8 bytes of the state's hash, which are
// as uniform as the hash: a map of plain integers costs a third of one
// keyed by (puzzle, hash), which hashed and compared 48 bytes and a
// string per row (a map lookup per optimal row). Two states of one prefix share an entry: the first
// remembered keeps it, and the other is never skipped, which only sends
// a candidate more.
type cacheEntry struct {
	hash   [sha256.Size]byte
	val    cacheVal
	puzzle uint32 // index in stateCache.puzzles
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

// puzzleID is the index of name in sc.puzzles, or -1 when it is not there
// (and, when add, the list is full). The caller holds sc.mu.
func (sc *stateCache) puzzleID(name string, add bool) int {
	for i, p := range sc.puzzles {
		if p == name {
			return i
		}
	}
	if !add || len(sc.puzzles) >= cachePuzzlesMax {
		return -1
	}
	sc.puzzles = append(sc.puzzles, strings.Clone(name))
	return len(sc.puzzles) - 1
}

// known reports whether the row of the state of hash, of the puzzle of
// index puzzle (from puzzleID; -1 is none), is known to be at most v, so
// that a candidate v cannot lower it. The caller holds sc.mu.
func (sc *stateCache) known(puzzle int, hash *[sha256.Size]byte, v cacheVal) bool {
	if puzzle < 0 {
		return false
	}
	e, ok := sc.m[cacheSlot(hash)]
	return ok && e.hash == *hash && int(e.puzzle) == puzzle && !v.less(e.val)
}

// remember records c, written by a committed transaction: each state's
// row is now at most its candidate's key.
func (sc *stateCache) remember(c stateCandidates) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.m == nil {
		sc.m = make(map[uint64]cacheEntry)
	}
	last, id := "", -1
	for i := range c.puzzle {
		if i == 0 || c.puzzle[i] != last {
			last, id = c.puzzle[i], sc.puzzleID(c.puzzle[i], true)
		}
		if id < 0 {
			continue
		}
		h := [sha256.Size]byte(c.hash[i])
		v := cacheVal{c.length[i], c.batch[i], c.seq[i]}
		slot := cacheSlot(&h)
		if e, ok := sc.m[slot]; ok {
			if e.hash == h && int(e.puzzle) == id && v.less(e.val) {
				e.val = v
				sc.m[slot] = e
			}
		} else if len(sc.m) < stateCacheMax {
			sc.m[slot] = cacheEntry{h, v, uint32(id)}
		}
	}
}
