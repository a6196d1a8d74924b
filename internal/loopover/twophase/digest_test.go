package twophase

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"testing"

	"github.com/tessera-solver/tessera/internal/nibble"
)

// TestPayloadDigests pins small phase-1 tables (k pieces, capped at
// maxDepth when not negative) byte for byte: the counts and digests are
// those of the builder before internal/bfs took over.
func TestPayloadDigests(t *testing.T) {
	for _, c := range []struct {
		k, maxDepth int
		counts      []int64
		digest      string
	}{
		{3, -1, []int64{1, 8, 56, 308, 1184, 3214, 4830, 3329, 846, 24}, "a597e5e1515b1843e84323d3e54ffbecd76ea502ae490a1574fff03540d3bed3"},
		{4, -1, []int64{1, 10, 81, 560, 3182, 14363, 46982, 94924, 98456, 41049, 3977, 15}, "3682da4b8c6756ffa1866fd680bc91ee1645b9b0f1a03709dde017e58efb0825"},
		{5, -1, []int64{1, 10, 87, 728, 5391, 34384, 180524, 703290, 1746467, 2281050, 1247243, 175061, 1364}, "c81dba48604cf636d8851841f93c0b11c0db2a4bf66ee8edcc49f61d29dce428"},
		{5, 3, []int64{1, 10, 87, 728}, "402f0161f8110ae668cb7f9b68a4e5e0faf42dbeb267ec23df8e92efe4f13304"},
		{4, 6, []int64{1, 10, 81, 560, 3182, 14363, 46982}, "940d5c878019bf740f0e270e7bd4b17de88f650cc90bb066f1d417cad72a12d3"},
	} {
		tab, counts, err := buildPDB(context.Background(), c.k, c.maxDepth, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(counts, c.counts) {
			t.Errorf("k=%d maxDepth=%d: counts %v, want %v", c.k, c.maxDepth, counts, c.counts)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(nibble.Payload(tab, patSize(c.k)))); got != c.digest {
			t.Errorf("k=%d maxDepth=%d: payload digest %s, want %s", c.k, c.maxDepth, got, c.digest)
		}
	}
}
