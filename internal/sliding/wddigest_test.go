package sliding

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"
)

// The walking-distance tables are pinned byte for byte (distances, links,
// goal), so that a change of their filler that changes an entry shows.
func TestWDDigests(t *testing.T) {
	for _, c := range []struct {
		lines, perLine int
		want           string
	}{{3, 3, "69906bbbca9753376bdae7aa45da320af0e4b55d4141b76d3d57f47dc8e36b0d"}, {4, 4, "6eafe9819aa4a2419ada09363fa7072de3933c04de42747b7a436beb031377d2"}, {5, 2, "c62703f2427654b28957209739b2e1c09c1bc5913132cb3043f87b5f51a7925d"}, {4, 5, "80a9f1e4f499fb9fd53a09865c13c837fc90b01e3d7875d34ea80eae7f0d3430"}} {
		w, err := NewWD(c.lines, c.perLine)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		h.Write(w.Dist)
		binary.Write(h, binary.LittleEndian, w.Link)
		binary.Write(h, binary.LittleEndian, w.Goal)
		if got := hex.EncodeToString(h.Sum(nil)); got != c.want {
			t.Errorf("WD %d×%d: digest %s, want %s", c.lines, c.perLine, got, c.want)
		}
	}
}
