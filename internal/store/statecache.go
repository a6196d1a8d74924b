package store

import (
	"crypto/sha256"
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
	m  map[cacheKey]cacheVal
}

// stateCacheMax bounds the cache (about 100 bytes an entry): past it, new
// states are not remembered, and a corpus of distinct states (15-puzzles)
// costs one failed lookup per row.
const stateCacheMax = 1 << 19

type cacheKey struct {
	puzzle string
	hash   [sha256.Size]byte
}

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

// skip drops from c (the given candidates, one per state) those that
// cannot lower a row this cache knows.
func (sc *stateCache) skip(c stateCandidates) stateCandidates {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if len(sc.m) == 0 {
		return c
	}
	var out stateCandidates
	for i := range c.puzzle {
		k, v := c.cached(i)
		if old, ok := sc.m[k]; ok && !v.less(old) {
			continue
		}
		out.add(c.puzzle[i], c.hash[i], c.length[i], c.batch[i], c.seq[i])
	}
	return out
}

// remember records c, written by a committed transaction: each state's
// row is now at most its candidate's key.
func (sc *stateCache) remember(c stateCandidates) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.m == nil {
		sc.m = make(map[cacheKey]cacheVal)
	}
	for i := range c.puzzle {
		k, v := c.cached(i)
		if old, ok := sc.m[k]; ok {
			if v.less(old) {
				sc.m[k] = v
			}
		} else if len(sc.m) < stateCacheMax {
			sc.m[k] = v
		}
	}
}
