package pdb

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

var update = flag.Bool("update", false, "rewrite the golden histograms in testdata/")

// histogramText is the golden form of a table: its identity, then one
// "value entries" line per value present.
func histogramText(name string, p *PDB) string {
	m := identOf(p.g.rows, p.g.cols, p.tiles)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s pattern %s, %d entries, generator %d\n", name, m.Puzzle, m.Pattern, m.Entries, m.Generator)
	fmt.Fprintf(&b, "# value entries (255: unreached)\n")
	for v, n := range p.Histogram() {
		if n != 0 {
			fmt.Fprintf(&b, "%d %d\n", v, n)
		}
	}
	return b.String()
}

func checkGolden(t *testing.T, name string, p *PDB) {
	t.Helper()
	path := filepath.Join("testdata", name+".txt")
	got := histogramText(name, p)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update ./internal/sliding/pdb to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: histogram differs from %s:\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}

// TestGoldenHistograms builds small tables and compares each one's value
// histogram with testdata: any change in what the builder computes shows.
func TestGoldenHistograms(t *testing.T) {
	type tc struct {
		name  string
		w, h  int
		tiles []uint8
		long  bool
	}
	cases := []tc{
		{"8-pdb-44-a", 3, 3, []uint8{1, 2, 3, 4}, false},
		{"8-pdb-44-b", 3, 3, []uint8{5, 6, 7, 8}, false},
		{"8-pdb-full", 3, 3, []uint8{1, 2, 3, 4, 5, 6, 7, 8}, false},
		{"2x4-pdb-full", 4, 2, []uint8{1, 2, 3, 4, 5, 6, 7}, false},
		{"11-pdb-6-a", 4, 3, []uint8{1, 2, 3, 5, 6, 9}, false},
		{"24-pdb-4-a", 5, 5, []uint8{1, 2, 6, 7}, false},
	}
	for _, pt := range []Partition{Partition555, Partition663} {
		for i, tiles := range pt.Patterns {
			// The 6-tile builds take seconds each: not in -short.
			cases = append(cases, tc{pt.TableName(i), pt.Cols, pt.Rows, tiles, len(tiles) > 5})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("6-tile build: not in -short")
			}
			checkGolden(t, c.name, build(t, c.w, c.h, c.tiles, Options{}))
		})
	}
}

// The bounds of the 5-5-5 set on Korf's 100 and on random boards: at
// least Manhattan, at most the published optimum, and the reflected
// lookup agrees with a lookup of the explicitly reflected board.
func TestKorfBounds555(t *testing.T) {
	pdbs := partition(t, Partition555)
	s, err := NewSet(pdbs...)
	if err != nil {
		t.Fatal(err)
	}
	var pos, rpos Positions
	refl := make([]uint8, 16)
	check := func(cells []uint8, opt int) (int, int) {
		PositionsOf(cells, &pos)
		h, hr := s.H(&pos), s.HReflected(&pos)
		for c, v := range cells {
			refl[s.transpose[c]] = s.relabel[v]
		}
		PositionsOf(refl, &rpos)
		if hr != s.H(&rpos) {
			t.Fatalf("%v: reflected lookup %d, lookup of the reflected board %v %d", cells, hr, refl, s.H(&rpos))
		}
		sum := 0
		for _, p := range pdbs {
			sum += p.Lookup(cells)
		}
		if sum != h || s.Heuristic(cells) != max(h, hr) {
			t.Fatalf("%v: Set.H %d, sum of lookups %d, Heuristic %d", cells, h, sum, s.Heuristic(cells))
		}
		md := manhattan(4, 4, cells)
		if h < md || hr < md {
			t.Fatalf("%v: bounds %d, %d below Manhattan %d", cells, h, hr, md)
		}
		if opt >= 0 && (h > opt || hr > opt) {
			t.Fatalf("%v: bounds %d, %d above the optimum %d", cells, h, hr, opt)
		}
		return h, hr
	}
	var sh, shr, sopt int
	for _, k := range instances.Korf100() {
		h, hr := check(k.Cells, k.Opt)
		sh, shr, sopt = sh+h, shr+max(h, hr), sopt+k.Opt
	}
	t.Logf("Korf's 100: mean bound %.2f, with reflection %.2f, mean optimum %.2f", float64(sh)/100, float64(shr)/100, float64(sopt)/100)
	rng := rand.New(rand.NewPCG(4, 4))
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	for i := 0; i < 20000; i++ {
		check(puzzle.Random(spec, rng).Cells, -1)
	}
	// Short walks from the goal bound the distance from above.
	for i := 0; i < 20000; i++ {
		n := rng.IntN(30)
		st := puzzle.RandomWalk(spec, rng, n)
		check(st.Cells, n)
	}
	goal := puzzle.Goal(spec).Cells
	if h, hr := check(goal, 0); h != 0 || hr != 0 {
		t.Fatalf("goal: %d, %d", h, hr)
	}
}

// TestConcurrentBuild gives several workers tiny chunks, so under -race
// they claim and close states in the same words; the result must not
// depend on the interleaving.
func TestConcurrentBuild(t *testing.T) {
	tiles := []uint8{1, 2, 3, 5, 6}
	one := build(t, 4, 3, tiles, Options{Workers: 1})
	for _, o := range []Options{{Workers: 4, chunkWords: 1}, {Workers: 3, chunkWords: 7}} {
		many := build(t, 4, 3, tiles, o)
		if string(one.Data()) != string(many.Data()) {
			t.Fatalf("%+v: entries differ from a one-worker build", o)
		}
	}
}

// TestProgress: levels are reported in order and the last report has
// every placement valued.
func TestProgress(t *testing.T) {
	var levels []int
	var last, total uint64
	p := build(t, 4, 3, []uint8{1, 2, 3, 5}, Options{Progress: func(level int, placed, entries uint64) {
		if placed < last {
			t.Errorf("level %d: placed went down from %d to %d", level, last, placed)
		}
		levels = append(levels, level)
		last, total = placed, entries
	}})
	if total != p.Entries() || last != total {
		t.Fatalf("last report %d of %d, want %d of %d", last, total, p.Entries(), p.Entries())
	}
	for i, l := range levels {
		if l != i {
			t.Fatalf("levels reported %v", levels)
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Build(ctx, 4, 4, []uint8{1, 2, 3, 4, 5}, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
}

// BuildMemory, which the datasheet prints before or without a build,
// is what a build allocates for its arrays.
func TestBuildMemory(t *testing.T) {
	_, st, err := Build(context.Background(), 3, 4, []uint8{1, 2, 3, 5, 6}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := BuildMemory(3, 4, 5); got != st.WorkBytes+st.TableBytes {
		t.Fatalf("BuildMemory %d, build held %d + %d", got, st.WorkBytes, st.TableBytes)
	}
}
