package loopover

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"testing"
)

// TestWDTablePayloadDigests pins small walking-distance tables (capped at
// maxDepth when not negative) byte for byte: the counts and digests are
// those of the builder before internal/bfs took over.
func TestWDTablePayloadDigests(t *testing.T) {
	for _, c := range []struct {
		lines, perLine, maxDepth int
		counts                   []int64
		digest                   string
	}{
		{3, 3, -1, []int64{1, 2, 15, 34, 3}, "2c67a26b6010081175b0bef0c2e7b3cd61d24d7c625a58968fde8dc3a5e87153"},
		{4, 4, -1, []int64{1, 2, 46, 540, 2781, 4350, 1886, 492, 49}, "38af63a8492256a53598a72b00948ceb4ddd6d0baca8033cae0e8d831ca82f99"},
		{4, 5, -1, []int64{1, 2, 46, 540, 2781, 10216, 14365, 8098, 3276, 780, 71}, "2c55e1b39fe025d6e3aa5645f84488049c0bcd090afd055552e95eeab9a8f941"},
		{4, 4, 3, []int64{1, 2, 46, 540}, "b10e0e3b8792a7fa012d36356ded075194942d60608512a266b2427e1ff71898"},
		{5, 3, 4, []int64{1, 2, 95, 2813, 35929}, "b45a610286549383f0d518d1e3eff0e2bf76d24760d3a4b48f6a4d20d78450e1"},
	} {
		dist, counts, err := buildWDTable(context.Background(), c.lines, c.perLine, 2, c.maxDepth, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(counts, c.counts) {
			t.Errorf("%d×%d maxDepth=%d: counts %v, want %v", c.lines, c.perLine, c.maxDepth, counts, c.counts)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(dist)); got != c.digest {
			t.Errorf("%d×%d maxDepth=%d: payload digest %s, want %s", c.lines, c.perLine, c.maxDepth, got, c.digest)
		}
	}
}
