package pdb

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/sliding"
)

var (
	builtMu sync.Mutex
	built   = map[string]*PDB{}
)

// build builds a table; with default options the table is shared by every
// test of the binary (tests only read it).
func build(t testing.TB, w, h int, tiles []uint8, opt Options) *PDB {
	t.Helper()
	key := fmt.Sprintf("%dx%d:%s", w, h, PatternString(tiles))
	shared := opt.Workers == 0 && opt.chunkWords == 0 && opt.Progress == nil
	if shared {
		builtMu.Lock()
		defer builtMu.Unlock()
		if p := built[key]; p != nil {
			return p
		}
	}
	p, _, err := Build(context.Background(), h, w, tiles, opt)
	if err != nil {
		t.Fatal(err)
	}
	if shared {
		built[key] = p
	}
	return p
}

// partition builds (or reuses) the tables of pt.
func partition(t testing.TB, pt Partition) []*PDB {
	var out []*PDB
	for _, tiles := range pt.Patterns {
		out = append(out, build(t, pt.Cols, pt.Rows, tiles, Options{}))
	}
	return out
}

// naive is an independent reference: a 0-1 BFS with a deque over explicit
// (tile cells, blank cell) states in a map, where the blank steps one cell
// at a time (free over non-pattern cells, one move when it swaps with a
// pattern tile). It returns the minimum over the blank of each placement,
// keyed by the packed tile cells.
func naive(w, h int, tiles []uint8) map[uint64]int {
	n, k := w*h, len(tiles)
	pack := func(ps []uint8, blank uint8) uint64 {
		var key uint64
		for _, c := range ps {
			key = key<<5 | uint64(c)
		}
		return key<<5 | uint64(blank)
	}
	type node struct {
		ps    [MaxCells]uint8
		blank uint8
	}
	var start node
	for i, t := range tiles {
		start.ps[i] = t - 1
	}
	start.blank = uint8(n - 1)
	dist := map[uint64]int{pack(start.ps[:k], start.blank): 0}
	deque := []node{start}
	head := 0 // deque[head:] is live; 0-cost pushes go in front
	for head < len(deque) {
		cur := deque[head]
		head++
		d := dist[pack(cur.ps[:k], cur.blank)]
		br, bc := int(cur.blank)/w, int(cur.blank)%w
		for _, dd := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
			r, c := br+dd[0], bc+dd[1]
			if r < 0 || r >= h || c < 0 || c >= w {
				continue
			}
			cell := uint8(r*w + c)
			nx := cur
			nx.blank = cell
			cost := 0
			for i := 0; i < k; i++ {
				if nx.ps[i] == cell {
					nx.ps[i] = cur.blank
					cost = 1
				}
			}
			key := pack(nx.ps[:k], nx.blank)
			if old, ok := dist[key]; ok && old <= d+cost {
				continue
			}
			dist[key] = d + cost
			if cost == 0 {
				if head > 0 {
					head--
					deque[head] = nx
				} else {
					deque = append([]node{nx}, deque...)
				}
			} else {
				deque = append(deque, nx)
			}
		}
	}
	out := map[uint64]int{}
	for key, d := range dist {
		pl := key >> 5
		if old, ok := out[pl]; !ok || d < old {
			out[pl] = d
		}
	}
	return out
}

func TestAgainstNaive(t *testing.T) {
	cases := []struct {
		w, h  int
		tiles []uint8
	}{
		{3, 3, []uint8{1, 2, 3, 4}},
		{3, 3, []uint8{8, 5, 7, 6}},
		{3, 3, []uint8{1, 2, 3, 4, 5, 6, 7}},
		{4, 2, []uint8{1, 2, 3}},
		{2, 4, []uint8{2, 5, 7}},
		{4, 4, []uint8{1, 2, 3}},
		{4, 4, []uint8{15, 8, 12}},
		{5, 5, []uint8{1, 7, 13}},
		{5, 3, []uint8{14, 1, 9, 2}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dx%d-%s", c.h, c.w, PatternString(c.tiles)), func(t *testing.T) {
			p := build(t, c.w, c.h, c.tiles, Options{Workers: 3, chunkWords: 1})
			ref := naive(c.w, c.h, c.tiles)
			if hist := p.Histogram(); uint64(len(ref)) != p.Entries()-hist[Unreached] {
				t.Fatalf("reference reaches %d placements, table %d of %d", len(ref), p.Entries()-hist[Unreached], p.Entries())
			}
			var ps [MaxCells]uint8
			for r := uint64(0); r < p.Entries(); r++ {
				p.unrank(r, &ps)
				if p.rank(&ps) != r {
					t.Fatalf("rank(unrank(%d)) = %d", r, p.rank(&ps))
				}
				var key uint64
				for _, c := range ps[:p.k] {
					key = key<<5 | uint64(c)
				}
				want, ok := ref[key]
				if !ok {
					want = Unreached
				}
				if got := int(p.data[r]); got != want {
					t.Fatalf("placement %v: entry %d, reference %d", ps[:p.k], got, want)
				}
			}
		})
	}
}

type exact struct {
	tb   *fulltable.Table
	dist []uint8 // by table index
}

var (
	bfsMu     sync.Mutex
	bfsTables = map[[2]int]exact{}
)

// bfsTable builds (once per test binary) the exact distance table of a
// small sliding board, and the distance of every state by table index
// (Distance walks to the goal past 14 moves: do it once).
func bfsTable(t testing.TB, w, h int) (*fulltable.Table, []uint8) {
	t.Helper()
	bfsMu.Lock()
	defer bfsMu.Unlock()
	if e, ok := bfsTables[[2]int{w, h}]; ok {
		return e.tb, e.dist
	}
	tb, err := fulltable.Build(puzzle.Spec{Kind: puzzle.Sliding, Rows: h, Cols: w})
	if err != nil {
		t.Fatal(err)
	}
	dist := make([]uint8, tb.Size())
	cells := make([]uint8, w*h)
	for i := range dist {
		tb.Cells(uint64(i), cells)
		d, _ := tb.Distance(cells)
		dist[i] = uint8(d)
	}
	bfsTables[[2]int{w, h}] = exact{tb, dist}
	return tb, dist
}

// A pattern of every tile leaves nothing to abstract: its entries are the
// exact distances, and the unreachable half of the placements is unreached.
func TestFullPatternIsExact(t *testing.T) {
	for _, sh := range [][2]int{{3, 3}, {4, 2}, {2, 4}} {
		w, h := sh[0], sh[1]
		t.Run(fmt.Sprintf("%dx%d", h, w), func(t *testing.T) {
			var tiles []uint8
			for i := 1; i < w*h; i++ {
				tiles = append(tiles, uint8(i))
			}
			p := build(t, w, h, tiles, Options{})
			tb, dist := bfsTable(t, w, h)
			cells := make([]uint8, w*h)
			for i := uint64(0); i < tb.Size(); i++ {
				tb.Cells(i, cells)
				d := int(dist[i])
				if got := p.Lookup(cells); got != d {
					t.Fatalf("%v: entry %d, distance %d", cells, got, d)
				}
			}
			hist := p.Histogram()
			if hist[Unreached] != p.Entries()/2 {
				t.Errorf("%d unreached placements, want half of %d", hist[Unreached], p.Entries())
			}
			for d, n := range tb.Counts {
				if hist[d] != uint64(n) {
					t.Errorf("depth %d: %d entries, BFS has %d states", d, hist[d], n)
				}
			}
		})
	}
}

// Every state of small boards: the additive sum (and its reflection on
// square boards) is at most the true distance, 0 at the goal, and at least
// Manhattan.
func TestAdditiveAdmissible(t *testing.T) {
	cases := []struct {
		w, h     int
		patterns [][]uint8
	}{
		{3, 3, [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}}},
		{3, 3, [][]uint8{{1, 2, 4}, {3, 5, 6}, {7, 8}}},
		{4, 2, [][]uint8{{1, 2, 5, 6}, {3, 4, 7}}},
		{2, 4, [][]uint8{{1, 3, 5}, {2, 4, 6, 7}}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dx%d", c.h, c.w), func(t *testing.T) {
			var pdbs []*PDB
			for _, tiles := range c.patterns {
				pdbs = append(pdbs, build(t, c.w, c.h, tiles, Options{}))
			}
			s, err := NewSet(pdbs...)
			if err != nil {
				t.Fatal(err)
			}
			tb, dist := bfsTable(t, c.w, c.h)
			cells := make([]uint8, c.w*c.h)
			var pos Positions
			var sum, exact, above int
			for i := uint64(0); i < tb.Size(); i++ {
				tb.Cells(i, cells)
				d := int(dist[i])
				PositionsOf(cells, &pos)
				hs, hr := s.H(&pos), s.HReflected(&pos)
				if hs > d || hr > d {
					t.Fatalf("%v: sum %d, reflected %d, distance %d", cells, hs, hr, d)
				}
				if d == 0 && hs+hr != 0 {
					t.Fatalf("goal: sum %d reflected %d", hs, hr)
				}
				if md := manhattan(c.h, c.w, cells); hs < md || (s.Square() && hr < md) {
					t.Fatalf("%v: sum %d reflected %d below Manhattan %d", cells, hs, hr, md)
				}
				if hr > hs {
					above++
				}
				if s.HReflect(&pos) == d {
					exact++
				}
				sum += s.HReflect(&pos)
			}
			t.Logf("%d states: mean bound %.2f, exact on %d, reflection higher on %d",
				tb.Size(), float64(sum)/float64(tb.Size()), exact, above)
			if s.Square() && above == 0 {
				t.Errorf("the reflected lookup never helps: is it the identity?")
			}
		})
	}
}

// The reflection about the main diagonal maps boards to boards of the same
// distance: checked on every 3x3 state.
func TestReflectionPreservesDistance(t *testing.T) {
	p := build(t, 3, 3, []uint8{1}, Options{})
	s, err := NewSet(p)
	if err != nil {
		t.Fatal(err)
	}
	tb, dist := bfsTable(t, 3, 3)
	cells, refl := make([]uint8, 9), make([]uint8, 9)
	for i := uint64(0); i < tb.Size(); i++ {
		tb.Cells(i, cells)
		for c, v := range cells {
			refl[s.transpose[c]] = s.relabel[v]
		}
		j, ok := tb.Index(refl)
		if !ok || dist[i] != dist[j] {
			t.Fatalf("%v (%d) reflects to %v (%d, %v)", cells, dist[i], refl, dist[j], ok)
		}
	}
}

// manhattanOf is the Manhattan distance of the pattern's tiles in the
// placement ps.
func manhattanOf(p *PDB, ps *[MaxCells]uint8) int {
	w, md := p.g.cols, 0
	for i, t := range p.tiles {
		c, g := int(ps[i]), int(t)-1
		md += abs(c/w-g/w) + abs(c%w-g%w)
	}
	return md
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Each entry is at least its tiles' Manhattan distance (each move of a
// pattern tile changes it by one), so a sum over a partition dominates
// Manhattan.
func checkAboveManhattan(t *testing.T, p *PDB) {
	t.Helper()
	var ps [MaxCells]uint8
	above := 0
	for r := uint64(0); r < p.Entries(); r++ {
		p.unrank(r, &ps)
		md := manhattanOf(p, &ps)
		v := int(p.data[r])
		if v < md {
			t.Fatalf("pattern %v placement %v: entry %d below Manhattan %d", p.tiles, ps[:p.k], v, md)
		}
		if v > md {
			above++
		}
	}
	if above == 0 {
		t.Errorf("pattern %v: no entry above Manhattan", p.tiles)
	}
}

func TestEntriesAboveManhattan(t *testing.T) {
	checkAboveManhattan(t, build(t, 3, 3, []uint8{1, 2, 3, 4}, Options{}))
	checkAboveManhattan(t, build(t, 4, 3, []uint8{1, 2, 5, 6, 9}, Options{}))
	checkAboveManhattan(t, build(t, 5, 5, []uint8{1, 2, 6, 7}, Options{}))
}

func TestBadPatterns(t *testing.T) {
	for _, c := range []struct {
		w, h  int
		tiles []uint8
	}{
		{4, 4, nil},
		{4, 4, []uint8{0, 1}},
		{4, 4, []uint8{16}},
		{4, 4, []uint8{3, 3}},
		{6, 5, []uint8{1}},
		{1, 4, []uint8{1}},
	} {
		if _, _, err := Build(context.Background(), c.h, c.w, c.tiles, Options{}); err == nil {
			t.Errorf("%dx%d pattern %v accepted", c.h, c.w, c.tiles)
		}
	}
	a := build(t, 3, 3, []uint8{1, 2}, Options{})
	b := build(t, 3, 3, []uint8{2, 3}, Options{})
	if _, err := NewSet(a, b); err == nil {
		t.Error("overlapping patterns accepted")
	}
	c := build(t, 4, 3, []uint8{3}, Options{})
	if _, err := NewSet(a, c); err == nil {
		t.Error("tables of two boards accepted")
	}
}

// The builder's successors (incremental ranks, region table on small
// boards) against ranking each successor from scratch, for every state of
// small tables, with placements loaded in rank order and out of order.
func TestBuilderSuccessors(t *testing.T) {
	for _, c := range []struct {
		w, h  int
		tiles []uint8
	}{{3, 3, []uint8{1, 2, 3, 4}}, {4, 3, []uint8{7, 2, 9}}, {5, 5, []uint8{13, 1, 24}}} {
		p, err := newPDB(c.h, c.w, c.tiles)
		if err != nil {
			t.Fatal(err)
		}
		b := &builder{p: p, free: uint64(p.g.n - p.k)}
		b.initSteps()
		b.initRegions()
		g := &p.g
		var pl placement
		pl.r = ^uint64(0)
		var out [maxSucc]uint64
		for i := uint64(0); i < p.size; i++ {
			r := i
			if i%3 == 1 {
				r = (i * 7919) % p.size
			}
			b.load(&pl, r)
			var ps [MaxCells]uint8
			if occ := p.unrank(r, &ps); occ != pl.occ || ps != pl.ps {
				t.Fatalf("%v rank %d: loaded %v, want %v", c.tiles, r, pl.ps[:p.k], ps[:p.k])
			}
			for fi := uint64(0); fi < b.free; fi++ {
				region := g.fill(1<<pl.cells[fi], pl.free)
				var want []uint64
				for j := 0; j < p.k; j++ {
					from := ps[j]
					for to := g.nb[from] & region; to != 0; to &= to - 1 {
						ps[j] = uint8(bits.TrailingZeros32(to))
						nfree := pl.free ^ 1<<from ^ 1<<ps[j]
						want = append(want, p.rank(&ps)*b.free+b.freeIndex(nfree, g.fill(1<<from, nfree)))
						ps[j] = from
					}
				}
				got := out[:b.successors(&pl, pl.cells[fi], &out)]
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("%v rank %d blank %d: successors %v, want %v", c.tiles, r, pl.cells[fi], got, want)
				}
			}
		}
	}
}

// unrank writes the placement of rank r into ps and returns its cell set
// (the builder steps ranks instead, so only the tests need it).
func (p *PDB) unrank(r uint64, ps *[MaxCells]uint8) uint32 { return p.perm.Unrank(r, ps[:p.k]) }

// manhattan is the sum of the tiles' grid distances to their goal cells.
func manhattan(rows, cols int, cells []uint8) int {
	v, hz := sliding.ManhattanAxes(rows, cols, cells)
	return v + hz
}
