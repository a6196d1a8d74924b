package twophase

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/nibble"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/tables"
)

// naiveCounts is a plain BFS over the cells of the first k pattern
// pieces, keyed by the cells themselves, to depth maxDepth (−1: all).
func naiveCounts(k, maxDepth int) (map[[7]uint8]int, []int64) {
	var start [7]uint8
	copy(start[:], PatternCells[:k])
	dist := map[[7]uint8]int{start: 0}
	counts := []int64{1}
	frontier := [][7]uint8{start}
	for d := 0; len(frontier) > 0 && (maxDepth < 0 || d < maxDepth); d++ {
		var next [][7]uint8
		for _, p := range frontier {
			for m := 0; m < nMove; m++ {
				var q [7]uint8
				for i := 0; i < k; i++ {
					q[i] = dest[m][p[i]]
				}
				if _, ok := dist[q]; !ok {
					dist[q] = d + 1
					next = append(next, q)
				}
			}
		}
		if len(next) > 0 {
			counts = append(counts, int64(len(next)))
		}
		frontier = next
	}
	return dist, counts
}

func entry(tab []uint64, i uint64) int { return int(tab[i>>4]>>((i&15)<<2)) & 15 }

func TestRankRoundTrip(t *testing.T) {
	for _, k := range []int{1, 3, 6, 7} {
		n := patSize(k)
		step := max(n/5000, 1)
		var p [7]uint8
		for i := uint64(0); i < n; i += step {
			unrank(i, p[:k])
			if got := rank(p[:k]); got != i {
				t.Fatalf("k=%d: rank(unrank(%d)) = %d (%v)", k, i, got, p[:k])
			}
		}
	}
}

// TestBuilderSmall checks the parallel push/pull builder against the naive
// BFS on every entry of the 3- and 4-piece tables.
func TestBuilderSmall(t *testing.T) {
	for _, k := range []int{3, 4} {
		for _, workers := range []int{1, 2, 3} {
			tab, counts, err := buildPDB(context.Background(), k, -1, workers, nil)
			if err != nil {
				t.Fatal(err)
			}
			dist, want := naiveCounts(k, -1)
			if !slices.Equal(counts, want) {
				t.Fatalf("k=%d workers=%d: counts %v, naive %v", k, workers, counts, want)
			}
			if uint64(len(dist)) != patSize(k) {
				t.Fatalf("k=%d: naive reached %d of %d", k, len(dist), patSize(k))
			}
			for p, d := range dist {
				if got := entry(tab, rank(p[:k])); got != d {
					t.Fatalf("k=%d workers=%d: %v: table %d, naive %d", k, workers, p[:k], got, d)
				}
			}
		}
	}
}

// TestPhase1FirstLevels checks the seed's published counts of the full
// six-piece table for the first levels, by naive BFS and by the builder
// stopped early.
func TestPhase1FirstLevels(t *testing.T) {
	_, counts := naiveCounts(6, 4)
	if !slices.Equal(counts, phase1Counts[:5]) {
		t.Fatalf("naive counts %v, seed %v", counts, phase1Counts[:5])
	}
	if testing.Short() {
		t.Skip("builder to depth 3 scans 64 MB per level")
	}
	_, counts, err := buildPDB(context.Background(), 6, 3, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(counts, phase1Counts[:4]) {
		t.Fatalf("builder counts %v, seed %v", counts, phase1Counts[:4])
	}
}

// TestPhase7FirstLevels checks the seven-piece table's first levels: the
// builder stopped early against the naive BFS and the golden histogram.
func TestPhase7FirstLevels(t *testing.T) {
	_, counts := naiveCounts(7, 4)
	if !slices.Equal(counts, phase7Counts[:5]) {
		t.Fatalf("naive counts %v, golden %v", counts, phase7Counts[:5])
	}
	if testing.Short() {
		t.Skip("builder to depth 4 scans 1.2 GB per level")
	}
	tab, counts := capped7()
	if !slices.Equal(counts, phase7Counts[:len(counts)]) {
		t.Fatalf("builder counts %v, golden %v", counts, phase7Counts)
	}
	near, _ := naiveCounts(7, len(counts)-1)
	for p, d := range near {
		if got := entry(tab, rank(p[:])); got != d {
			t.Fatalf("entry %v = %d, BFS %d", p, got, d)
		}
	}
}

// capped7 is the seven-piece table exact to depth 4 and 5 beyond, still
// an admissible bound (seconds, where the full table takes minutes):
// packed words, and the builder's counts.
var capped7 = sync.OnceValues(func() ([]uint64, []int64) {
	tab, counts, err := buildPDB(context.Background(), 7, 4, 2, nil)
	if err != nil {
		panic(err)
	}
	return tab, counts
})

// TestPhase1Full builds the whole table and checks its histogram;
// TESSERA_BFS_BIG=1 turns it on. TESSERA_BFS_BIG=7 builds the seven-piece
// table instead (1.2 GB).
func TestPhase1Full(t *testing.T) {
	build, entries, golden, m := phase6, uint64(phase1Entries), phase1Counts, phase1Meta()
	switch os.Getenv("TESSERA_BFS_BIG") {
	case "1":
	case "7":
		build, entries, golden, m = phase7, phase7Entries, phase7Counts, phase7Meta()
	default:
		t.Skip("set TESSERA_BFS_BIG=1 to build the 127.5 M-entry phase-1 table (7: the 2.4 G-entry one)")
	}
	t0 := time.Now()
	payload, counts, err := build(context.Background(), func(done, total uint64) { t.Logf("%v: %d of %d", time.Since(t0), done, total) })
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(payload)) != (entries+1)/2 {
		t.Fatalf("payload %d bytes", len(payload))
	}
	if !slices.Equal(counts, golden) {
		t.Fatalf("counts %v, golden %v", counts, golden)
	}
	t.Logf("built in %v", time.Since(t0))
	if dir := os.Getenv("TESSERA_SOLVER_TABLES_DIR"); dir != "" {
		m.Counts = counts
		path, _, err := tables.Write(dir, m, payload)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
	}
}

// phase1Meta is the table's identity as the catalogue should name it.
func phase1Meta() tables.Meta { return metaOf(Kind{Pieces: 6}.Tables()[0]) }

// phase7Meta is the seven-piece table's identity.
func phase7Meta() tables.Meta { return metaOf(Kind{Pieces: 7}.Tables()[0]) }

// openPhase1 maps the table from $TESSERA_SOLVER_TABLES_DIR, or skips.
func openPhase1(tb testing.TB) []byte {
	dir := os.Getenv("TESSERA_SOLVER_TABLES_DIR")
	if dir == "" {
		tb.Skip("set TESSERA_SOLVER_TABLES_DIR to a directory holding the phase-1 table")
	}
	m := phase1Meta()
	f, err := tables.Open(filepath.Join(dir, m.FileName()), m, false)
	if err != nil {
		tb.Skip(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f.Data
}

// unrank is rank's inverse for k = len(p) cells (the builder steps ranks
// instead, so only the tests need it).
func unrank(idx uint64, p []uint8) { patPerm[len(p)].Unrank(idx, p) }

// TestPayloadDigests pins small tables of k pieces (capped at maxDepth
// when not negative) byte for byte, with their histograms, so a builder
// change that moves one entry fails here.
func TestPayloadDigests(t *testing.T) {
	for _, c := range []struct {
		k, maxDepth int
		want        string
	}{{3, -1, "c8f1b9461d2b790f38554a1e0ee659de57974d49370c1c48612a02111b0a8d60"}, {4, -1, "3a0084d5c43bed89f9dc265df1bff3c7be1b5877f8288d4cfd01eb020ac21865"}, {5, -1, "8ea73a03e25acd4837115081b938d28b9ef60e98ccf8bb1471bf50bbb27b1c09"}, {5, 3, "b670f1342e3f9ba4a1d20351d4cd54a3e14dcd75ea2b83ccb61af67eb3e08144"}, {4, 6, "d5f6f362f69e8d654641997add508a6e11b6c21fc53002d1d01eb45fa9e2cfee"}} {
		tab, counts, err := buildPDB(context.Background(), c.k, c.maxDepth, 2, nil)
		h := sha256.New()
		fmt.Fprint(h, counts)
		h.Write(nibble.Payload(tab, patSize(c.k)))
		if got := hex.EncodeToString(h.Sum(nil)); err != nil || got != c.want {
			t.Errorf("%d pieces to depth %d: %v, digest of counts %v and payload %s, want %s", c.k, c.maxDepth, err, counts, got, c.want)
		}
	}
}

// metaOf is the header of a table as its kind describes it (package
// tables may not import the solvers' vocabulary: results links it).
func metaOf(id search.Table) tables.Meta {
	return tables.Meta{Name: id.Name, Puzzle: id.Puzzle, Pattern: id.Pattern, Encoding: id.Encoding,
		Entries: id.Entries, Generator: id.Generator}
}

func phase6(ctx context.Context, progress func(done, total uint64)) ([]byte, []int64, error) {
	return buildPhase(ctx, 6, progress)
}

func phase7(ctx context.Context, progress func(done, total uint64)) ([]byte, []int64, error) {
	return buildPhase(ctx, 7, progress)
}
