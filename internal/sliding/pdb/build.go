package pdb

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/tessera-solver/tessera/internal/bfs"
	"github.com/tessera-solver/tessera/internal/perm"
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
//
// Expansion is mostly arithmetic, kept cheap: a successor's rank is
// stepped from its placement's (as in the search), its region comes from
// a table on boards of up to 16 cells, placements are unranked from the
// digits they share with the previous one, and the words of a batch of
// successors are read before any is claimed.
//
// It does not run on internal/bfs's builder, which the other tables share:
// that builder's entries are the 4-bit depths of the very indices it
// searches, while here the searched states (placement, blank region) are
// not the entries (an entry is the least depth over its placement's N−k
// states, written by the one worker whose chunk covers the placement), a
// state takes 2 bits rather than 4 (0.75 GB instead of 1.5 for a
// 24-puzzle table), and successors are claimed in batches. What does fit
// is shared: the chunks are claimed through bfs.ForChunks.

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

// Build computes the database of pattern tiles (in rank order) on a board
// of rows × cols cells.
func Build(ctx context.Context, rows, cols int, tiles []uint8, opt Options) (*PDB, Stats, error) {
	t0 := time.Now()
	p, err := newPDB(rows, cols, tiles)
	if err != nil {
		return nil, Stats{}, err
	}
	b := &builder{p: p, free: uint64(p.g.n - p.k)}
	st, err := b.run(ctx, opt)
	st.Elapsed = time.Since(t0)
	if err != nil {
		return nil, st, fmt.Errorf("pdb %s pattern %s: %w", identOf(rows, cols, tiles).Puzzle, PatternString(tiles), err)
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
	// Successor steps in state numbers (rank steps × free): horiz[i] when
	// pattern tile i moves by one column, vert[i] by one row before the
	// correction cross[i][u] for each pattern tile u it jumps over (see
	// successors). 32 entries let indexes masked by 31 drop bounds checks.
	horiz, vert [32]uint64
	cross       [32][32]uint64
	// On boards of at most 16 cells, regions[free] holds in nibble c the
	// state number (free index of the lowest cell) of the region of cell
	// c when the free cells are free: the flood fill of every successor
	// becomes one lookup in 512 KB.
	regions []uint64
}

// regionTableCells is the largest board that gets a region table.
const regionTableCells = 16

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
	b.initSteps()
	b.initRegions()
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
	// forChunks runs f over every chunk on nw goroutines (internal/bfs's
	// chunk claiming) and sums its two counts.
	found := make([][2]uint64, nw)
	forChunks := func(f func(lo, hi uint64) (uint64, uint64)) (uint64, uint64) {
		clear(found)
		bfs.ForChunks(ctx, nw, chunks, func(w int, ch uint64) {
			lo := ch * perChunk * b.groupWords
			x, y := f(lo, min(lo+perChunk*b.groupWords, words))
			found[w][0] += x
			found[w][1] += y
		})
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

// initSteps fills the successor steps.
func (b *builder) initSteps() {
	p := b.p
	for i := 0; i < p.k; i++ {
		b.horiz[i] = p.mul[i] * b.free
		b.vert[i] = uint64(p.g.cols) * b.horiz[i]
	}
	for i := 0; i < p.k; i++ {
		for u := 0; u < p.k; u++ {
			if u < i {
				b.cross[i][u] = -b.horiz[i]
			} else if u > i {
				b.cross[i][u] = b.horiz[u]
			}
		}
	}
}

// initRegions fills the region table on small boards.
func (b *builder) initRegions() {
	g := &b.p.g
	if g.n > regionTableCells {
		return
	}
	b.regions = make([]uint64, 1<<g.n)
	for free := uint32(0); free <= g.all; free++ {
		var e uint64
		for left := free; left != 0; {
			reg := g.fill(left&-left, free)
			left &^= reg
			fi := uint64(bits.OnesCount32(free & (reg&-reg - 1)))
			for c := reg; c != 0; c &= c - 1 {
				e |= fi << (bits.TrailingZeros32(c) * 4)
			}
		}
		b.regions[free] = e
	}
}

// stateWords is the length of the 2-bit state array for entries
// placements with free states each.
func stateWords(entries, free uint64) uint64 { return (entries*free + 31) / 32 }

// BuildMemory is what building the table of a k-tile pattern on a board
// of rows × cols cells holds: the state array plus the entries.
func BuildMemory(rows, cols, k int) uint64 {
	n := rows * cols
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
	nxt := cur ^ 3
	var pl placement
	pl.r = ^uint64(0)
	// The successors of several states are claimed together: their words
	// are read first, so that the reads, which mostly miss the cache,
	// overlap; a compare-and-swap among them would wait for each.
	var pend, old [claimBatch]uint64
	np := 0
	flush := func() {
		for j := range np {
			old[j] = atomic.LoadUint64(&b.codes[pend[j]/32])
		}
		for j := range np {
			if old[j]>>(pend[j]%32*2)&3 == 0 && b.claim(pend[j], nxt) {
				found++
			}
		}
		np = 0
	}
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
			r, fi := idx/b.free, idx%b.free
			if r != pl.r {
				b.load(&pl, r)
				if b.dist[r] == Unreached {
					b.dist[r] = d
					placed++
				}
			}
			if np > claimBatch-maxSucc {
				flush()
			}
			np += b.successors(&pl, pl.cells[fi], (*[maxSucc]uint64)(pend[np:]))
		}
		atomic.OrUint64(&b.codes[wi], closeMask)
	}
	flush()
	return found, placed
}

// claimBatch is how many successors scan collects before claiming them.
const claimBatch = 256

// placement is what the expansion of a placement's states shares. A
// scan meets placements in rank order, and consecutive ones mostly share
// their leading digits: load keeps each digit's prefix and redoes only
// the digits that changed. It is perm.Partial.Unrank (same multipliers,
// same picks) made incremental: a full unrank per placement would redo
// every digit's division.
type placement struct {
	r     uint64           // rank
	s     uint64           // r × free: the number of its first state
	occ   uint32           // cells of the pattern's tiles
	free  uint32           // the other cells
	at    [32]uint8        // cell → the index of its pattern tile
	cells [MaxCells]uint8  // the free cells, lowest first
	ps    [MaxCells]uint8  // cell of each pattern tile
	base  [MaxCells]uint64 // Σ digit·mul over the digits before i
	used  [MaxCells]uint32 // cells of the tiles before i
	// On boards of at most 16 cells, the cells not in used[i], lowest
	// first, a nibble each: digit i picks its cell in O(1).
	list [MaxCells]uint64
}

// load fills pl for the placement of rank r; pl.r is ^0 before the first.
func (b *builder) load(pl *placement, r uint64) {
	p := b.p
	i := 0
	if pl.r != ^uint64(0) {
		// The first digit that differs: digits before i agree when r
		// lies in the same block of mul[i−1] ranks.
		for i = 1; i < p.k && r-pl.base[i] < p.mul[i-1]; i++ {
		}
		i--
	} else {
		pl.list[0] = perm.Identity
	}
	used, base := pl.used[i], pl.base[i]
	if p.g.n <= 16 {
		list := pl.list[i]
		for ; i < p.k; i++ {
			pl.used[i], pl.base[i], pl.list[i] = used, base, list
			d := (r - base) / p.mul[i]
			base += d * p.mul[i]
			c := perm.Take(&list, uint32(d))
			pl.ps[i] = c
			pl.at[c&31] = uint8(i)
			used |= 1 << c
		}
		for j := range b.free {
			pl.cells[j] = uint8(list >> (j * 4 & 63) & 15)
		}
	} else {
		for ; i < p.k; i++ {
			pl.used[i], pl.base[i] = used, base
			d := (r - base) / p.mul[i]
			base += d * p.mul[i]
			c := perm.Nth(p.g.all&^used, uint32(d))
			pl.ps[i] = c
			pl.at[c&31] = uint8(i)
			used |= 1 << c
		}
		f := p.g.all &^ used
		for j := 0; f != 0; j++ {
			pl.cells[j] = uint8(bits.TrailingZeros32(f))
			f &= f - 1
		}
	}
	pl.r, pl.s = r, r*b.free
	pl.occ = used
	pl.free = p.g.all &^ used
}

// maxSucc bounds the successors of a state: each pattern tile has at most
// four neighbours.
const maxSucc = 4 * MaxCells

// successors writes the state numbers of the successors of the state
// (placement pl, blank on cell blank) into out and returns how many there
// are. Every pattern tile next to the blank's region may move into any of
// its neighbours in the region; the blank's new region is the one of the
// tile's old cell.
//
// The successor's rank is the placement's, stepped as in the search: a
// horizontal move changes only the tile's digit, by one; a vertical move
// changes it by cols less the earlier tiles it jumps over, and each later
// tile it jumps over by one.
func (b *builder) successors(pl *placement, blank uint8, out *[maxSucc]uint64) int {
	g := &b.p.g
	region := g.fill(1<<(blank&31), pl.free)
	border := (region<<1&g.notCol0 | region>>1&g.notColW | region<<g.cols | region>>g.cols) & pl.occ
	n := 0
	for border != 0 {
		from := uint32(bits.TrailingZeros32(border))
		border &= border - 1
		i := pl.at[from&31] & 31
		cr := &b.cross[i]
		to := g.nb[from&31] & region
		for to != 0 {
			c := uint32(bits.TrailingZeros32(to))
			to &= to - 1
			nfree := pl.free ^ 1<<from ^ 1<<c
			var fi uint64
			if b.regions != nil {
				fi = b.regions[nfree] >> (from * 4) & 15
			} else {
				nreg := g.fill(1<<from, nfree)
				fi = uint64(bits.OnesCount32(nfree & (nreg&-nreg - 1)))
			}
			lo, hi := min(from, c), max(from, c)
			step := b.horiz[i]
			if hi-lo > 1 {
				step = b.vert[i]
				for jumped := pl.occ & (1<<hi - 1) &^ (1<<(lo+1) - 1); jumped != 0; jumped &= jumped - 1 {
					step += cr[pl.at[bits.TrailingZeros32(jumped)&31]&31]
				}
			}
			if c < from {
				step = -step
			}
			out[n] = pl.s + step + fi
			n++
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
