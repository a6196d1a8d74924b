package sliding

import (
	"math/rand/v2"
	"testing"
)

// Golden facts of the walking-distance tables: takaken's 4×4 table has
// 24,964 patterns with a maximum of 35; the others pin the generator.
func TestWDGolden(t *testing.T) {
	for _, c := range []struct{ lines, per, patterns, max int }{
		{3, 3, 105, 14}, {4, 4, 24964, 35}, {4, 3, 4324, 29}, {3, 4, 255, 18},
		{2, 5, 10, 9}, {5, 2, 11010, 36}, {4, 5, 107712, 43}, {5, 3, 352560, 46},
	} {
		w, err := NewWD(c.lines, c.per)
		if err != nil {
			t.Fatal(err)
		}
		max := 0
		for _, d := range w.Dist {
			max = int(maxInt(max, int(d)))
		}
		if w.Patterns() != c.patterns || max != c.max {
			t.Errorf("WD %d lines × %d: %d patterns max %d, want %d max %d", c.lines, c.per, w.Patterns(), max, c.patterns, c.max)
		}
		if w.Dist[w.Goal] != 0 {
			t.Errorf("WD %d×%d: goal distance %d", c.lines, c.per, w.Dist[w.Goal])
		}
		// Links are symmetric: a move and its reverse return to the pattern,
		// and neighbouring distances differ by exactly one (BFS layers).
		for p := 0; p < w.Patterns(); p++ {
			for dir := 0; dir < 2; dir++ {
				for g := 0; g < w.Lines; g++ {
					q := w.Link[(p*2+dir)*w.Lines+g]
					if q == NoLink {
						continue
					}
					if d := int(w.Dist[p]) - int(w.Dist[q]); d != 1 && d != -1 {
						t.Fatalf("WD %d×%d: link %d→%d changes distance by %d", c.lines, c.per, p, q, d)
					}
				}
			}
		}
	}
	if _, err := NewWD(6, 3); err == nil {
		t.Error("NewWD(6,3) should be refused")
	}
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// InversionBound must be the least number of moves that can fix inv
// inversions when each move changes the count by one of ±span, ±(span−2), …
func TestInversionBoundMinimal(t *testing.T) {
	for span := 1; span <= 7; span++ {
		var steps []int
		for s := span; s >= -span; s -= 2 {
			steps = append(steps, s)
		}
		// reach[k] = set of totals reachable with k moves.
		reach := map[int]bool{0: true}
		best := map[int]int{0: 0}
		for k := 1; k <= 40; k++ {
			next := map[int]bool{}
			for v := range reach {
				for _, s := range steps {
					next[v+s] = true
				}
			}
			reach = next
			for v := range reach {
				if _, ok := best[v]; !ok && v >= 0 {
					best[v] = k
				}
			}
		}
		for inv := 0; inv <= 4*span; inv++ {
			want, ok := best[inv]
			if !ok {
				continue
			}
			if got := InversionBound(inv, span); got != want {
				t.Errorf("InversionBound(%d, span %d) = %d, want %d", inv, span, got, want)
			}
		}
	}
	// takaken's 15-puzzle formula.
	for inv := 0; inv < 106; inv++ {
		if got, want := InversionBound(inv, 3), inv/3+inv%3; got != want {
			t.Errorf("span 3, inv %d: %d, want takaken's %d", inv, got, want)
		}
	}
}

// The exact linear conflict of a line is the least number of its in-line
// tiles that must leave so the rest are in order, times two: brute force
// over subsets must agree with the LIS formula.
func TestLinearConflictExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(8)
		seq := make([]int8, n)
		for i, v := range rng.Perm(8)[:n] {
			seq[i] = int8(v)
		}
		best := n
		for mask := 0; mask < 1<<n; mask++ {
			last, ok, removed := int8(-1), true, 0
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					removed++
					continue
				}
				if seq[i] < last {
					ok = false
					break
				}
				last = seq[i]
			}
			if ok && removed < best {
				best = removed
			}
		}
		if got := n - lis(seq); got != best {
			t.Fatalf("%v: LIS formula removes %d, brute force %d", seq, got, best)
		}
	}
}

// Row 1 holding tiles 4 3 1 2 has goal columns 3 2 0 1, whose longest
// increasing run is 0 1: tiles 4 and 3 must leave the row, 4 extra moves.
func TestLinearConflictKnownRow(t *testing.T) {
	cells := []uint8{4, 3, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0}
	if got := RowConflict(4, cells, 0); got != 4 {
		t.Errorf("row conflict of 4 3 1 2 = %d, want 4", got)
	}
	if got := LinearConflict(4, 4, cells); got != 4 {
		t.Errorf("linear conflict = %d, want 4", got)
	}
}

func TestGoalIsZero(t *testing.T) {
	for w := 2; w <= 5; w++ {
		for h := 2; h <= 5; h++ {
			cells := make([]uint8, w*h)
			for i := range cells[:w*h-1] {
				cells[i] = uint8(i + 1)
			}
			if m, lc, id := Manhattan(h, w, cells), LinearConflict(h, w, cells), InversionDistance(h, w, cells); m+lc+id != 0 {
				t.Errorf("%dx%d goal: md %d lc %d id %d", h, w, m, lc, id)
			}
			v, hz, _, _ := WalkingAxes(h, w, cells)
			if v+hz != 0 {
				t.Errorf("%dx%d goal: wd %d+%d", h, w, v, hz)
			}
		}
	}
}
