package twophase

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// arm8Levels caps the test's build: its levels are exact, and every board
// the tests label by BFS lies within them.
const arm8Levels = 8

var (
	arm8Once sync.Once
	arm8Tab  []byte
	arm8Hist []int64
)

// cappedArm8 is the eight-piece table built to arm8Levels (260 MB, about
// a second: the frontiers are small, the fill is one pass).
func cappedArm8(tb testing.TB) ([]byte, []int64) {
	if testing.Short() {
		tb.Skip("the eight-piece table holds 260 MB even capped")
	}
	arm8Once.Do(func() {
		var err error
		if arm8Tab, arm8Hist, err = buildArm8(context.Background(), arm8Levels, 2, nil); err != nil {
			panic(err)
		}
	})
	return arm8Tab, arm8Hist
}

func arm8At(tab []byte, i uint64) int { return int(tab[i>>1] >> (4 * (i & 1)) & 15) }

// naiveArm8 is every placement of the pattern pieces (region numbers)
// within maxDepth phase-2 moves of the goal, by a BFS over a map.
func naiveArm8(maxDepth int) (map[[8]uint8]int, []int64) {
	var start [8]uint8
	for i, c := range arm8Cells {
		start[i] = regionIdx[c]
	}
	dist := map[[8]uint8]int{start: 0}
	counts := []int64{1}
	frontier := [][8]uint8{start}
	for d := 1; d <= maxDepth; d++ {
		var next [][8]uint8
		for _, p := range frontier {
			for m := range p2Region {
				var q [8]uint8
				for i, r := range p {
					q[i] = p2Region[m][r]
				}
				if _, ok := dist[q]; !ok {
					dist[q] = d
					next = append(next, q)
				}
			}
		}
		counts = append(counts, int64(len(next)))
		frontier = next
	}
	return dist, counts
}

// TestArm8FirstLevels checks the builder, stopped early, against a naive
// BFS (every entry within its levels) and the golden histogram.
func TestArm8FirstLevels(t *testing.T) {
	tab, counts := cappedArm8(t)
	near, naive := naiveArm8(arm8Levels)
	if !slices.Equal(counts[:arm8Levels+1], naive) || !slices.Equal(naive, arm8Counts[:arm8Levels+1]) {
		t.Fatalf("builder %v, naive %v, golden %v", counts, naive, arm8Counts)
	}
	for p, d := range near {
		if got := arm8At(tab, arm8Perm.Rank(p[:])); got != d {
			t.Fatalf("entry %v = %d, BFS %d", p, got, d)
		}
	}
	// An entry past the cap holds one more than it, still a bound.
	var far [8]uint8
	for i := range far {
		far[i] = uint8(15 - i)
	}
	if _, ok := near[far]; ok || arm8At(tab, arm8Perm.Rank(far[:])) != arm8Levels+1 {
		t.Fatalf("entry %v past the cap = %d, want %d", far, arm8At(tab, arm8Perm.Rank(far[:])), arm8Levels+1)
	}
}

// TestArm8Full builds the whole table and checks its histogram against the
// golden one (TESSERA_BFS_BIG=1: 260 MB).
func TestArm8Full(t *testing.T) {
	if os.Getenv("TESSERA_BFS_BIG") == "" {
		t.Skip("set TESSERA_BFS_BIG=1 to build the 260 MB table")
	}
	_, counts, err := buildArm8(context.Background(), arm8Depth, runtime.GOMAXPROCS(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(counts, arm8Counts) {
		t.Fatalf("counts %v, golden %v", counts, arm8Counts)
	}
}

// TestArm8Admissible checks every eight-piece lookup, on the board and
// on the inverse, against the exact distance of every board within 7
// phase-2 moves of the goal, and that the six-piece lookups are never
// above the eight-piece ones.
func TestArm8Admissible(t *testing.T) {
	tab, _ := cappedArm8(t)
	s, err := NewTables(nil, BuildPhase2(), tab)
	if err != nil {
		t.Fatal(err)
	}
	plain := fallback(t)
	dist := bfsBoards(p2Moves[:], 7)
	tight, above := 0, 0
	for b, d := range dist {
		w := &work{Solver: s, b2: b, pos2: inverse(&b)}
		h := 0
		for k := range 8 {
			v := int(w.look8(k))
			if v > d {
				t.Fatalf("eight-piece lookup %d = %d > distance %d at %v", k, v, d, b)
			}
			h = max(h, v)
		}
		pw := &work{Solver: plain, b2: b, pos2: w.pos2}
		old := 0
		for k := range 4 {
			old = max(old, int(pw.armLookup(k)))
		}
		if h < old {
			// The eight pieces hold the six, read the same four ways.
			t.Fatalf("eight-piece bound %d < six-piece bound %d at %v", h, old, b)
		}
		if h == d {
			tight++
		}
		if h > old {
			above++
		}
	}
	t.Logf("%d boards: eight-piece bound exact on %d, above the six-piece one on %d", len(dist), tight, above)
}

// TestArm8Solve solves random boards with the table: every answer replays,
// repeats give the same answer, and a bad payload is refused.
func TestArm8Solve(t *testing.T) {
	tab, _ := cappedArm8(t)
	s, err := NewTables(nil, nil, tab)
	if err != nil {
		t.Fatal(err)
	}
	bud := search.Budget{MaxNodes: 30000}
	for _, st := range randomStates(3) {
		m1, l1, err := s.Solve(st.Cells, bud)
		if err != nil {
			t.Fatal(err)
		}
		coretest.Replay(t, st, m1)
		m2, l2, _ := s.Solve(st.Cells, bud)
		if !slices.Equal(m1, m2) || l1 != l2 {
			t.Fatalf("two runs: %d and %d moves", len(m1), len(m2))
		}
		if l1 > len(m1) {
			t.Fatalf("bound %d above the answer's %d moves", l1, len(m1))
		}
	}
	for name, p := range map[string][]byte{"short": tab[:len(tab)-1], "goal": make([]byte, len(tab))} {
		if name == "goal" {
			for i := range p {
				p[i] = 0x33
			}
		}
		if _, err := NewTables(nil, nil, p); !errors.Is(err, puzzle.ErrMalformed) || !errors.Is(err, ErrArm8Table) {
			t.Errorf("%s: got %v, want ErrArm8Table", name, err)
		}
	}
}

// TestArm8Steps checks what the search assumes of a phase-2 shift: a
// lookup of the board moves by at most a8Step (one), a lookup the shift
// does not touch (a8Touch) keeps its value; a lookup of the inverse may
// jump, which a8Step allows.
func TestArm8Steps(t *testing.T) {
	tab, _ := cappedArm8(t)
	s := &Solver{arm8: tab}
	rng := rand.New(rand.NewPCG(3, 4))
	var jumps [8]int
	for n := 0; n < 20000; n++ {
		b := goalBoard
		for range 3 + rng.IntN(8) { // within the capped build's levels, mostly
			b.apply(p2Moves[rng.IntN(8)])
		}
		w := &work{Solver: s, b2: b, pos2: inverse(&b)}
		var before [8]int
		for k := range before {
			before[k] = int(w.look8(k))
		}
		i := rng.IntN(8)
		w.b2.apply(p2Moves[i])
		w.pos2 = inverse(&w.b2)
		for k := range before {
			d := int(w.look8(k)) - before[k]
			if !a8Touch[k][i] && d != 0 {
				t.Fatalf("lookup %d changed by %d under move %d, which does not touch it", k, d, p2Moves[i])
			}
			if d > int(a8Step[k]) || -d > int(a8Step[k]) {
				t.Fatalf("lookup %d changed by %d under move %d, more than %d", k, d, p2Moves[i], a8Step[k])
			}
			if d > 1 || d < -1 {
				jumps[k]++
			}
		}
	}
	t.Logf("changes of more than one, per lookup: %v", jumps)
}
