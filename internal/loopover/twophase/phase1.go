package twophase

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tessera-solver/tessera/internal/nibble"
	"github.com/tessera-solver/tessera/internal/perm"
)

// Phase1Entries is the number of entries of the phase-1 table: the cells
// of the six pieces of the block's top two rows, 25!/19!.
const Phase1Entries = 127512000

// Phase1Encoding is the phase-1 table's entry encoding: 4-bit distances,
// two to a byte, low nibble first (entry i in byte i/2).
const Phase1Encoding = "u4"

// Phase1Pattern names the pieces of the phase-1 table, for its file header.
const Phase1Pattern = "1-3,6-8"

// Phase1Generator versions BuildPhase1: bump it when the index or the
// entries change meaning.
const Phase1Generator = 1

// Phase1Counts is the golden depth histogram of the phase-1 table (the
// seed's table of the big phase-1 solver).
var Phase1Counts = []int64{1, 10, 94, 880, 7558, 58432, 402862, 2335840, 10374813, 30419907, 47958515, 30962779, 4936603, 53706}

// Phase7Entries is the number of entries of the seven-piece phase-1
// table (the six pieces and K, the block's bottom-left piece): 25!/18!.
const Phase7Entries = 2422728000

// Phase7Pattern names the pieces of the seven-piece table.
const Phase7Pattern = "1-3,6-8,11"

// Phase7Generator versions BuildPhase7.
const Phase7Generator = 1

// Phase7Counts is the golden depth histogram of the seven-piece table.
var Phase7Counts = []int64{1, 12, 121, 1190, 11085, 96313, 771602, 5542127, 33871714, 161523439, 523516288, 932489705, 657276042, 106331470, 1296781, 110}

// patCells are the goal cells of the pattern pieces in index order: the
// top two rows of the 3×3 block, then its bottom-left cell (the first six
// index the six-piece table, all seven the seven-piece one).
var patCells = [7]uint8{0, 1, 2, 5, 6, 7, 10}

// patSize is the number of entries of the table of the first k pattern
// pieces, 25!/(25−k)!.
func patSize(k int) uint64 { return patPerm[k].Size() }

// patPerm[k] ranks the cells of the first k pattern pieces: each cell's
// rank among the cells still free, in mixed radix 25, 24, … (the phase-1
// file's index order).
var patPerm = func() (t [len(patCells) + 1]perm.Partial) {
	for k := 1; k < len(t); k++ {
		t[k] = perm.NewPartial(cells, k)
	}
	return t
}()

// rank indexes distinct cells p[0..k).
func rank(p []uint8) uint64 { return patPerm[len(p)].Rank(p) }

const unreached = nibble.Unreached

// BuildPhase1 builds the phase-1 pattern database in memory using every
// core (progress, if not nil, is called after each BFS level with the
// entries reached), returning the payload in the file layout (see
// Phase1Encoding) and the depth histogram. It holds the 64 MB packed
// table (the payload is a view of it) and takes about a minute on two
// cores.
func BuildPhase1(ctx context.Context, progress func(done, total uint64)) (payload []byte, counts []int64, err error) {
	return buildPhase(ctx, 6, progress)
}

// BuildPhase7 builds the seven-piece phase-1 table as BuildPhase1 does:
// 1.2 GB, held once (the payload is a view of the packed table), and
// about five minutes on two cores. Where it is present the solver reads
// it instead of the six-piece one: phase 1 needs fewer nodes, and answers
// come about half a move shorter in the same time.
func BuildPhase7(ctx context.Context, progress func(done, total uint64)) (payload []byte, counts []int64, err error) {
	return buildPhase(ctx, 7, progress)
}

func buildPhase(ctx context.Context, k int, progress func(done, total uint64)) ([]byte, []int64, error) {
	packed, counts, err := buildPDB(ctx, k, -1, runtime.GOMAXPROCS(0), progress)
	if err != nil {
		return nil, nil, err
	}
	return nibble.Payload(packed, patSize(k)), counts, nil
}

// chunkWords is the unit of work a builder worker claims (16 entries a
// word): small enough to balance the cores, large enough to claim freely.
const chunkWords = 1024

// buildPDB runs a level-synchronous BFS from the goal over the cells of
// the first k pattern pieces under all twenty shifts, stopping after
// level maxDepth when it is not negative (the entries it has not reached
// then hold maxDepth+1). Early levels push (expand the
// frontier, claim unreached neighbours with a CAS on their word); once the
// unreached entries are few compared with the frontier it pulls (each
// unreached entry looks for a neighbour in the frontier and the worker
// owning its chunk stores it). Every word is accessed atomically, so the
// race detector is quiet and no word is torn.
func buildPDB(ctx context.Context, k, maxDepth, workers int, progress func(done, total uint64)) ([]uint64, []int64, error) {
	size := patSize(k)
	words := (size + 15) / 16
	tab := make([]uint64, words)
	for i := range tab {
		tab[i] = ^uint64(0)
	}
	g := rank(patCells[:k])
	tab[g>>4] &^= unreached << ((g & 15) << 2)
	counts := []int64{1}
	visited := int64(1)
	if progress != nil {
		progress(uint64(visited), size)
	}
	ws := make([]pdbWorker, max(workers, 1))
	for d := 0; maxDepth < 0 || d < maxDepth; d++ {
		frontier, unvisited := counts[d], int64(size)-visited
		if unvisited == 0 {
			break
		}
		pull := unvisited < 2*frontier
		var next atomic.Int64
		var wg sync.WaitGroup
		for i := range ws {
			w := &ws[i]
			*w = pdbWorker{tab: tab, k: k, size: size}
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.level(ctx, &next, uint8(d), pull)
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var found int64
		for i := range ws {
			found += ws[i].found
		}
		if found == 0 {
			break
		}
		counts = append(counts, found)
		visited += found
		if progress != nil {
			progress(uint64(visited), size)
		}
	}
	if maxDepth < 0 && visited != int64(size) {
		return nil, nil, fmt.Errorf("phase-1 table: reached %d of %d entries: move or index bug", visited, size)
	}
	if maxDepth >= 0 {
		// Stopped early: the entries not reached hold maxDepth+1, which
		// none of their states exceeds, so the table is still a bound
		// (as buildWDTable's capped tables are).
		fill := uint64(min(maxDepth+1, unreached-1))
		for i, w := range tab {
			lanes := nibble.Eq(w, unreached) >> 3 * 15 // all four bits of each unreached lane
			tab[i] = w&^lanes | lanes/15*fill
		}
	}
	return tab, counts, nil
}

type pdbWorker struct {
	tab   []uint64
	k     int
	size  uint64
	found int64
}

func (w *pdbWorker) level(ctx context.Context, next *atomic.Int64, cur uint8, pull bool) {
	words := int64(len(w.tab))
	for {
		lo := next.Add(chunkWords) - chunkWords
		if lo >= words || ctx.Err() != nil {
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

// neighbour is the index (by pp) after move m of the pieces at p, or
// false when m moves none of them.
func neighbour(pp *perm.Partial, p []uint8, m int, q []uint8) (uint64, bool) {
	moved := false
	d := &dest[m]
	for i, x := range p {
		q[i] = d[x]
		moved = moved || q[i] != x
	}
	if !moved {
		return 0, false
	}
	return pp.Rank(q), true
}

func (w *pdbWorker) push(lo, hi int64, cur uint8) {
	tab, k := w.tab, w.k
	nxt := uint64(cur + 1)
	pp := &patPerm[k]
	var pb, qb [7]uint8
	p, q := pb[:k], qb[:k]
	for wi := lo; wi < hi; wi++ {
		m := nibble.Eq(atomic.LoadUint64(&tab[wi]), cur)
		for m != 0 {
			idx := uint64(wi)<<4 | uint64(bits.TrailingZeros64(m)>>2)
			m &= m - 1
			pp.Unrank(idx, p)
			for mv := 0; mv < nMove; mv++ {
				if n, ok := neighbour(pp, p, mv, q); ok && nibble.Claim(tab, n, nxt) {
					w.found++
				}
			}
		}
	}
}

func (w *pdbWorker) pull(lo, hi int64, cur uint8) {
	tab, k := w.tab, w.k
	nxt := uint64(cur + 1)
	pp := &patPerm[k]
	var pb, qb [7]uint8
	p, q := pb[:k], qb[:k]
	for wi := lo; wi < hi; wi++ {
		x := atomic.LoadUint64(&tab[wi])
		m := nibble.Eq(x, unreached)
		nx := x
		for m != 0 {
			j := uint64(bits.TrailingZeros64(m) >> 2)
			m &= m - 1
			idx := uint64(wi)<<4 | j
			if idx >= w.size {
				break // padding
			}
			pp.Unrank(idx, p)
			for mv := 0; mv < nMove; mv++ {
				n, ok := neighbour(pp, p, mv, q)
				if ok && uint8(atomic.LoadUint64(&tab[n>>4])>>((n&15)<<2))&15 == cur {
					nx = nx&^(15<<(j<<2)) | nxt<<(j<<2)
					w.found++
					break
				}
			}
		}
		if nx != x {
			atomic.StoreUint64(&tab[wi], nx)
		}
	}
}
