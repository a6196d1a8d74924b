// Package pdb builds and reads additive disjoint pattern databases for
// sliding-tile puzzles of up to 5x5 cells (goal: tiles 1..N−1 row-major,
// then the blank).
//
// A pattern is a set of k tiles. Its database holds, for every placement of
// those tiles on the N cells, the least number of moves OF PATTERN TILES
// needed to bring them home, with every other tile interchangeable with the
// blank: the blank walks over non-pattern cells for free. Because each
// move is charged to one pattern only, the values of disjoint patterns add
// up to an admissible bound.
//
// Legend of a table (payload of a tables file, encoding "u8"):
//
//	entry index  rank of the placement (p_0 … p_{k−1}) of the pattern's tiles
//	             in the order given: Σ d_i·(N−1−i)!/(N−k)!, where d_i is p_i
//	             minus the number of earlier p_j below p_i
//	entries      N!/(N−k)!   (4x4: 5 tiles 524,160; 6 tiles 5,765,760;
//	             7 tiles 57,657,600; 8 tiles 518,918,400)
//	value        moves of pattern tiles, minimised over the blank's cell;
//	             255 for a placement that cannot be reached (only when the
//	             pattern leaves at most one tile out, so that parity matters)
package pdb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tessera-solver/tessera/internal/perm"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// MaxCells is the largest board: 5x5. Cell sets fit a uint32.
const MaxCells = 25

// generator is the version of the builder; it is part of every table's
// identity (and file name), so a change of meaning gets a new file.
const generator = 1

// Unreached is the entry of a placement the search never reached.
const Unreached = 0xff

// Positions holds the cell of every tile of a board, indexed by tile
// number (index 0 is the blank). It is the argument of the allocation-free
// lookups; 32 entries let the compiler drop bounds checks.
type Positions [32]uint8

// PositionsOf fills pos from a row-major board.
func PositionsOf(cells []uint8, pos *Positions) {
	for i, t := range cells {
		pos[t&31] = uint8(i)
	}
}

// geom is the board shape shared by the builder and the lookups.
type geom struct {
	rows, cols, n int
	all           uint32           // every cell
	notCol0       uint32           // cells not in the first column
	notColW       uint32           // cells not in the last column
	nb            [MaxCells]uint32 // neighbours of each cell
}

func newGeom(rows, cols int) (geom, error) {
	g := geom{rows: rows, cols: cols, n: rows * cols}
	if rows < 2 || cols < 2 || g.n > MaxCells {
		return g, fmt.Errorf("pdb: %dx%d board unsupported (at most %d cells, sides at least 2)", rows, cols, MaxCells)
	}
	g.all = 1<<g.n - 1
	for c := 0; c < g.n; c++ {
		r, col := c/cols, c%cols
		if col != 0 {
			g.notCol0 |= 1 << c
			g.nb[c] |= 1 << (c - 1)
		}
		if col != cols-1 {
			g.notColW |= 1 << c
			g.nb[c] |= 1 << (c + 1)
		}
		if r > 0 {
			g.nb[c] |= 1 << (c - cols)
		}
		if r < rows-1 {
			g.nb[c] |= 1 << (c + cols)
		}
	}
	return g, nil
}

// fill is the set of cells of free connected to seed (seed ⊆ free).
func (g *geom) fill(seed, free uint32) uint32 {
	x := seed
	for {
		y := (x | x<<1&g.notCol0 | x>>1&g.notColW | x<<g.cols | x>>g.cols) & free
		if y == x {
			return x
		}
		x = y
	}
}

// PDB is one pattern database: built in memory or mapped from a file.
// It is read-only and safe for concurrent use.
type PDB struct {
	g     geom
	k     int
	tiles []uint8 // the pattern, in rank order
	// The index is the k-of-N partial permutation rank of the pattern's
	// cells; mul is a copy of its multipliers (N−1−i)!/(N−k)! for the
	// builder's and the search's rank steppers.
	perm perm.Partial
	mul  [perm.MaxN]uint64
	size uint64 // N!/(N−k)!
	data []byte // one entry per rank
}

// newPDB checks the pattern and prepares the ranking; data is left nil.
func newPDB(rows, cols int, tiles []uint8) (*PDB, error) {
	g, err := newGeom(rows, cols)
	if err != nil {
		return nil, err
	}
	k := len(tiles)
	if k == 0 || k > g.n-1 {
		return nil, fmt.Errorf("pdb: pattern of %d tiles on %d cells", k, g.n)
	}
	var seen uint32
	for _, t := range tiles {
		if t < 1 || int(t) >= g.n || seen&(1<<t) != 0 {
			return nil, fmt.Errorf("pdb: pattern %v: want distinct tiles 1..%d", tiles, g.n-1)
		}
		seen |= 1 << t
	}
	p := &PDB{g: g, k: k, tiles: append([]uint8(nil), tiles...)}
	p.perm = perm.NewPartial(g.n, k)
	p.mul = p.perm.Muls()
	p.size = p.perm.Size()
	return p, nil
}

// Tiles is the pattern in rank order.
func (p *PDB) Tiles() []uint8 { return append([]uint8(nil), p.tiles...) }

// Entries is the number of entries, N!/(N−k)!.
func (p *PDB) Entries() uint64 { return p.size }

// Data is the payload: entry i is the value of the placement of rank i.
// It must not be modified (a mapped table faults).
func (p *PDB) Data() []byte { return p.data }

// rank is the index of a placement (cells of the pattern's tiles in
// pattern order).
func (p *PDB) rank(ps *[MaxCells]uint8) uint64 { return p.perm.Rank(ps[:p.k]) }

// Rank is the entry index of the pattern's placement in pos.
func (p *PDB) Rank(pos *Positions) uint64 {
	var ps [MaxCells]uint8
	for i, t := range p.tiles {
		ps[i] = pos[t&31]
	}
	return p.rank(&ps)
}

// LookupPos is the entry of the placement in pos. It does not allocate.
func (p *PDB) LookupPos(pos *Positions) int {
	return int(p.data[p.Rank(pos)])
}

// Lookup is the entry of a row-major board (0 the blank).
func (p *PDB) Lookup(cells []uint8) int {
	var pos Positions
	PositionsOf(cells, &pos)
	return p.LookupPos(&pos)
}

// Histogram counts the entries of each value (index 255: unreached).
func (p *PDB) Histogram() [256]uint64 {
	var h [256]uint64
	for _, v := range p.data {
		h[v]++
	}
	return h
}

// PatternString is the pattern as it is written in a table header: the
// tiles in rank order, comma-separated ("1,2,3,4,5").
func PatternString(tiles []uint8) string {
	s := make([]string, len(tiles))
	for i, t := range tiles {
		s[i] = strconv.Itoa(int(t))
	}
	return strings.Join(s, ",")
}

// identOf is the identity of the table of pattern tiles on a board of
// rows × cols cells, less its name (Kind.Tables names it).
func identOf(rows, cols int, tiles []uint8) search.Table {
	n := rows * cols
	entries := uint64(1)
	for i := 0; i < len(tiles); i++ {
		entries *= uint64(n - i)
	}
	return search.Table{
		Puzzle:    puzzle.Spec{Kind: puzzle.Sliding, Rows: rows, Cols: cols}.String(),
		Pattern:   PatternString(tiles),
		Encoding:  "u8",
		Entries:   entries,
		Generator: generator,
	}
}

// FromData is the pattern database of tiles on a rows × cols board over
// data, one entry per rank (a built table's Data, or a mapped file's
// payload, which must outlive the PDB and is never written).
func FromData(rows, cols int, tiles []uint8, data []byte) (*PDB, error) {
	p, err := newPDB(rows, cols, tiles)
	if err != nil {
		return nil, err
	}
	if uint64(len(data)) != p.size {
		return nil, fmt.Errorf("pdb pattern %s: %d entries, want %d", PatternString(tiles), len(data), p.size)
	}
	p.data = data
	return p, nil
}
