package loopover

import (
	"context"
	"math/rand/v2"
	"testing"
)

// The walking distance of a board's inverse (each piece's goal cell
// holding the cell the piece is on) equals the board's own, on both axes:
// the bound is a distance between double cosets, and a word and its
// inverse have the same length. So the inverse lookup that helps pattern
// databases adds nothing here; this test keeps docs/BENCHMARKS.md's claim
// true for the tables the solvers use.
func TestWDInverseInvariant(t *testing.T) {
	dist, _, err := BuildWDTable(context.Background(), 5, 5, 0, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	wd55, err := NewWDFrom(5, 5, dist)
	if err != nil {
		t.Fatal(err)
	}
	s55, err := NewWDSolverWith(5, 5, wd55, wd55)
	if err != nil {
		t.Fatal(err)
	}
	s44, err := NewWDSolver(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	s34, err := NewWDSolver(3, 4)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(19, 16))
	for _, s := range []*Solver{s55, s44, s34} {
		for range 20000 {
			perm := rng.Perm(s.n)
			cells, inv := make([]uint8, s.n), make([]uint8, s.n)
			for p, q := range perm {
				cells[p], inv[q] = uint8(q+1), uint8(p+1)
			}
			a, err := s.Root(cells)
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.Root(inv)
			if err != nil {
				t.Fatal(err)
			}
			if a.HR != b.HR || a.HC != b.HC {
				t.Fatalf("%dx%d %v: walking distance %d+%d, inverse %d+%d", s.r, s.c, cells, a.HR, a.HC, b.HR, b.HC)
			}
		}
	}
}
