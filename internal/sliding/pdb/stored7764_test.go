package pdb

import (
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/instances"
)

// Partition7764 is an experiment kept with its measurements
// (docs/BENCHMARKS.md, "Measured and dropped"): two
// seven-tile patterns (25!/18! = 2.42 G entries, 2.4 GB each), a six-tile
// one and a 2×2 block at the blank's home, made by adding tile 11 to
// 6666's d and 20 to its c:
//
//	a a a b b
//	a a a b b
//	a c c b b
//	c c d d b
//	c c d d .
//
// It is weaker than 6666 (mean bound 79.58 against 81.30 on Korf and
// Felner's 50; #40 135 M nodes against 11 M), so it is not in the
// catalogue. Build it with PDB_BUILD=24-pdb-7764-a (and b, c, d)
// PDB_BUILD_WRITE=1 BenchmarkBuildStored, then PDB_KF24_SET=7764 for the
// benchmarks.
var Partition7764 = Partition{Name: "7764", Prefix: "24-pdb", Rows: 5, Cols: 5, Patterns: [][]uint8{
	{1, 2, 3, 6, 7, 8, 11}, {4, 5, 9, 10, 14, 15, 20}, {12, 13, 16, 17, 21, 22}, {18, 19, 23, 24}}}

// The 24-pdb-7764 tables take 13 GB and about half an hour to build, so
// their tests read the built files from the tables directory and skip
// when they are missing (CI never has them). Three oracles:
//
//   - the golden histogram of each table (testdata), which pins what the
//     builder computed at this generator;
//   - admissibility: every board within 14 moves of the goal, labelled by
//     breadth-first search, and the fifty Korf–Felner instances, labelled
//     by their published optima, get a bound of at most their distance
//     and at least their Manhattan distance;
//   - dominance: a seven-tile pattern's entry is at least that of any
//     six-tile pattern inside it (6666's d ⊂ 7764's a, c ⊂ b), on random
//     boards, when 24-pdb-6666 is built too.
func stored7764(t *testing.T) ([]*PDB, *Set) {
	dir := storedDir(t)
	var pdbs []*PDB
	for i := range Partition7764.Patterns {
		p := stored(t, dir, Partition7764, i, false)
		if p == nil {
			t.Skipf("24-pdb-7764 (an experiment, not in the catalogue) is not built in %s: PDB_BUILD=24-pdb-7764-a PDB_BUILD_WRITE=1 go test -bench BuildStored, 13.3 GB and about half an hour a seven-tile table", dir)
		}
		pdbs = append(pdbs, p)
	}
	s, err := NewSet(pdbs...)
	if err != nil {
		t.Fatal(err)
	}
	return pdbs, s
}

func TestStored7764Golden(t *testing.T) {
	pdbs, _ := stored7764(t)
	for i, p := range pdbs {
		checkGolden(t, Partition7764.TableName(i), p)
	}
}

func TestStored7764Admissible(t *testing.T) {
	_, s := stored7764(t)
	var pos Positions
	check := func(cells []uint8, d int) {
		PositionsOf(cells, &pos)
		h := s.HReflect(&pos)
		if h > d {
			t.Fatalf("%v: bound %d over distance %d", cells, h, d)
		}
		if md := manhattan(5, 5, cells); s.H(&pos) < md || s.HReflected(&pos) < md {
			t.Fatalf("%v: bounds %d, %d below Manhattan %d", cells, s.H(&pos), s.HReflected(&pos), md)
		}
	}
	n, exact := 0, 0
	bfsSliding55(14, func(cells []uint8, d int) {
		check(cells, d)
		n++
		PositionsOf(cells, &pos)
		if s.HReflect(&pos) == d {
			exact++
		}
	})
	t.Logf("%d boards within 14 moves: bound exact on %d", n, exact)
	var sumH, sumOpt int
	ks := instances.KorfFelner24()
	for _, k := range ks {
		check(k.Cells, k.Opt)
		PositionsOf(k.Cells, &pos)
		sumH += s.HReflect(&pos)
		sumOpt += k.Opt
	}
	t.Logf("Korf–Felner's %d: mean bound %.2f, mean optimum %.2f", len(ks), float64(sumH)/float64(len(ks)), float64(sumOpt)/float64(len(ks)))
}

func TestStored7764Dominates6666(t *testing.T) {
	pdbs, _ := stored7764(t)
	dir := storedDir(t)
	d := stored(t, dir, Partition6666, 3, false) // 1 2 3 6 7 8
	c := stored(t, dir, Partition6666, 2, false) // 4 5 9 10 14 15
	if d == nil || c == nil {
		t.Skipf("24-pdb-6666 is not built in %s", dir)
	}
	rng := rand.New(rand.NewPCG(7764, 1))
	cells := make([]uint8, 25)
	var pos Positions
	higher := [2]int{}
	const boards = 200000
	for range boards {
		for i := range cells {
			cells[i] = uint8(i)
		}
		rng.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
		PositionsOf(cells, &pos)
		for j, pair := range [][2]*PDB{{pdbs[0], d}, {pdbs[1], c}} {
			big, small := pair[0].data[pair[0].Rank(&pos)], pair[1].data[pair[1].Rank(&pos)]
			if big < small {
				t.Fatalf("%v: %s entry %d under the six-tile %s's %d", cells, PatternString(pair[0].tiles), big, PatternString(pair[1].tiles), small)
			}
			if big > small {
				higher[j]++
			}
		}
	}
	t.Logf("of %d random boards, the seven-tile entry is higher on %d (a over 6666-d) and %d (b over 6666-c)", boards, higher[0], higher[1])
}

// bfsSliding55 calls f with every 5×5 board within depth moves of the goal
// and its distance.
func bfsSliding55(depth int, f func(cells []uint8, d int)) {
	var goal [25]uint8
	for i := range 24 {
		goal[i] = uint8(i + 1)
	}
	seen := map[[25]uint8]bool{goal: true}
	level := [][25]uint8{goal}
	for d := 0; d <= depth && len(level) > 0; d++ {
		var next [][25]uint8
		for _, b := range level {
			f(b[:], d)
			z := 0
			for b[z] != 0 {
				z++
			}
			for _, nb := range [4]int{z - 5, z + 5, z - 1, z + 1} {
				if nb < 0 || nb >= 25 || (nb/5 != z/5 && nb%5 != z%5) {
					continue
				}
				c := b
				c[z], c[nb] = c[nb], 0
				if !seen[c] {
					seen[c] = true
					next = append(next, c)
				}
			}
		}
		level = next
	}
}
