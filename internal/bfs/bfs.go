// Package bfs is the one level-by-level breadth-first table filler
// (min2phase's one table filler): Build, the parallel builder of
// 4-bit-entry tables, which the whole-space tables of internal/fulltable,
// the Loopover phase-1 table, the Loopover walking-distance tables (the
// 5×5 file and those built in memory) and the 4×4 Loopover pattern
// databases call; and Serial, its one-goroutine, byte-per-entry loop for
// the small tables built in milliseconds (serial.go). A caller supplies only its
// encoding — the index space, the goal indices and a Walker that names an
// index's neighbours — and gets the packed table and its depth histogram.
//
// Build owns the rest: the level loop; the chunks of the index space
// that GOMAXPROCS workers claim in turn; the switch from pushing (expand
// the frontier, claim each unreached neighbour with a compare-and-swap on
// its word) to pulling (each unreached index looks for a neighbour in the
// frontier, and the worker owning its chunk stores it) once the unreached
// indices are few compared with the frontier; the depth cap, after which
// unreached entries hold MaxDepth+1; progress; and the histogram. Every
// table word is accessed atomically during the build, so the race detector
// is quiet and no word is torn.
package bfs

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tessera-solver/tessera/internal/nibble"
)

// Walker is one worker's view of a table's encoding, with its own scratch
// space (Build makes one per worker). Expand is called once per frontier
// index, not once per neighbour, and reaches each neighbour through the
// concrete Level, so the hot loop makes one interface call per state.
type Walker interface {
	// Expand calls lv.Reach(n) for every index n one move from idx.
	// Duplicates are harmless. idx is below Spec.Size and reached.
	Expand(idx uint64, lv *Level)
}

// Puller is a Walker that can also pull: Touches reports whether an index
// one move from idx is in the frontier (lv.InFrontier), and may stop at the
// first. The move relation must be symmetric (n is one move from idx
// exactly when idx is one move from n), which it is for puzzle moves that
// have inverses. idx is below Spec.Size and unreached; for an index that
// is no state (a hole in a sparse index) Touches returns false. Builds
// whose walkers are not Pullers push every level.
type Puller interface {
	Walker
	Touches(idx uint64, lv *Level) bool
}

// Spec is what a table's BFS needs besides its Walker.
type Spec struct {
	Size    uint64   // entries: indices 0 … Size−1
	Reached uint64   // indices the whole BFS reaches (0: Size); less when the index has holes
	Goals   []uint64 // depth 0, distinct
	Workers int      // goroutines; 0 or less: GOMAXPROCS
	// MaxDepth, when not negative, stops the BFS after that level: the
	// entries not reached then hold min(MaxDepth+1, 14), which none of
	// their states exceeds, so the table is still a lower bound.
	MaxDepth int
	// Wrap stores depth d as d mod 15, for tables deeper than 14 that are
	// read by descent (a neighbour one closer holds (v−1) mod 15). Without
	// it an entry is its depth, and a depth of 15 (indistinguishable from
	// "unreached") is accepted only as the last level and only pulled.
	Wrap bool
	// Progress, if not nil, is told the indices reached so far (of
	// Reached) before the first level and after each.
	Progress func(done, total uint64)
}

// Table is a built table: entry i is bits 4·(i mod 16) … of Packed[i/16]
// (nibble.Payload gives the file layout), padding lanes past Size hold 15
// (or the cap's fill); Counts[d] is the number of indices at depth d.
type Table struct {
	Packed []uint64
	Counts []int64
}

// ErrIncomplete is returned when an uncapped BFS reaches fewer indices
// than Spec.Reached: the caller's moves or index are wrong.
var ErrIncomplete = errors.New("bfs: reached fewer indices than the space holds")

// ErrTooDeep is returned when a table without Wrap has indices deeper
// than its 4-bit entries hold.
var ErrTooDeep = errors.New("bfs: indices deeper than 4-bit entries hold")

// ChunkWords is the unit of work a worker claims: 16,384 entries, small
// enough to balance the cores, large enough that claiming is free.
const ChunkWords = 1024

// Build runs the BFS of s with one Walker per worker from newWalker,
// stopping with ctx's error when it is cancelled (checked per chunk).
func Build(ctx context.Context, s Spec, newWalker func() Walker) (Table, error) {
	reached := s.Reached
	if reached == 0 {
		reached = s.Size
	}
	if len(s.Goals) == 0 || uint64(len(s.Goals)) > reached {
		return Table{}, fmt.Errorf("bfs: %d goals for %d indices", len(s.Goals), reached)
	}
	words := (s.Size + 15) / 16
	tab := make([]uint64, words)
	for i := range tab {
		tab[i] = ^uint64(0) // every entry unreached
	}
	for _, g := range s.Goals {
		if g >= s.Size || entry(tab, g) != nibble.Unreached {
			return Table{}, fmt.Errorf("bfs: goal %d out of %d indices or repeated", g, s.Size)
		}
		tab[g>>4] &^= nibble.Unreached << ((g & 15) << 2)
	}
	counts := []int64{int64(len(s.Goals))}
	visited := uint64(len(s.Goals))
	if s.Progress != nil {
		s.Progress(visited, reached)
	}
	nw := s.Workers
	if nw <= 0 {
		nw = runtime.GOMAXPROCS(0)
	}
	ws := make([]worker, nw)
	canPull := true
	for i := range ws {
		w := newWalker()
		p, ok := w.(Puller)
		canPull = canPull && ok
		ws[i] = worker{walker: w, puller: p, lv: &Level{tab: tab}, size: s.Size}
	}
	chunks := (words + ChunkWords - 1) / ChunkWords
	for d := 0; s.MaxDepth < 0 || d < s.MaxDepth; d++ {
		unvisited := reached - visited
		if unvisited == 0 {
			break
		}
		cur, nxt := s.value(d), s.value(d+1)
		if cur == nibble.Unreached {
			// Level 15 filled the "unreached" value; nothing can follow it.
			return Table{}, fmt.Errorf("%w: %d of %d indices are more than 15 moves deep", ErrTooDeep, unvisited, reached)
		}
		// Pull costs a look at the neighbours of each unreached index
		// (fewer when a frontier neighbour turns up early); push a look at
		// the neighbours of each frontier index plus a random write. A
		// level whose value is 15 is always pulled: pushing it would claim
		// the same entry again and again, since 15 reads as unreached.
		pull := canPull && (unvisited < 2*uint64(counts[d]) || nxt == nibble.Unreached)
		for i := range ws {
			ws[i].lv.cur, ws[i].lv.nxt, ws[i].lv.found = cur, nxt, 0
		}
		ForChunks(ctx, nw, chunks, func(w int, ch uint64) {
			lo := ch * ChunkWords
			hi := min(lo+ChunkWords, words)
			if pull {
				ws[w].pull(lo, hi)
			} else {
				ws[w].push(lo, hi)
			}
		})
		if err := ctx.Err(); err != nil {
			return Table{}, err
		}
		var found uint64
		for i := range ws {
			found += ws[i].lv.found
		}
		if found == 0 {
			break
		}
		if nxt == nibble.Unreached && !pull {
			return Table{}, fmt.Errorf("%w: indices 15 moves deep, and the walker cannot pull", ErrTooDeep)
		}
		counts = append(counts, int64(found))
		visited += found
		if s.Progress != nil {
			s.Progress(visited, reached)
		}
	}
	if s.MaxDepth < 0 && visited != reached {
		return Table{}, fmt.Errorf("%w: %d of %d", ErrIncomplete, visited, reached)
	}
	if s.MaxDepth >= 0 {
		fillUnreached(tab, uint64(min(s.MaxDepth+1, nibble.Unreached-1)))
	}
	return Table{Packed: tab, Counts: counts}, nil
}

// value is the entry of depth d.
func (s *Spec) value(d int) uint64 {
	if s.Wrap {
		return uint64(d % nibble.Unreached)
	}
	return uint64(min(d, nibble.Unreached))
}

// fillUnreached sets every unreached lane of tab to v.
func fillUnreached(tab []uint64, v uint64) {
	for i, w := range tab {
		lanes := nibble.Eq(w, nibble.Unreached) >> 3 * 15 // all four bits of each unreached lane
		tab[i] = w&^lanes | lanes/15*v
	}
}

func entry(tab []uint64, i uint64) uint64 { return tab[i>>4] >> ((i & 15) << 2) & 15 }

// ForChunks runs f on workers goroutines (at least one) that claim chunk
// numbers 0 … chunks−1 in turn, each chunk once, until none is left or
// ctx is done; w is the goroutine's number, for per-worker state. It
// returns when every goroutine has.
func ForChunks(ctx context.Context, workers int, chunks uint64, f func(w int, chunk uint64)) {
	var next atomic.Uint64
	var wg sync.WaitGroup
	for w := range max(workers, 1) {
		wg.Go(func() {
			for ctx.Err() == nil {
				ch := next.Add(1) - 1
				if ch >= chunks {
					return
				}
				f(w, ch)
			}
		})
	}
	wg.Wait()
}

// Level is one worker's view of the table during one level: what a
// Walker reaches the table through.
type Level struct {
	tab      []uint64
	cur, nxt uint64 // the frontier's value and the next level's
	found    uint64 // entries this worker labelled in this level
}

// Reach claims index n for the next level if it is unreached (of the
// workers that reach it at once, exactly one counts it).
func (l *Level) Reach(n uint64) {
	if nibble.Claim(l.tab, n, l.nxt) {
		l.found++
	}
}

// InFrontier reports whether index n is at the depth being expanded.
func (l *Level) InFrontier(n uint64) bool {
	return atomic.LoadUint64(&l.tab[n>>4])>>((n&15)<<2)&15 == l.cur
}

type worker struct {
	walker Walker
	puller Puller // nil when walker cannot pull
	lv     *Level
	size   uint64
}

// push expands the frontier indices of words [lo, hi).
func (w *worker) push(lo, hi uint64) {
	tab, cur := w.lv.tab, w.lv.cur
	for wi := lo; wi < hi; wi++ {
		m := nibble.Eq(atomic.LoadUint64(&tab[wi]), uint8(cur))
		for m != 0 {
			// Padding lanes hold 15, never a pushed frontier's value.
			idx := wi<<4 | uint64(bits.TrailingZeros64(m)>>2)
			m &= m - 1
			w.walker.Expand(idx, w.lv)
		}
	}
}

// pull labels the unreached indices of words [lo, hi) that have a
// neighbour in the frontier; the worker owns those words in this level.
func (w *worker) pull(lo, hi uint64) {
	tab, nxt := w.lv.tab, w.lv.nxt
	for wi := lo; wi < hi; wi++ {
		x := atomic.LoadUint64(&tab[wi])
		m := nibble.Eq(x, nibble.Unreached)
		nx := x
		for m != 0 {
			j := uint64(bits.TrailingZeros64(m) >> 2)
			m &= m - 1
			idx := wi<<4 | j
			if idx >= w.size {
				break // padding
			}
			if w.puller.Touches(idx, w.lv) {
				nx = nx&^(15<<(j<<2)) | nxt<<(j<<2)
				w.lv.found++
			}
		}
		if nx != x {
			atomic.StoreUint64(&tab[wi], nx)
		}
	}
}
