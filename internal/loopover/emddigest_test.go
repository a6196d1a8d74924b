package loopover

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

// The enhanced-Manhattan tables are pinned byte for byte (with their
// histograms), so that a change of their filler that changes an entry
// shows.
func TestEMDDigests(t *testing.T) {
	for _, c := range []struct {
		lines, perLine int
		want           string
	}{{5, 5, "22db033b75cd994e25e7d457817a8ddc2d189036c91690cc91858a3876f12cdb"}, {3, 4, "79fe170f3acadcef326591ba76f4686e01f868f0be8675aff13396678b978a6e"}, {4, 3, "c7da8d57ff84af6b20dd38684c73a6b270e963d35db9a7e7dde75c3a61d0079f"}, {2, 6, "1b1bbbdfb428aaee206c49e8b15a157efe9808aa9d71fb33bdfb47f7624970ab"}, {4, 6, "8caed91c5cc9bc364c3b6a88b8fa54143b13d22087f69f207898b6e168d6f664"}} {
		e, err := NewEMD(c.lines, c.perLine)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(append([]byte(fmt.Sprint(e.Tuples, e.Counts)), e.Dist...))
		if got := hex.EncodeToString(sum[:]); got != c.want {
			t.Errorf("EMD %d×%d: digest %s, want %s", c.lines, c.perLine, got, c.want)
		}
	}
}
