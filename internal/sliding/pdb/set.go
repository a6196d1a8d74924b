package pdb

import (
	"context"
	"fmt"
)

// Partition is a named set of disjoint patterns of one board, and the
// table names of its members.
type Partition struct {
	Name     string // e.g. "555": table i is named Prefix + "-" + Name + "-" + 'a'+i
	Prefix   string // e.g. "15-pdb"
	Rows     int
	Cols     int
	Patterns [][]uint8
}

// TableName is the name of the i-th pattern's table ("15-pdb-555-a").
func (pt Partition) TableName(i int) string {
	return fmt.Sprintf("%s-%s-%c", pt.Prefix, pt.Name, 'a'+i)
}

// The 15-puzzle partitions (goal 1..15 row-major, blank last):
//
//	555:  a = 1 2 3 4 7          663:  a = 1 2 3 4 5 6
//	      b = 5 6 9 10 13              b = 7 8 11 12 14 15
//	      c = 8 11 12 14 15            c = 9 10 13
//
//	 a a a a        a a a a
//	 b b a c        a a b b
//	 b b c c        c c b b
//	 b c c .        c b b .
//
// Both are asymmetric under the transposition about the main diagonal, so
// the reflected lookup (see Set.HReflect) gives a second, different bound.
// They were picked among a dozen compact candidates for the highest mean
// bound on Korf's 100 (555: 41.73 direct, 42.25 with reflection; 663:
// 42.29 and 42.87; mean optimum 53.05).
//
// 78 is Korf and Felner's split into the top two rows and the bottom two
// (a = 1..8, b = 9..15): 519 MB and 58 MB, the strongest bound that fits
// in memory with room to spare.
//
// The 24-puzzle's 6666 is Korf and Felner's partition, turned by 180°
// because the blank's home here is the last cell:
//
//	d d d c c
//	d d d c c
//	b b a c c
//	b b a a a
//	b b a a .
//
//	a = 13 18 19 20 23 24, b = 11 12 16 17 21 22, c = 4 5 9 10 14 15,
//	d = 1 2 3 6 7 8.
var (
	Partition78 = Partition{Name: "78", Prefix: "15-pdb", Rows: 4, Cols: 4, Patterns: [][]uint8{
		{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15}}}
	Partition6666 = Partition{Name: "6666", Prefix: "24-pdb", Rows: 5, Cols: 5, Patterns: [][]uint8{
		{13, 18, 19, 20, 23, 24}, {11, 12, 16, 17, 21, 22}, {4, 5, 9, 10, 14, 15}, {1, 2, 3, 6, 7, 8}}}
	Partition555 = Partition{Name: "555", Prefix: "15-pdb", Rows: 4, Cols: 4, Patterns: [][]uint8{
		{1, 2, 3, 4, 7}, {5, 6, 9, 10, 13}, {8, 11, 12, 14, 15}}}
	Partition663 = Partition{Name: "663", Prefix: "15-pdb", Rows: 4, Cols: 4, Patterns: [][]uint8{
		{1, 2, 3, 4, 5, 6}, {7, 8, 11, 12, 14, 15}, {9, 10, 13}}}
)

// BuildPartition builds every table of pt in memory, one after the other
// (each build uses every core).
func BuildPartition(ctx context.Context, pt Partition, opt Options) ([]*PDB, []Stats, error) {
	var out []*PDB
	var sts []Stats
	for _, tiles := range pt.Patterns {
		p, st, err := Build(ctx, pt.Rows, pt.Cols, tiles, opt)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, p)
		sts = append(sts, st)
	}
	return out, sts, nil
}

// Set is a group of disjoint pattern databases of one board: the sum of
// their entries is an admissible bound. On square boards it also looks up
// the state reflected about the main diagonal, which has the same
// distance. A Set is read-only and safe for concurrent use.
type Set struct {
	g    geom
	pdbs []*PDB
	// of[t] is the index of the pattern holding tile t, or −1.
	of [32]int8
	// Reflection (square boards): the reflected board has tile
	// relabel[t] on cell transpose[c] where the board has t on c.
	square    bool
	relabel   [32]uint8
	transpose [32]uint8
	// rtiles[j][i] is the tile of the board whose reflection is the i-th
	// tile of pattern j: relabel is an involution.
	rtiles [][]uint8
}

// NewSet groups pdbs, which must be of one board and pairwise disjoint.
func NewSet(pdbs ...*PDB) (*Set, error) {
	if len(pdbs) == 0 {
		return nil, fmt.Errorf("pdb set: no tables")
	}
	s := &Set{g: pdbs[0].g, pdbs: pdbs}
	for i := range s.of {
		s.of[i] = -1
	}
	for j, p := range pdbs {
		if p.g.rows != s.g.rows || p.g.cols != s.g.cols {
			return nil, fmt.Errorf("pdb set: tables of %dx%d and %dx%d boards", s.g.rows, s.g.cols, p.g.rows, p.g.cols)
		}
		for _, t := range p.tiles {
			if s.of[t] >= 0 {
				return nil, fmt.Errorf("pdb set: tile %d is in patterns %d and %d: the sum would not be admissible", t, s.of[t], j)
			}
			s.of[t] = int8(j)
		}
	}
	side := s.g.cols // of a square board
	s.square = s.g.rows == s.g.cols
	if s.square {
		for c := 0; c < s.g.n; c++ {
			s.transpose[c] = uint8(c%side*side + c/side)
		}
		for t := 1; t < s.g.n; t++ {
			s.relabel[t] = s.transpose[t-1] + 1
		}
		for _, p := range pdbs {
			rt := make([]uint8, len(p.tiles))
			for i, t := range p.tiles {
				rt[i] = s.relabel[t]
			}
			s.rtiles = append(s.rtiles, rt)
		}
	}
	return s, nil
}

// PDBs are the member tables.
func (s *Set) PDBs() []*PDB { return s.pdbs }

// Square reports whether the reflected lookup is available.
func (s *Set) Square() bool { return s.square }

// H is the additive bound of the board with tile positions pos.
func (s *Set) H(pos *Positions) int {
	h := 0
	for _, p := range s.pdbs {
		h += int(p.data[p.Rank(pos)])
	}
	return h
}

// reflectedRank is pattern j's rank in the reflected board.
func (s *Set) reflectedRank(j int, pos *Positions) uint64 {
	p := s.pdbs[j]
	var ps [MaxCells]uint8
	for i, t := range s.rtiles[j] {
		ps[i] = s.transpose[pos[t&31]&31]
	}
	return p.rank(&ps)
}

// HReflected is the additive bound of the board reflected about the main
// diagonal (square boards only; 0 otherwise).
func (s *Set) HReflected(pos *Positions) int {
	if !s.square {
		return 0
	}
	h := 0
	for j, p := range s.pdbs {
		h += int(p.data[s.reflectedRank(j, pos)])
	}
	return h
}

// HReflect is max(H, HReflected).
func (s *Set) HReflect(pos *Positions) int {
	return max(s.H(pos), s.HReflected(pos))
}

// Heuristic is HReflect of a row-major board (0 the blank).
func (s *Set) Heuristic(cells []uint8) int {
	var pos Positions
	PositionsOf(cells, &pos)
	return s.HReflect(&pos)
}
