package fulltable

import (
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/perm"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// TestIndexIsPerm pins the index (a file format) to its definition in
// terms of perm.Full: the specialised rankers and unrankers must agree
// with it on every board the round trip meets.
func TestIndexIsPerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sp := range []puzzle.Spec{
		{Kind: puzzle.Sliding, Rows: 2, Cols: 3}, {Kind: puzzle.Sliding, Rows: 3, Cols: 3}, {Kind: puzzle.Sliding, Rows: 3, Cols: 4},
		{Kind: puzzle.Loopover, Rows: 2, Cols: 3}, {Kind: puzzle.Loopover, Rows: 3, Cols: 3}, {Kind: puzzle.Loopover, Rows: 3, Cols: 4},
	} {
		s := newSpace(sp)
		for range 5000 {
			idx := rng.Uint64N(s.size)
			var c board
			s.unrank(idx, &c)
			var v [MaxCells]uint8
			var want uint64
			if s.sliding {
				blank, j := 0, 0
				for i := 0; i < s.n; i++ {
					if c[i] == 0 {
						blank = i
						continue
					}
					v[j] = c[i] - 1
					j++
				}
				p := perm.Full(s.n - 1)
				want = uint64(blank)*p.Size()/2 + p.Rank(v[:s.n-1])>>1
			} else {
				for i := 0; i < s.n; i++ {
					v[i] = c[i] - 1
				}
				p := perm.Full(s.n)
				want = p.Rank(v[:s.n])
				if s.half {
					want >>= 1
				}
			}
			if want != idx || s.rank(&c) != idx {
				t.Fatalf("%v: unrank(%d) = %v: perm index %d, rank %d", sp, idx, c[:s.n], want, s.rank(&c))
			}
		}
	}
}
