package pdb

import (
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
)

// Instance-dependent pattern databases (after Zhou and Hansen 2004, and
// Felner and Adler 2005, "Solving the 24 puzzle with instance dependent
// pattern databases"): a table over a pattern too large to build whole
// (8 tiles of the 24-puzzle: 25!/17! placements) holds only what one
// instance's search needs. Its entries come from an A* search in the
// pattern space from the goal pattern towards the instance's, with the
// pattern tiles' Manhattan distance to their start cells as the
// (consistent) heuristic hs, stopped once it has closed a given number
// of abstract states: every abstract state with d + hs < fstar is closed
// by then, d being its exact distance to the goal pattern.
//
// The bound of an abstract state p is then d(p) ≥ fstar − hs(p) when p
// is not closed, and its d when it is. The table keeps one entry a
// placement of the pattern's tiles (the minimum over the closed blank
// regions), so a node whose blank region was not closed could read a
// closed region's larger entry: min(entry, fstar − hs) is a lower bound
// either way, since a closed state has d + hs ≤ fstar. Near the start
// (hs small) the bound is fstar or the exact 8-tile distance; far from
// it, it fades to nothing, and the 6-6-6-6 tables bound the node as
// before. Measured, it cut few nodes (docs/BENCHMARKS.md, "Fewer nodes"):
// the exact 8-8-8 bound of a start was no higher than 6-6-6-6 with its
// reflection.

// idPartition888 is the 24-puzzle's tiles in three blocks of eight
// (home cells: the left three columns of rows 0-1 and two of row 2; the
// right two columns of rows 0-3; the rest).
var idPartition888 = [][]uint8{
	{1, 2, 3, 6, 7, 8, 11, 12},
	{4, 5, 9, 10, 14, 15, 19, 20},
	{13, 16, 17, 18, 21, 22, 23, 24},
}

// keyTable is an open-addressing set of 40-bit keys with an 8-bit value,
// a slot holding key<<8 | value (0 empty: no key is 0, as a key packs
// distinct cells).
type keyTable struct {
	slots []uint64
	shift uint
	n     int
}

func newKeyTable(logSize uint) *keyTable {
	return &keyTable{slots: make([]uint64, 1<<logSize), shift: 64 - logSize}
}

// slot is key's slot, or the empty one where it would go.
func (t *keyTable) slot(key uint64) *uint64 {
	mask := uint64(len(t.slots) - 1)
	for i := (key * 0x9E3779B97F4A7C15) >> t.shift; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if *s == 0 || *s>>8 == key {
			return s
		}
	}
}

// get is key's value, ok false when absent.
func (t *keyTable) get(key uint64) (uint8, bool) {
	s := *t.slot(key)
	return uint8(s), s != 0
}

// put sets key's value, growing the table past half full.
func (t *keyTable) put(key uint64, v uint8) {
	s := t.slot(key)
	if *s == 0 {
		t.n++
		if 2*t.n > len(t.slots) {
			t.grow()
			s = t.slot(key)
		}
	}
	*s = key<<8 | uint64(v)
}

func (t *keyTable) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	t.shift--
	for _, s := range old {
		if s != 0 {
			*t.slot(s >> 8) = s
		}
	}
}

// idPattern is one pattern's instance-dependent table.
type idPattern struct {
	tiles []uint8
	at    [32]int8 // tile → its index in tiles, −1 when not in the pattern
	// md[i][c] is the Manhattan distance of cell c to tile i's start cell.
	md    [8][32]uint8
	tab   *keyTable // placement key → least closed distance
	fstar int       // every abstract state with d + hs < fstar is closed
	// closed is how many abstract states the build closed.
	closed int
}

// buildIDPattern runs the pattern-space A* for tiles (whose start cells
// are start[i]) from the goal pattern (tile t on cell t−1, the blank on
// the last cell), closing at most maxClosed abstract states.
func buildIDPattern(g *geom, tiles []uint8, start []uint8, maxClosed int) (*idPattern, error) {
	k := len(tiles)
	if k > 8 || len(start) != k {
		return nil, fmt.Errorf("instance pdb: %d tiles", k)
	}
	p := &idPattern{tiles: tiles, fstar: 255}
	for i := range p.at {
		p.at[i] = -1
	}
	for i, t := range tiles {
		p.at[t] = int8(i)
		sr, sc := int(start[i])/g.cols, int(start[i])%g.cols
		for c := range g.n {
			r, q := c/g.cols, c%g.cols
			p.md[i][c] = uint8(abs(r-sr) + abs(q-sc))
		}
	}
	// An abstract state is its placement key (cell of tile i in bits
	// 5i..5i+4) and the least cell of the blank's region (bits 40..44);
	// an open entry adds its distance in bits 45 up.
	const stateBits = 45
	var home Positions
	var occ0 uint32
	for _, t := range tiles {
		home[t] = t - 1
		occ0 |= 1 << (t - 1)
	}
	key0, hs0 := p.place(&home)
	reg0 := g.fill(1<<(g.n-1), g.all&^occ0)
	s0 := key0 | uint64(bits.TrailingZeros32(reg0))<<40
	// seen: state → its best distance so far, bit 7 set once closed.
	seen := newKeyTable(uint(min(max(bits.Len(uint(maxClosed))+2, 10), 24)))
	seen.put(s0, 0)
	var open [256][]uint64
	open[hs0] = append(open[hs0], s0)
	var cells [8]int
	for f := hs0; f < len(open); f++ {
		for len(open[f]) > 0 {
			e := open[f][len(open[f])-1]
			open[f] = open[f][:len(open[f])-1]
			st, d := e&(1<<stateBits-1), int(e>>stateBits)
			sl := seen.slot(st)
			if v := int(uint8(*sl)); v&0x80 != 0 || d > v {
				continue
			}
			if p.closed == maxClosed {
				p.fstar = f
				break
			}
			*sl = st<<8 | uint64(d|0x80)
			p.closed++
			key := st & (1<<40 - 1)
			var occ uint32
			for i := range k {
				cells[i] = int(key>>(5*i)) & 31
				occ |= 1 << cells[i]
			}
			free := g.all &^ occ
			reg := g.fill(1<<(st>>40), free)
			hs := f - d
			for i := range k {
				c := cells[i]
				for to := g.nb[c] & reg; to != 0; to &= to - 1 {
					n := bits.TrailingZeros32(to)
					nocc := occ&^(1<<c) | 1<<n
					nreg := g.fill(1<<c, g.all&^nocc)
					nkey := key&^(31<<(5*i)) | uint64(n)<<(5*i)
					ns := nkey | uint64(bits.TrailingZeros32(nreg))<<40
					nd := d + 1
					nf := nd + hs - int(p.md[i][c]) + int(p.md[i][n])
					s := seen.slot(ns)
					if *s != 0 {
						if v := int(uint8(*s)); v&0x80 != 0 || v <= nd {
							continue
						}
						*s = ns<<8 | uint64(nd)
					} else {
						seen.put(ns, uint8(nd))
					}
					if nf >= len(open) {
						return nil, fmt.Errorf("instance pdb: f %d past the queue", nf)
					}
					open[nf] = append(open[nf], ns|uint64(nd)<<stateBits)
				}
			}
		}
		if p.fstar != 255 {
			break
		}
		open[f] = nil
	}
	// One entry a placement: the least distance of its closed regions.
	p.tab = newKeyTable(uint(bits.Len(uint(p.closed))) + 1)
	for _, s := range seen.slots {
		if s == 0 || s&0x80 == 0 {
			continue
		}
		key, d := (s>>8)&(1<<40-1), uint8(s&0x7f)
		if v, ok := p.tab.get(key); !ok || d < v {
			p.tab.put(key, d)
		}
	}
	return p, nil
}

// place is the key of the pattern's placement in pos and its tiles'
// distance from their start cells.
func (p *idPattern) place(pos *Positions) (key uint64, hs int) {
	for i, t := range p.tiles {
		c := pos[t&31]
		key |= uint64(c) << (5 * i)
		hs += int(p.md[i][c])
	}
	return key, hs
}

// bound is the pattern's lower bound for placement key with the pattern
// tiles hs from their start cells.
func (p *idPattern) bound(key uint64, hs int) int {
	lb := max(p.fstar-hs, 0)
	if v, ok := p.tab.get(key); ok {
		return min(int(v), lb)
	}
	return lb
}

// idSearch is the search over the instance tables (Solver.dual): the
// regular search's children, each raised to the instance tables' bound
// when the regular tables leave it within the bound. Single-threaded.
type idSearch struct {
	pats []*idPattern
	// pat[t] is the instance pattern of tile t (−1 none).
	pat [32]int8
}

// newInstanceSolver is NewSolver over s with instance tables for the
// start cells (row-major, 0 the blank) over part, each closing at most
// maxClosed abstract states.
func newInstanceSolver(s *Set, reflect bool, cells []uint8, part [][]uint8, maxClosed int) (*Solver, *idSearch, error) {
	sv, err := NewSolver(s, reflect)
	if err != nil {
		return nil, nil, err
	}
	g := &s.g
	var at [32]uint8
	for c, t := range cells {
		at[t] = uint8(c)
	}
	ids := &idSearch{}
	for t := range ids.pat {
		ids.pat[t] = -1
	}
	for j, tiles := range part {
		start := make([]uint8, len(tiles))
		for i, t := range tiles {
			start[i] = at[t]
			ids.pat[t] = int8(j)
		}
		p, err := buildIDPattern(g, tiles, start, maxClosed)
		if err != nil {
			return nil, nil, err
		}
		ids.pats = append(ids.pats, p)
	}
	sv.dual, sv.interleave = ids, false
	return sv, ids, nil
}

// idWork is a search's state in the instance tables: per pattern the
// placement key, the tiles' distance from their start cells and the
// bound, and the bounds' sum.
type idWork struct {
	*idaWork
	ids *idSearch
	key [3]uint64
	hs  [3]int
	hx  [3]int
	sum int
}

func (ids *idSearch) begin(k *idaWork) *idWork {
	w := &idWork{idaWork: k, ids: ids}
	for j, p := range ids.pats {
		w.key[j], w.hs[j] = p.place(&k.pos)
		w.hx[j] = p.bound(w.key[j], w.hs[j])
		w.sum += w.hx[j]
	}
	return w
}

func (ids *idSearch) bound(k *idaWork) int { return ids.begin(k).sum }

func (ids *idSearch) dfsRoot(k *idaWork) (int, bool) {
	w := ids.begin(k)
	return w.dfsID(0, int(k.pos[0]), 0, k.sum[0], k.sum[1])
}

// dfsID is dfs (without lanes, prefetching or parallel items) with each
// child that the regular tables leave within the bound looked up in the
// instance tables.
func (k *idWork) dfsID(g, blank int, st int32, s0, s1 int) (int, bool) {
	if k.gate.Visit() {
		return 0, false
	}
	if max(s0, s1) == 0 && k.isGoal() {
		return g, true
	}
	sv := k.Solver
	blank &= 31
	type idChild struct {
		child
		key    uint64
		hs, hx int
		j      int8
	}
	var cs [4]idChild
	nc := 0
	mask := sv.legal[blank] & sv.fsm.allow[st]
	for mask != 0 {
		d := uint8(bits.TrailingZeros8(mask))
		mask &= mask - 1
		m := &sv.moves[blank][d&3]
		t := k.board[m.src&31] & 31
		j0, j1 := sv.pat[0][t]&15, sv.pat[1][t]&15
		d0, d1 := sv.steps(&k.board, m, t)
		r0, r1 := k.rank[0][j0]+d0, k.rank[1][j1]+d1
		v0 := sv.data[j0][r0]
		c0 := s0 - int(k.hv[0][j0]) + int(v0)
		if f := g + 1 + c0; f > k.bound && f >= k.next {
			continue
		}
		v1 := sv.data[j1][r1]
		c1 := s1 - int(k.hv[1][j1]) + int(v1)
		f := g + 1 + max(c0, c1)
		if f > k.bound {
			k.next = min(k.next, f)
			continue
		}
		c := idChild{child: child{r: [2]uint32{r0, r1}, s0: c0, s1: c1, dir: d, t: t, j: [2]uint8{j0, j1}, v: [2]uint8{v0, v1}}, j: -1}
		if x := k.ids.pat[t]; x >= 0 {
			p := k.ids.pats[x]
			i := p.at[t]
			sh := 5 * uint(i) // tile i's cell in the key
			c.j, c.key = x, k.key[x]&^(31<<sh)|uint64(blank)<<sh
			c.hs = k.hs[x] - int(p.md[i][m.src&31]) + int(p.md[i][blank])
			c.hx = p.bound(c.key, c.hs)
			f = max(f, g+1+k.sum-k.hx[x]+c.hx)
			if f > k.bound {
				k.next = min(k.next, f)
				continue
			}
		}
		c.f = f
		cs[nc] = c
		nc++
	}
	for i := 1; i < nc; i++ {
		for j := i; j > 0 && cs[j].f < cs[j-1].f; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	for i := range nc {
		c := &cs[i]
		u := k.enter(blank, &c.child)
		var key uint64
		var hs, hx int
		if x := c.j; x >= 0 {
			key, hs, hx = k.key[x], k.hs[x], k.hx[x]
			k.key[x], k.hs[x], k.hx[x] = c.key, c.hs, c.hx
			k.sum += c.hx - hx
		}
		k.path[g] = c.dir
		if d, ok := k.dfsID(g+1, int(sv.moves[blank][c.dir&3].src), sv.fsm.next[st][c.dir&3], c.s0, c.s1); ok {
			return d, true
		}
		if x := c.j; x >= 0 {
			k.sum += hx - c.hx
			k.key[x], k.hs[x], k.hx[x] = key, hs, hx
		}
		k.leave(blank, &c.child, u)
		if k.gate.Stopped {
			return 0, false
		}
	}
	return 0, false
}

// BenchmarkInstance24 solves Korf and Felner's instances $PDB_ID_IDS
// (default 40,25) over 24-pdb-6666 with reflection and, for each, the
// instance tables of idPartition888 closing $PDB_ID_CLOSED abstract
// states a pattern (default 20,000,000); it logs each table's build and
// the search's nodes and CPU.
//
//	PDB_ID_IDS=40,25 go test -run '^$' -bench Instance24 -benchtime 1x -timeout 0 -v ./internal/sliding/pdb
func BenchmarkInstance24(b *testing.B) {
	ids := "40,25"
	if v := os.Getenv("PDB_ID_IDS"); v != "" {
		ids = v
	}
	maxClosed := 20_000_000
	if v := os.Getenv("PDB_ID_CLOSED"); v != "" {
		var err error
		if maxClosed, err = strconv.Atoi(v); err != nil {
			b.Fatalf("PDB_ID_CLOSED=%q", v)
		}
	}
	sv0, _ := storedSolver(b, storedDir(b), Partition6666)
	byID := map[int]instances.Instance{}
	for _, k := range instances.KorfFelner24() {
		byID[k.ID] = k
	}
	var nodes int64
	cpu0 := coretest.CPUTime()
	for range b.N {
		nodes = 0
		for _, f := range strings.Split(ids, ",") {
			id, err := strconv.Atoi(f)
			k, ok := byID[id]
			if err != nil || !ok {
				b.Fatalf("PDB_ID_IDS=%q", ids)
			}
			c0 := coretest.CPUTime()
			sv, is, err := newInstanceSolver(sv0.set, true, k.Cells, idPartition888, maxClosed)
			if err != nil {
				b.Fatal(err)
			}
			built := coretest.CPUTime() - c0
			var pos Positions
			PositionsOf(k.Cells, &pos)
			w := is.begin(&idaWork{Solver: sv, pos: pos})
			var st []string
			for j, p := range is.pats {
				st = append(st, fmt.Sprintf("closed %d f* %d bound %d", p.closed, p.fstar, w.hx[j]))
			}
			b.Logf("#%d (%d moves): regular bound %d, instance %d (%s), built in %.1f s cpu",
				k.ID, k.Opt, sv0.set.HReflect(&pos), w.sum, strings.Join(st, "; "), built.Seconds())
			c1 := coretest.CPUTime()
			out, err := sv.Solve(k.Cells, search.Budget{})
			if err != nil {
				b.Fatal(err)
			}
			if len(out.Path) != k.Opt || !coretest.SlidingSolved(coretest.SlidePath(5, k.Cells, out.Path)) {
				b.Fatalf("#%d: %d moves, optimum %d", k.ID, len(out.Path), k.Opt)
			}
			nodes += out.Nodes
			b.Logf("#%d: %d nodes, %.1f s cpu searching", k.ID, out.Nodes, (coretest.CPUTime() - c1).Seconds())
		}
	}
	b.ReportMetric((coretest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(nodes), "nodes")
}
