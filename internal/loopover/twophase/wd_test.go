package twophase

import (
	"slices"
	"testing"
)

// tally counts one more pattern at distance d in a histogram.
func tally(counts []int, d int) []int {
	for d >= len(counts) {
		counts = append(counts, 0)
	}
	counts[d]++
	return counts
}

// TestWD1Golden checks the phase-1 walking distance against the seed: 40600
// patterns with its one-axis histogram.
func TestWD1Golden(t *testing.T) {
	w := newWD1()
	var counts []int
	for _, d := range w.dist {
		if d == wd1None {
			continue
		}
		counts = tally(counts, int(d))
	}
	want := []int{1, 14, 211, 2749, 11376, 15627, 8986, 1360, 252, 24}
	if !slices.Equal(counts, want) {
		t.Fatalf("histogram %v, seed %v", counts, want)
	}
}

// TestWD2Golden checks the phase-2 walking distance against the seed:
// 242148 patterns, 121854 once the two free columns' top cells are
// swapped together, with its histogram.
func TestWD2Golden(t *testing.T) {
	w := newWD2()
	if w.reached != 242148 {
		t.Fatalf("reached %d patterns, seed 242148", w.reached)
	}
	M := len(w.mid)
	var counts []int
	for i, d := range w.dist {
		if d == wd2None {
			continue
		}
		tc, mc := i/M, i%M
		var top [6]int
		for j := range top {
			top[j] = tc / pow5[j] % 5
		}
		sw := 0
		for j := 5; j >= 0; j-- {
			sw = sw*5 + top[j^1]
		}
		if w.dist[sw*M+mc] != d {
			t.Fatalf("pattern %d and its column swap differ", i)
		}
		if sw < tc {
			continue // counted with its twin
		}
		counts = tally(counts, int(d))
	}
	want := []int{1, 2, 27, 244, 2274, 15093, 51609, 46646, 5927, 31}
	if !slices.Equal(counts, want) {
		t.Fatalf("histogram %v, seed %v", counts, want)
	}
}

// TestArmPDB checks the phase-2 arm table reaches every placement of its
// six pieces (5,765,760) and its deepest level.
func TestArmPDB(t *testing.T) {
	a := fallback(t).arm
	reached, deepest := 0, 0
	for _, d := range a.dist {
		if d != 0xff {
			reached++
			deepest = max(deepest, int(d))
		}
	}
	if reached != pdb2States || deepest != 16 {
		t.Fatalf("reached %d of %d placements, deepest %d (want 16)", reached, pdb2States, deepest)
	}
}
