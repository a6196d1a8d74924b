package fulltable

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tessera-solver/tessera/internal/nibble"
)

// chunkWords is the unit of work a worker claims: 16,384 states, small
// enough to balance two cores, large enough that claiming is free.
const chunkWords = 1024

// build fills t.Packed and t.Counts. Each level scans the whole table in
// chunks shared by GOMAXPROCS workers. Early levels push (expand the
// frontier, claim unvisited neighbours with a CAS on the containing word);
// once the unvisited states are few compared with the frontier's edges it
// pulls instead (each unvisited state looks for a neighbour in the frontier;
// a worker owns the words it claims, so it writes them with plain atomic
// stores). Every table word is read with atomic loads during the build, so
// the race detector has nothing to report and no word is torn.
func (t *Table) build(ctx context.Context) error {
	s := t.sp
	words := (s.size + 15) / 16
	t.Packed = make([]uint64, words)
	for i := range t.Packed {
		t.Packed[i] = ^uint64(0) // every entry unreached
	}
	g := s.goalIndex
	t.Packed[g>>4] &^= uint64(unreached) << ((g & 15) << 2)
	t.Counts = []int64{1}

	nw := runtime.GOMAXPROCS(0)
	workers := make([]worker, nw)
	for i := range workers {
		workers[i] = worker{s: s, tab: t.Packed}
	}
	visited := int64(1)
	for d := 0; ; d++ {
		frontier := t.Counts[d]
		unvisited := int64(s.size) - visited
		if unvisited == 0 {
			break
		}
		// Pull costs about one rank per neighbour of each unvisited state
		// (fewer when a frontier neighbour turns up early); push costs one
		// per neighbour of each frontier state plus a random write.
		pull := unvisited < frontier*2
		var next atomic.Int64 // next chunk to claim
		var wg sync.WaitGroup
		for i := range workers {
			w := &workers[i]
			w.found = 0
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.level(ctx, &next, uint8(d%modulus), pull)
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		var found int64
		for i := range workers {
			found += workers[i].found
		}
		if found == 0 {
			break
		}
		t.Counts = append(t.Counts, found)
		visited += found
	}
	if visited != int64(s.size) {
		// The index is exact, so a gap means the move generator or the
		// parity rule is wrong: refuse the table rather than hand it out.
		return fmt.Errorf("reached %d of %d states: move generation or indexing bug", visited, s.size)
	}
	return nil
}

// worker is one goroutine's scratch space, reused for every state.
type worker struct {
	s     *space
	tab   []uint64
	b     board
	nb    [maxDegree]uint64
	found int64
}

// level processes chunks until none are left: cur is depth mod 15 of the
// frontier.
func (w *worker) level(ctx context.Context, next *atomic.Int64, cur uint8, pull bool) {
	words := int64(len(w.tab))
	for {
		lo := next.Add(chunkWords) - chunkWords
		if lo >= words {
			return
		}
		if ctx.Err() != nil {
			return
		}
		hi := min(lo+chunkWords, words)
		if pull {
			w.pull(lo, hi, cur)
		} else {
			w.push(lo, hi, cur)
		}
	}
}

func (w *worker) push(lo, hi int64, cur uint8) {
	s, tab := w.s, w.tab
	nxt := uint64((cur + 1) % modulus)
	for wi := lo; wi < hi; wi++ {
		m := nibble.Eq(atomic.LoadUint64(&tab[wi]), cur)
		for m != 0 {
			// Padding lanes hold 15, never a frontier value: idx < size.
			idx := uint64(wi)<<4 | uint64(bits.TrailingZeros64(m)>>2)
			m &= m - 1
			s.unrank(idx, &w.b)
			k := s.neighbours(&w.b, idx, &w.nb)
			for _, n := range w.nb[:k] {
				if nibble.Claim(tab, n, nxt) {
					w.found++
				}
			}
		}
	}
}

func (w *worker) pull(lo, hi int64, cur uint8) {
	s, tab := w.s, w.tab
	nxt := uint64((cur + 1) % modulus)
	for wi := lo; wi < hi; wi++ {
		x := atomic.LoadUint64(&tab[wi])
		m := nibble.Eq(x, unreached)
		if m == 0 {
			continue
		}
		nx := x
		for m != 0 {
			j := uint64(bits.TrailingZeros64(m) >> 2)
			m &= m - 1
			idx := uint64(wi)<<4 | j
			if idx >= s.size {
				break // padding
			}
			s.unrank(idx, &w.b)
			if s.touches(&w.b, idx, cur, w.get) {
				nx = nx&^(15<<(j<<2)) | nxt<<(j<<2)
				w.found++
			}
		}
		if nx != x {
			atomic.StoreUint64(&tab[wi], nx)
		}
	}
}

// get reads one entry during the build.
func (w *worker) get(i uint64) uint8 {
	return uint8(atomic.LoadUint64(&w.tab[i>>4])>>((i&15)<<2)) & 15
}
