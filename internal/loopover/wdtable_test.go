package loopover

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// The parallel table builder labels every pattern as a plain serial BFS
// (bfsOracle) does, index for index, on every shape NewWD builds.
func TestBuildWDTableMatchesBFS(t *testing.T) {
	for _, sh := range [][2]int{{2, 2}, {2, 5}, {5, 2}, {3, 3}, {3, 4}, {4, 3}, {4, 4}, {3, 5}, {5, 3}, {4, 5}} {
		want := oracleWD(sh[0], sh[1])
		for _, workers := range []int{1, 2} {
			got, counts, err := BuildWDTable(context.Background(), sh[0], sh[1], workers, -1, nil)
			if err != nil {
				t.Fatalf("%v: %v", sh, err)
			}
			if !slices.Equal(got, want.Dist) {
				t.Fatalf("%v on %d workers: distances differ", sh, workers)
			}
			var wc []int64
			for _, c := range want.Counts {
				wc = append(wc, int64(c))
			}
			if !slices.Equal(counts, wc) {
				t.Fatalf("%v: counts %v, want %v", sh, counts, wc)
			}
		}
	}
}

// oracleWD is the lines×perLine table by bfsOracle.
func oracleWD(lines, perLine int) *WD {
	t := newWDIndex(lines, perLine)
	t.Dist = make([]uint8, WDTableEntries(lines, perLine))
	for i := range t.Dist {
		t.Dist[i] = Unreached
	}
	t.bfsOracle()
	return t
}

// bfsOracle labels every pattern with its distance from the goal. One
// perpendicular shift takes some label l_i out of every line i and puts it
// into line i+1 (down) or i−1 (up); every choice of labels present is a
// possible shift of some arrangement in the pattern. A plain serial BFS,
// kept as the oracle of the tables internal/bfs builds.
func (t *WD) bfsOracle() {
	L := t.Lines
	var goal [MaxSide]uint16
	copy(goal[:], t.goalCode)
	g := t.Index(&goal)
	t.Dist[g] = 0
	frontier := []int{g}
	t.Patterns = 1
	t.Counts = []int{1}
	var codes, next [MaxSide]uint16
	var pick [MaxSide]int
	for d := uint8(1); len(frontier) > 0; d++ {
		var nf []int
		for _, x := range frontier {
			t.decode(x, &codes)
			for dir := -1; dir <= 1; dir += 2 {
				var rec func(i int)
				rec = func(i int) {
					if i == L {
						for j := 0; j < L; j++ {
							from := (j - dir + L) % L // the line whose piece arrives in j
							next[j] = t.Trans[(int(codes[j])*L+pick[j])*L+pick[from]]
						}
						y := t.Index(&next)
						if t.Dist[y] == Unreached {
							t.Dist[y] = d
							nf = append(nf, y)
						}
						return
					}
					c := &t.counts[codes[i]]
					for l := 0; l < L; l++ {
						if c[l] > 0 {
							pick[i] = l
							rec(i + 1)
						}
					}
				}
				rec(0)
				if L == 2 {
					break // on two lines up and down are the same shift
				}
			}
		}
		if len(nf) > 0 {
			t.Counts = append(t.Counts, len(nf))
			t.Patterns += len(nf)
		}
		frontier = nf
	}
}

// NewWDFrom takes a built table as it is and refuses a wrong one.
func TestNewWDFrom(t *testing.T) {
	dist, _, err := BuildWDTable(context.Background(), 4, 4, 2, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWDFrom(4, 4, dist)
	if err != nil || &w.Dist[0] != &dist[0] {
		t.Fatalf("%v", err)
	}
	if _, err := NewWDFrom(4, 4, dist[1:]); !errors.Is(err, puzzle.ErrMalformed) {
		t.Errorf("short table: %v", err)
	}
	bad := slices.Clone(dist)
	for i := range bad {
		bad[i] = 3
	}
	if _, err := NewWDFrom(4, 4, bad); !errors.Is(err, puzzle.ErrMalformed) {
		t.Errorf("no 0 at the goal: %v", err)
	}
}

// TestWD55Golden builds the 5×5 table (a minute or more on 2 cores, 380 MB:
// run with TESSERA_BFS_BIG=1) and checks it against the seed's double
// coset counts, 22,069,251 patterns.
func TestWD55Golden(t *testing.T) {
	if os.Getenv("TESSERA_BFS_BIG") == "" || testing.Short() {
		t.Skip("set TESSERA_BFS_BIG=1 to build the 5x5 walking-distance table")
	}
	_, counts, err := BuildWDTable(context.Background(), 5, 5, 0, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{1, 2, 95, 2813, 57094, 588190, 3087603, 6698940, 6922292, 3807495, 904406, 320}
	if !slices.Equal(counts, want) {
		t.Fatalf("counts %v, seed %v", counts, want)
	}
}

// The table of lines×perLine (capped at maxDepth when not negative) is
// pinned byte for byte and level for level by its digest, so a builder
// change that moves one entry fails here.
func TestBuildWDTableDigests(t *testing.T) {
	for _, c := range []struct {
		lines, perLine, maxDepth int
		want                     string
	}{{3, 3, -1, "ca66b8c2d242a0fc6bb5e4840dfbf1586c02133d94c91e90f9de449ac8e310b1"}, {4, 4, -1, "6c6506a8c4ac050a660e999f03f9ef4f94d1b4f7d137ec96a143b151f2da9b56"}, {4, 5, -1, "970f3cb27549fb63ebe6f666610bee093f5a4e22e2c7e060b0e584fa74a6179a"}, {4, 4, 3, "87efc15ed746116764f41a0fea43ef0ade2cb6467b6561a68cd0dbe698387489"}, {5, 3, 4, "7c782edf7a9a4087205480f7d96c584f542f0f918ccde34b7731fe16017175ca"}} {
		dist, counts, err := BuildWDTable(context.Background(), c.lines, c.perLine, 2, c.maxDepth, nil)
		sum := sha256.Sum256(append([]byte(fmt.Sprint(counts)), dist...))
		if got := hex.EncodeToString(sum[:]); err != nil || got != c.want {
			t.Errorf("%d×%d to depth %d: %v, digest of counts %v and table %s, want %s", c.lines, c.perLine, c.maxDepth, err, counts, got, c.want)
		}
	}
}
