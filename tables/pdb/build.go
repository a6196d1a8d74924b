package pdb

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The build is a breadth-first search over abstract states (placement of
// the pattern's tiles, region of the blank): the region is the connected
// set of non-pattern cells holding the blank, inside which the blank moves
// for free. A state is named by its placement's rank and the region's
// lowest cell, counted among the N−k free cells, so the state space is
// entries × (N−k) and every region is one state: the 0-cost moves are a
// flood fill on a cell bitmask, not search steps.
//
// Each state has a 2-bit code in a flat array (32 per word): 0 unvisited,
// 1 or 2 frontier (the two codes alternate between the current level and
// the next), 3 closed. A level scans the array in chunks claimed by
// GOMAXPROCS workers; a frontier state is expanded (every pattern tile next
// to the blank's region moves into it, costing one move), its successors
// are claimed with a compare-and-swap on their word if unvisited, and the
// state is closed with an atomic OR. A chunk covers whole placements, so
// the worker that scans a placement's states is the only writer of its
// entry during the level: the first level that scans any of its states is
// its value.

// Stats describes a build.
type Stats struct {
	States     uint64        // abstract states (placement, blank region) reached
	Levels     []uint64      // states per level (moves of pattern tiles)
	WorkBytes  uint64        // the 2-bit state array
	TableBytes uint64        // the entries
	Elapsed    time.Duration // wall time
}

// Options tunes a build.
type Options struct {
	Workers int // goroutines; 0 means GOMAXPROCS
	// Progress, when set, is called after each level with the number of
	// placements that have their value so far (out of entries): every
	// placement is reached, so placed/entries is the build's progress.
	Progress func(level int, placed, entries uint64)

	chunkWords uint64 // tests: smaller chunks, so small builds interleave
}

// Build computes the database of pattern tiles (in rank order) on a
// w-wide, h-high board.
func Build(ctx context.Context, w, h int, tiles []uint8, opt Options) (*PDB, Stats, error) {
	t0 := time.Now()
	p, err := newPDB(w, h, tiles)
	if err != nil {
		return nil, Stats{}, err
	}
	b := &builder{p: p, free: uint64(p.g.n - p.k)}
	st, err := b.run(ctx, opt)
	st.Elapsed = time.Since(t0)
	if err != nil {
		return nil, st, fmt.Errorf("pdb %s pattern %s: %w", MetaFor("x", w, h, tiles).Puzzle, PatternString(tiles), err)
	}
	p.data = b.dist
	return p, st, nil
}

type builder struct {
	p     *PDB
	free  uint64   // N−k: states per placement
	codes []uint64 // 2 bits per state
	dist  []byte   // the entries
	// A chunk is a whole number of groups; a group is the fewest
	// placements whose states fill whole words.
	groupPl, groupWords uint64
}

const (
	codeClosed = 3
	lanesLo    = 0x5555555555555555
	chunkWords = 2048 // words a worker claims at a time (at least)
)

// lanesEq marks with the low bit of each 2-bit lane the lanes of x equal
// to v.
func lanesEq(x uint64, v uint64) uint64 {
	y := x ^ v*lanesLo
	return ^(y | y>>1) & lanesLo
}

func (b *builder) run(ctx context.Context, opt Options) (Stats, error) {
	p := b.p
	words := stateWords(p.size, b.free)
	b.codes = make([]uint64, words)
	b.dist = make([]byte, p.size)
	for i := range b.dist {
		b.dist[i] = Unreached
	}
	st := Stats{WorkBytes: words * 8, TableBytes: p.size}
	b.groupPl = 32 / gcd(b.free, 32)
	b.groupWords = b.groupPl * b.free / 32

	// The goal: every pattern tile home, the blank in the last cell.
	var ps [MaxCells]uint8
	var occ uint32
	for i, t := range p.tiles {
		ps[i] = t - 1
		occ |= 1 << (t - 1)
	}
	freeCells := p.g.all &^ occ
	region := p.g.fill(1<<(p.g.n-1), freeCells)
	goal := p.rank(&ps)*b.free + b.freeIndex(freeCells, region)
	b.codes[goal/32] = 1 << (goal % 32 * 2)

	nw := opt.Workers
	if nw <= 0 {
		nw = runtime.GOMAXPROCS(0)
	}
	groups := (p.size + b.groupPl - 1) / b.groupPl
	cw := uint64(chunkWords)
	if opt.chunkWords > 0 {
		cw = opt.chunkWords
	}
	perChunk := (cw + b.groupWords - 1) / b.groupWords // groups per chunk
	chunks := (groups + perChunk - 1) / perChunk
	// forChunks runs f over every chunk on nw goroutines and sums its two
	// counts.
	found := make([][2]uint64, nw)
	forChunks := func(f func(lo, hi uint64) (uint64, uint64)) (uint64, uint64) {
		var next atomic.Uint64
		var wg sync.WaitGroup
		for w := 0; w < nw; w++ {
			found[w] = [2]uint64{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				var a, c uint64
				for ctx.Err() == nil {
					ch := next.Add(1) - 1
					if ch >= chunks {
						break
					}
					lo := ch * perChunk * b.groupWords
					x, y := f(lo, min(lo+perChunk*b.groupWords, words))
					a += x
					c += y
				}
				found[w] = [2]uint64{a, c}
			}()
		}
		wg.Wait()
		var a, c uint64
		for _, fw := range found {
			a += fw[0]
			c += fw[1]
		}
		return a, c
	}
	var placed uint64
	frontier := uint64(1)
	for d := 0; frontier > 0; d++ {
		if d >= Unreached {
			return st, fmt.Errorf("level %d: values do not fit a byte", d)
		}
		st.Levels = append(st.Levels, frontier)
		st.States += frontier
		cur := uint64(1 + d&1)
		n, np := forChunks(func(lo, hi uint64) (uint64, uint64) { return b.scan(lo, hi, cur, uint8(d)) })
		if err := ctx.Err(); err != nil {
			return st, err
		}
		frontier = n
		placed += np
		if opt.Progress != nil {
			opt.Progress(d, placed, p.size)
		}
	}
	// With two non-pattern tiles or more, swapping two of them fixes the
	// parity of any placement, so every placement is reachable. With one,
	// a placement whose two free cells have the same colour on the
	// chessboard may be out of reach, and with none half are.
	if p.k <= p.g.n-3 {
		for r, v := range b.dist {
			if v == Unreached {
				return st, fmt.Errorf("placement %d never reached: move generation or ranking bug", r)
			}
		}
	}
	return st, nil
}

// stateWords is the length of the 2-bit state array for entries
// placements with free states each.
func stateWords(entries, free uint64) uint64 { return (entries*free + 31) / 32 }

// BuildMemory is what building the table of a k-tile pattern on a w×h
// board holds: the state array plus the entries.
func BuildMemory(w, h, k int) uint64 {
	n := w * h
	entries := uint64(1)
	for i := 0; i < k; i++ {
		entries *= uint64(n - i)
	}
	return stateWords(entries, uint64(n-k))*8 + entries
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// freeIndex is the state number of a region: how many free cells lie below
// its lowest cell.
func (b *builder) freeIndex(free, region uint32) uint64 {
	low := region & -region
	return uint64(bits.OnesCount32(free & (low - 1)))
}

// scan expands the frontier states (code cur, at depth d) in words
// [lo, hi) and returns how many states it claimed for the next level and
// how many placements got their value.
func (b *builder) scan(lo, hi, cur uint64, d uint8) (found, placed uint64) {
	p, g := b.p, &b.p.g
	nxt := cur ^ 3
	var succ, old [maxSucc]uint64
	var ps [MaxCells]uint8
	lastP := ^uint64(0)
	var occ uint32
	for wi := lo; wi < hi; wi++ {
		m := lanesEq(atomic.LoadUint64(&b.codes[wi]), cur)
		if m == 0 {
			continue
		}
		closeMask := m << 1 // 01 → 11
		if cur == 2 {
			closeMask = m // 10 → 11
		}
		for m != 0 {
			idx := wi*32 + uint64(bits.TrailingZeros64(m))/2
			m &= m - 1
			pl, fi := idx/b.free, idx%b.free
			if pl != lastP {
				occ = p.unrank(pl, &ps)
				lastP = pl
				if b.dist[pl] == Unreached {
					b.dist[pl] = d
					placed++
				}
			}
			freeCells := g.all &^ occ
			bl := freeCells
			for ; fi > 0; fi-- {
				bl &= bl - 1
			}
			region := g.fill(bl&-bl, freeCells)
			ns := b.successors(&ps, occ, region, &succ)
			// Read every successor's word before claiming any: the
			// reads miss the cache and overlap, where a compare-and-swap
			// in between would wait for each.
			for j := 0; j < ns; j++ {
				old[j] = atomic.LoadUint64(&b.codes[succ[j]/32])
			}
			for j := 0; j < ns; j++ {
				if old[j]>>(succ[j]%32*2)&3 == 0 && b.claim(succ[j], nxt) {
					found++
				}
			}
		}
		atomic.OrUint64(&b.codes[wi], closeMask)
	}
	return found, placed
}

// maxSucc bounds the successors of a state: each pattern tile has at most
// four neighbours.
const maxSucc = 4 * MaxCells

// successors writes the state numbers of the successors of the state
// (placement ps with cell set occ, blank region) into out and returns how
// many there are. ps is restored before it returns.
func (b *builder) successors(ps *[MaxCells]uint8, occ, region uint32, out *[maxSucc]uint64) int {
	p, g := b.p, &b.p.g
	n := 0
	for i := 0; i < p.k; i++ {
		from := ps[i]
		to := g.nb[from] & region
		for to != 0 {
			c := uint8(bits.TrailingZeros32(to))
			to &= to - 1
			// Tile i moves from → c; the blank takes its cell.
			ps[i] = c
			nfree := g.all &^ (occ ^ 1<<from ^ 1<<c)
			nreg := g.fill(1<<from, nfree)
			out[n] = p.rank(ps)*b.free + b.freeIndex(nfree, nreg)
			n++
			ps[i] = from
		}
	}
	return n
}

// claim marks state n with code v if it is unvisited.
func (b *builder) claim(n, v uint64) bool {
	w := &b.codes[n/32]
	sh := n % 32 * 2
	for {
		old := atomic.LoadUint64(w)
		if old>>sh&3 != 0 {
			return false
		}
		if atomic.CompareAndSwapUint64(w, old, old|v<<sh) {
			return true
		}
	}
}
