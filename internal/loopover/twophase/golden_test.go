package twophase

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// goldenAnswers is the digest of the fallback solver's answers (moves,
// lower bound, nodes) to eight random boards at 40,000 nodes each. A change
// that only makes the search cheaper (how its lookups are read, in which
// order its children's bounds are decided) must leave it as it is; a
// change of what the search does must say so by changing it.
const goldenAnswers = "10aab6c863034434"

func TestAnswersGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("solves eight 5×5 boards at 40,000 nodes")
	}
	s := fallback(t)
	h := sha256.New()
	for _, st := range randomStates(8) {
		ms, lower, nodes, err := s.solve(st.Cells, search.Budget{MaxNodes: 40_000})
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%s lower %d nodes %d\n", puzzle.FormatMoves(spec55, ms), lower, nodes)
		h.Write([]byte(line))
	}
	if got := fmt.Sprintf("%x", h.Sum(nil)[:8]); got != goldenAnswers {
		t.Fatalf("answers digest %s, want %s", got, goldenAnswers)
	}
}

// index7, the seven-piece ranking written out, ranks as perm does.
func TestIndex7(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for n := 0; n < 20000; n++ {
		var pos [9]uint8
		for i, c := range rng.Perm(cells)[:9] {
			pos[i] = uint8(c)
		}
		for k := range p7Look {
			lk := &p7Look[k]
			var p [7]uint8
			for i := range p {
				p[i] = lk.cmap[pos[lk.sel[i]]]
			}
			if got, want := index7(lk, &pos), rank(p[:]); got != want {
				t.Fatalf("pos %v lookup %d: index7 %d, rank %d", pos, k, got, want)
			}
		}
	}
}
