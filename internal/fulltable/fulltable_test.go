package fulltable

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

func sliding(r, c int) puzzle.Spec  { return puzzle.Spec{Kind: puzzle.Sliding, Rows: r, Cols: c} }
func loopover(r, c int) puzzle.Spec { return puzzle.Spec{Kind: puzzle.Loopover, Rows: r, Cols: c} }

// Tables are shared between tests: building is the expensive part.
var cache = map[puzzle.Spec]*Table{}

func build(t testing.TB, sp puzzle.Spec) *Table {
	t.Helper()
	if tb, ok := cache[sp]; ok {
		return tb
	}
	tb, err := Build(sp)
	if err != nil {
		t.Fatalf("Build(%s): %v", sp, err)
	}
	cache[sp] = tb
	return tb
}

// published returns the published sliding distributions, copied into
// testdata/sliding-RxC.txt from /work/shared/data/sliding-distributions.md
// (OEIS A090034, A089473, A090035, A090036, A090166) so that a bare
// checkout can run the test; when the shared file is present the copies
// are checked against it.
func published(t *testing.T) map[string][]int64 {
	t.Helper()
	out := map[string][]int64{}
	for _, b := range []string{"2x3", "3x3", "2x4", "2x5", "3x4"} {
		data, err := os.ReadFile(filepath.Join("testdata", "sliding-"+b+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var d int
			var n int64
			if _, err := fmt.Sscanf(line, "%d %d", &d, &n); err != nil || d != i {
				t.Fatalf("testdata sliding-%s.txt line %d %q: %v", b, i+1, line, err)
			}
			out[b] = append(out[b], n)
		}
	}
	shared, err := os.ReadFile("/work/shared/data/sliding-distributions.md")
	if err != nil {
		return out // the shared tree is not part of the repository
	}
	for _, row := range strings.Split(string(shared), "\n") {
		cols := strings.Split(row, "|")
		if len(cols) < 6 || !strings.Contains(cols[1], "×") {
			continue
		}
		b := strings.ReplaceAll(strings.TrimSpace(cols[1]), "×", "x")
		want, ok := out[b]
		if !ok {
			continue
		}
		var got []int64
		for _, tok := range strings.Split(cols[3], ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(tok), 10, 64)
			if err != nil {
				t.Fatalf("shared table %s: count %q: %v", b, tok, err)
			}
			got = append(got, n)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("testdata/sliding-%s.txt differs from the shared published table", b)
		}
	}
	return out
}

func TestSlidingPublishedCounts(t *testing.T) {
	pub := published(t)
	for _, tc := range []struct {
		sp  puzzle.Spec
		ref string // published board; transposed boards share its counts
	}{
		{sliding(2, 3), "2x3"}, {sliding(3, 2), "2x3"},
		{sliding(3, 3), "3x3"},
		{sliding(2, 4), "2x4"}, {sliding(4, 2), "2x4"},
		{sliding(2, 5), "2x5"}, {sliding(5, 2), "2x5"},
	} {
		want := pub[tc.ref]
		if want == nil {
			t.Fatalf("no published counts for %s", tc.ref)
		}
		tb := build(t, tc.sp)
		if !slices.Equal(tb.Counts, want) {
			t.Errorf("%s counts\n got %v\nwant %v", tc.sp, tb.Counts, want)
		}
		if tb.MaxDepth() != len(want)-1 {
			t.Errorf("%s MaxDepth = %d, want %d", tc.sp, tb.MaxDepth(), len(want)-1)
		}
	}
}

// TestBig builds the 12-cell tables (up to 240 MB, slow; docs/BENCHMARKS.md
// has the times): run with TESSERA_BFS_BIG=1, one board with
// -run 'TestBig/loopover:3x4'.
func TestBig(t *testing.T) {
	if os.Getenv("TESSERA_BFS_BIG") == "" || testing.Short() {
		t.Skip("set TESSERA_BFS_BIG=1 to build the 12-cell tables")
	}
	pub := published(t)
	for _, sp := range []puzzle.Spec{sliding(3, 4), sliding(4, 3), loopover(3, 4), loopover(4, 3)} {
		t.Run(sp.String(), func(t *testing.T) {
			tb, err := Build(sp)
			if err != nil {
				t.Fatal(err)
			}
			if sp.Kind == puzzle.Sliding {
				if !slices.Equal(tb.Counts, pub["3x4"]) {
					t.Errorf("%s counts\n got %v\nwant %v", sp, tb.Counts, pub["3x4"])
				}
			} else {
				checkGolden(t, tb, sp)
			}
			checkSolveSamples(t, tb, 300, 12)
		})
	}
}

// goal is the solved board of sp.
func goal(sp puzzle.Spec) []uint8 {
	n := sp.Cells()
	g := make([]uint8, n)
	for i := range g {
		g[i] = uint8(i + 1)
	}
	if sp.Kind == puzzle.Sliding {
		g[n-1] = 0
	}
	return g
}

// apply plays one move by the notation of the design document, written
// independently of the package's move generator. It reports false for a
// sliding move with no tile to slide.
func apply(sp puzzle.Spec, c []uint8, m puzzle.Move) bool {
	w, h := sp.Cols, sp.Rows
	if sp.Kind == puzzle.Sliding {
		b := slices.Index(c, 0)
		r, col := b/w, b%w
		var src int
		switch m.Dir {
		case puzzle.Up: // the tile below the blank moves up
			if r == h-1 {
				return false
			}
			src = b + w
		case puzzle.Down:
			if r == 0 {
				return false
			}
			src = b - w
		case puzzle.Left: // the tile right of the blank moves left
			if col == w-1 {
				return false
			}
			src = b + 1
		case puzzle.Right:
			if col == 0 {
				return false
			}
			src = b - 1
		}
		c[b], c[src] = c[src], 0
		return true
	}
	old := slices.Clone(c)
	switch m.Dir {
	case puzzle.Right: // row m.Line shifts right: each piece one cell right
		for x := 0; x < w; x++ {
			c[m.Line*w+(x+1)%w] = old[m.Line*w+x]
		}
	case puzzle.Left:
		for x := 0; x < w; x++ {
			c[m.Line*w+(x+w-1)%w] = old[m.Line*w+x]
		}
	case puzzle.Down: // column m.Line shifts down
		for y := 0; y < h; y++ {
			c[((y+1)%h)*w+m.Line] = old[y*w+m.Line]
		}
	case puzzle.Up:
		for y := 0; y < h; y++ {
			c[((y+h-1)%h)*w+m.Line] = old[y*w+m.Line]
		}
	}
	return true
}

// allMoves lists every move of sp (sliding: the four directions).
func allMoves(sp puzzle.Spec) []puzzle.Move {
	if sp.Kind == puzzle.Sliding {
		return []puzzle.Move{{Dir: puzzle.Up}, {Dir: puzzle.Down}, {Dir: puzzle.Left}, {Dir: puzzle.Right}}
	}
	var ms []puzzle.Move
	for r := 0; r < sp.Rows; r++ {
		ms = append(ms, puzzle.Move{Dir: puzzle.Left, Line: r}, puzzle.Move{Dir: puzzle.Right, Line: r})
	}
	for c := 0; c < sp.Cols; c++ {
		ms = append(ms, puzzle.Move{Dir: puzzle.Up, Line: c}, puzzle.Move{Dir: puzzle.Down, Line: c})
	}
	return ms
}

// bruteDistances is the oracle: a plain map-based BFS over boards.
func bruteDistances(sp puzzle.Spec) map[string]int {
	start := goal(sp)
	dist := map[string]int{string(start): 0}
	queue := [][]uint8{start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, m := range allMoves(sp) {
			nb := slices.Clone(cur)
			if !apply(sp, nb, m) {
				continue
			}
			if _, ok := dist[string(nb)]; !ok {
				dist[string(nb)] = dist[string(cur)] + 1
				queue = append(queue, nb)
			}
		}
	}
	return dist
}

// permutations calls f with every arrangement of vals (Heap's algorithm).
func permutations(vals []uint8, f func([]uint8)) {
	a := slices.Clone(vals)
	var gen func(k int)
	gen = func(k int) {
		if k == 1 {
			f(a)
			return
		}
		gen(k - 1)
		for i := 0; i < k-1; i++ {
			if k%2 == 0 {
				a[i], a[k-1] = a[k-1], a[i]
			} else {
				a[0], a[k-1] = a[k-1], a[0]
			}
			gen(k - 1)
		}
	}
	gen(len(a))
}

// replay checks that moves take cells to the goal.
func replay(t *testing.T, sp puzzle.Spec, cells []uint8, moves []puzzle.Move) {
	t.Helper()
	c := slices.Clone(cells)
	for i, m := range moves {
		if !apply(sp, c, m) {
			t.Fatalf("%s %v: move %d (%c) is illegal", sp, cells, i, m.Dir.Letter())
		}
	}
	if !slices.Equal(c, goal(sp)) {
		t.Fatalf("%s %v: %d moves end at %v, not the goal", sp, cells, len(moves), c)
	}
}

// TestExhaustiveOracle compares every permutation of small boards with a
// map-based BFS: distance, reachability, Solve replay and optimality,
// Index/Cells round trip.
func TestExhaustiveOracle(t *testing.T) {
	for _, sp := range []puzzle.Spec{sliding(2, 3), sliding(3, 2), sliding(2, 4),
		loopover(2, 2), loopover(2, 3), loopover(3, 2), loopover(2, 4), loopover(4, 2)} {
		t.Run(sp.String(), func(t *testing.T) {
			tb := build(t, sp)
			oracle := bruteDistances(sp)
			if uint64(len(oracle)) != tb.Size() {
				t.Fatalf("oracle reaches %d states, table has %d", len(oracle), tb.Size())
			}
			var counts []int64
			for _, d := range oracle {
				for len(counts) <= d {
					counts = append(counts, 0)
				}
				counts[d]++
			}
			if !slices.Equal(counts, tb.Counts) {
				t.Fatalf("counts %v, oracle %v", tb.Counts, counts)
			}
			vals := goal(sp)
			seen := make([]bool, tb.Size())
			back := make([]uint8, sp.Cells())
			permutations(vals, func(c []uint8) {
				want, reachable := oracle[string(c)]
				got, ok := tb.Distance(c)
				if ok != reachable || got != want {
					t.Fatalf("Distance(%v) = %d, %v; oracle %d, %v", c, got, ok, want, reachable)
				}
				idx, ok := tb.Index(c)
				if ok != reachable {
					t.Fatalf("Index(%v) ok = %v", c, ok)
				}
				moves, err := tb.Solve(c)
				if !reachable {
					if !errors.Is(err, puzzle.ErrUnsolvable) {
						t.Fatalf("Solve(%v) unreachable: err %v", c, err)
					}
					return
				}
				if err != nil || len(moves) != want {
					t.Fatalf("Solve(%v): %d moves, %v; want %d", c, len(moves), err, want)
				}
				replay(t, sp, c, moves)
				if idx >= tb.Size() || seen[idx] {
					t.Fatalf("Index(%v) = %d repeats or out of range", c, idx)
				}
				seen[idx] = true
				tb.Cells(idx, back)
				if !slices.Equal(back, c) {
					t.Fatalf("Cells(Index(%v)) = %v", c, back)
				}
			})
		})
	}
}

// randomBoard is a uniformly random permutation of sp's pieces.
func randomBoard(sp puzzle.Spec, r *rand.Rand) []uint8 {
	c := goal(sp)
	r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	return c
}

// checkSolveSamples solves n random boards: unreachable ones must say so,
// reachable ones must replay to the goal in exactly Distance moves, and
// every neighbour's distance must differ by at most one.
func checkSolveSamples(t *testing.T, tb *Table, n int, seed uint64) {
	t.Helper()
	sp := tb.Spec
	r := rand.New(rand.NewPCG(seed, 7))
	solved := 0
	for solved < n {
		c := randomBoard(sp, r)
		d, ok := tb.Distance(c)
		moves, err := tb.Solve(c)
		if !ok {
			if !errors.Is(err, puzzle.ErrUnsolvable) {
				t.Fatalf("%s %v unreachable but Solve err = %v", sp, c, err)
			}
			continue
		}
		solved++
		if err != nil || len(moves) != d {
			t.Fatalf("%s Solve(%v): %d moves, %v; Distance %d", sp, c, len(moves), err, d)
		}
		replay(t, sp, c, moves)
		for _, m := range allMoves(sp) {
			nb := slices.Clone(c)
			if !apply(sp, nb, m) {
				continue
			}
			dn, ok := tb.Distance(nb)
			if !ok || dn < d-1 || dn > d+1 {
				t.Fatalf("%s %v (d=%d): neighbour %v has distance %d, %v", sp, c, d, nb, dn, ok)
			}
		}
	}
}

func TestSolveSamples(t *testing.T) {
	for _, sp := range []puzzle.Spec{sliding(3, 3), sliding(2, 5), sliding(5, 2), loopover(3, 3)} {
		t.Run(sp.String(), func(t *testing.T) {
			checkSolveSamples(t, build(t, sp), 300, 1)
		})
	}
}

// TestDeepStates exercises descent through the mod-15 residues: the
// deepest states of 2x5 are 55 moves away, three wraps of the residue.
func TestDeepStates(t *testing.T) {
	tb := build(t, sliding(2, 5))
	c := make([]uint8, 10)
	found := 0
	for idx := uint64(0); idx < tb.Size() && found < 2; idx++ {
		tb.Cells(idx, c)
		d, _ := tb.Distance(c)
		if d != 55 {
			continue
		}
		found++
		moves, err := tb.Solve(c)
		if err != nil || len(moves) != 55 {
			t.Fatalf("Solve(%v): %d moves, %v", c, len(moves), err)
		}
		replay(t, tb.Spec, c, moves)
	}
	if found != 2 {
		t.Fatalf("found %d states at depth 55, published count is 2", found)
	}
}

func TestGoal(t *testing.T) {
	for _, sp := range []puzzle.Spec{sliding(2, 2), sliding(3, 3), loopover(2, 2), loopover(3, 3)} {
		tb := build(t, sp)
		d, ok := tb.Distance(goal(sp))
		moves, err := tb.Solve(goal(sp))
		if d != 0 || !ok || len(moves) != 0 || err != nil {
			t.Errorf("%s goal: Distance %d %v, Solve %v %v", sp, d, ok, moves, err)
		}
	}
}

func TestBuildRejects(t *testing.T) {
	for _, sp := range []puzzle.Spec{
		{Kind: puzzle.Swap, Rows: 2, Cols: 2},
		sliding(4, 4), loopover(4, 4), sliding(2, 7), loopover(5, 3),
		sliding(1, 3), {Kind: 0, Rows: 2, Cols: 2}, sliding(9, 2),
	} {
		if _, err := Build(sp); !errors.Is(err, puzzle.ErrMalformed) {
			t.Errorf("Build(%v) err = %v, want ErrMalformed", sp, err)
		}
	}
}

func TestMalformedBoards(t *testing.T) {
	tb := build(t, sliding(2, 3))
	lo := build(t, loopover(2, 3))
	for _, tc := range []struct {
		tb    *Table
		cells []uint8
	}{
		{tb, nil},
		{tb, []uint8{1, 2, 3, 4, 5}},
		{tb, []uint8{1, 2, 3, 4, 5, 0, 0}},
		{tb, []uint8{1, 1, 3, 4, 5, 0}},
		{tb, []uint8{1, 2, 3, 4, 6, 0}},
		{tb, []uint8{1, 2, 3, 4, 5, 255}},
		{lo, []uint8{0, 1, 2, 3, 4, 5}},
		{lo, []uint8{1, 2, 3, 4, 5, 7}},
		{lo, []uint8{1, 2, 3, 4, 5, 5}},
	} {
		if d, ok := tc.tb.Distance(tc.cells); ok {
			t.Errorf("%s Distance(%v) = %d, true", tc.tb.Spec, tc.cells, d)
		}
		if _, ok := tc.tb.Index(tc.cells); ok {
			t.Errorf("%s Index(%v) ok", tc.tb.Spec, tc.cells)
		}
		if _, err := tc.tb.Solve(tc.cells); !errors.Is(err, puzzle.ErrMalformed) {
			t.Errorf("%s Solve(%v) err = %v, want ErrMalformed", tc.tb.Spec, tc.cells, err)
		}
	}
}

// Loopover distributions are golden files (testdata/loopover-RxC.txt, one
// "depth count" line per depth, the `solverd bfs` format). The seed text on
// Loopover heuristics gives only the 3x3 total (9!/2 = 181440), checked
// through Size; UPDATE_GOLDEN=1 rewrites the files.
func TestLoopoverGolden(t *testing.T) {
	for _, sp := range []puzzle.Spec{loopover(2, 2), loopover(2, 3), loopover(3, 2), loopover(3, 3), loopover(2, 4), loopover(4, 2)} {
		checkGolden(t, build(t, sp), sp)
	}
	if got := build(t, loopover(3, 3)).Size(); got != 181440 {
		t.Errorf("loopover 3x3 has %d states, want 9!/2 = 181440", got)
	}
	// Transposed boards are the same puzzle.
	for _, p := range [][2]puzzle.Spec{{loopover(2, 3), loopover(3, 2)}, {loopover(2, 4), loopover(4, 2)}} {
		if a, b := build(t, p[0]).Counts, build(t, p[1]).Counts; !slices.Equal(a, b) {
			t.Errorf("%s %v and %s %v differ", p[0], a, p[1], b)
		}
	}
}

func goldenPath(sp puzzle.Spec) string {
	return filepath.Join("testdata", fmt.Sprintf("%s-%dx%d.txt", sp.Kind, sp.Rows, sp.Cols))
}

func checkGolden(t *testing.T, tb *Table, sp puzzle.Spec) {
	t.Helper()
	var sb strings.Builder
	for d, n := range tb.Counts {
		fmt.Fprintf(&sb, "%d %d\n", d, n)
	}
	path := goldenPath(sp)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (UPDATE_GOLDEN=1 writes it)", sp, err)
	}
	if sb.String() != string(want) {
		t.Errorf("%s distribution\n got:\n%s\nwant (%s):\n%s", sp, sb.String(), path, want)
	}
	var total int64
	for _, n := range tb.Counts {
		total += n
	}
	if uint64(total) != tb.Size() {
		t.Errorf("%s counts sum to %d, table has %d states", sp, total, tb.Size())
	}
}

// FuzzSolve feeds arbitrary boards to a small table: no panics, Distance
// and Solve agree, and answers replay.
func FuzzSolve(f *testing.F) {
	f.Add(false, []byte{1, 2, 3, 4, 5, 0})
	f.Add(false, []byte{0, 5, 4, 3, 2, 1})
	f.Add(true, []byte{6, 5, 4, 3, 2, 1})
	f.Add(true, []byte{1, 1, 1, 1, 1, 1})
	f.Add(false, []byte{})
	sl, err := Build(sliding(2, 3))
	if err != nil {
		f.Fatal(err)
	}
	lo, err := Build(loopover(2, 3))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, isLoop bool, cells []byte) {
		tb := sl
		if isLoop {
			tb = lo
		}
		d, ok := tb.Distance(cells)
		moves, err := tb.Solve(cells)
		if ok != (err == nil) {
			t.Fatalf("Distance ok %v but Solve err %v", ok, err)
		}
		if !ok {
			if !errors.Is(err, puzzle.ErrMalformed) && !errors.Is(err, puzzle.ErrUnsolvable) {
				t.Fatalf("Solve err %v wraps no sentinel", err)
			}
			return
		}
		if len(moves) != d {
			t.Fatalf("Solve %d moves, Distance %d", len(moves), d)
		}
		replay(t, tb.Spec, cells, moves)
	})
}

func TestBuildCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := BuildContext(ctx, sliding(3, 3)); !errors.Is(err, context.Canceled) {
		t.Fatalf("BuildContext(cancelled) err = %v", err)
	}
}

// TestNew rebuilds a table from its parts, as a loader would, and rejects
// parts of the wrong size.
func TestNew(t *testing.T) {
	tb := build(t, sliding(3, 3))
	re, err := New(tb.Spec, slices.Clone(tb.Packed), slices.Clone(tb.Counts))
	if err != nil {
		t.Fatal(err)
	}
	checkSolveSamples(t, re, 50, 9)
	if _, err := New(tb.Spec, tb.Packed[1:], tb.Counts); err == nil {
		t.Error("New accepted a short table")
	}
	if _, err := New(tb.Spec, tb.Packed, tb.Counts[1:]); err == nil {
		t.Error("New accepted counts of the wrong total")
	}
	if _, err := New(puzzle.Spec{Kind: puzzle.Swap, Rows: 2, Cols: 2}, nil, nil); !errors.Is(err, puzzle.ErrMalformed) {
		t.Errorf("New(swap) err = %v", err)
	}
}

// A table survives the file layout both in place (whole words) and copied
// (a partial last word, padding read back as unreached).
func TestPayloadRoundTrip(t *testing.T) {
	for _, sp := range []puzzle.Spec{loopover(2, 3), loopover(3, 3), sliding(2, 3)} {
		tb := build(t, sp)
		data := slices.Clone(tb.Payload())
		if len(data) != tb.PayloadBytes() {
			t.Fatalf("%s: payload %d bytes, want %d", sp, len(data), tb.PayloadBytes())
		}
		back, err := FromPayload(sp, data, tb.Counts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.Packed, tb.Packed) {
			t.Fatalf("%s: round trip changed the table", sp)
		}
		if _, err := FromPayload(sp, data[:len(data)-1], tb.Counts); err == nil {
			t.Errorf("%s: a short payload was accepted", sp)
		}
	}
}

// SampleAtDepth draws distinct states of the depth, all of them when fewer
// exist than asked.
func TestSampleAtDepth(t *testing.T) {
	tb, err := Build(puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cells := make([]uint8, 9)
	// Asking for more than exist returns every one, Counts[d], here for
	// depths past the 15 an entry holds.
	for _, c := range []struct{ d, k, want int }{{20, 50, 50}, {31, 10, 2}, {16, 3, 3}, {5, 1000, int(tb.Counts[5])}, {29, 1000, int(tb.Counts[29])}} {
		got := tb.SampleAtDepth(c.d, c.k, rng)
		seen := map[uint64]bool{}
		for _, idx := range got {
			tb.Cells(idx, cells)
			if d, _ := tb.Distance(cells); d != c.d || seen[idx] {
				t.Fatalf("depth %d: index %d at %d (repeat %v)", c.d, idx, d, seen[idx])
			}
			seen[idx] = true
		}
		if len(got) != c.want {
			t.Errorf("depth %d, %d asked: %d drawn, want %d", c.d, c.k, len(got), c.want)
		}
	}
}

// TestPayloadDigests pins small tables byte for byte, with their
// histograms, so a builder change that moves one entry fails here.
func TestPayloadDigests(t *testing.T) {
	for sp, want := range map[puzzle.Spec]string{
		sliding(2, 3):  "d99c53635b15ea1b5adf8be3771149cdaeda5c32c590cdb474e9ef133e7a9cfe",
		sliding(3, 3):  "8e40667443b81ded7376a58c85d5b5c5025c2f5c2cd178a039c2b63954febb6e",
		sliding(2, 4):  "460fb3895a9d42b9a1d5aed6300f736e291a6f56a3b610171d994bd0ec0f43df",
		sliding(5, 2):  "16dec8cced576181af93dae85d8e45084a80513840d018cf18d539670e9bf513",
		loopover(2, 2): "ec8af14307703519fa5d6d465e1d9324e291dff61c3b3b261a0bb84017e84db3",
		loopover(2, 3): "9ad3d6293ab84da69b5105b89fe444784b25020a662760a191d4c5d6df33bbc4",
		loopover(3, 3): "b2a8a0848319713ea1ed440023b6b1347192ad83e26e252ec277e77fc7a32e96",
		loopover(2, 4): "3620db68da0b6c87b7f40b9f8dfd8f8d054df7e7142b432948336b255cc6d15f",
		loopover(5, 2): "748a37522a4545f3fe420b188efd5b771400bc7079989555496fea25369ac902",
	} {
		tb := build(t, sp)
		h := sha256.New()
		fmt.Fprint(h, tb.Counts)
		h.Write(tb.Payload())
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("%s: digest of counts and payload %s, want %s", sp, got, want)
		}
	}
}

// The walk takes a sideways neighbour's index as idx ± stride instead of
// ranking it: every step of every 8-puzzle state (and of the 2×3 and 3×4
// shapes' samples) is the step that ranking each neighbour takes.
func TestSlidingWalkSideways(t *testing.T) {
	for _, sp := range []puzzle.Spec{sliding(2, 3), sliding(3, 2), sliding(3, 3)} {
		tb := build(t, sp)
		s := tb.sp
		var b board
		for idx := range tb.Size() {
			if idx == s.goalIndex {
				continue
			}
			s.unrank(idx, &b)
			ranked := b
			n, e, m := tb.down(&b, idx, tb.entry(idx))
			// The reference: the same tries in the same order, each ranked.
			want := (tb.entry(idx) + modulus - 1) % modulus
			blank := s.blankOf(&ranked)
			var wn uint64
			var wm puzzle.Move
			for d := puzzle.Up; d <= puzzle.Right; d++ {
				nb := s.slidingTarget(blank, d)
				if nb < 0 {
					continue
				}
				ranked[blank], ranked[nb] = ranked[nb], 0
				if r := s.rankSliding(&ranked); tb.entry(r) == want {
					wn, wm = r, puzzle.Move{Dir: d}
					break
				}
				ranked[nb], ranked[blank] = ranked[blank], 0
			}
			if n != wn || m != wm || b != ranked || e != tb.entry(n) {
				t.Fatalf("%s index %d: down gives %d %v %v, ranking gives %d %v %v", sp, idx, n, m, b, wn, wm, ranked)
			}
		}
	}
}

// slidingTarget, the reference of down's tries, is the blank's new cell
// when the tile moving in direction d slides into it, or −1 when no tile can.
func (s *space) slidingTarget(blank int, d puzzle.Dir) int {
	r, c := blank/s.cols, blank%s.cols
	switch d {
	case puzzle.Up: // the tile below moves up
		if r+1 < s.rows {
			return blank + s.cols
		}
	case puzzle.Down:
		if r > 0 {
			return blank - s.cols
		}
	case puzzle.Left: // the tile to the right moves left
		if c+1 < s.cols {
			return blank + 1
		}
	case puzzle.Right:
		if c > 0 {
			return blank - 1
		}
	}
	return -1
}
