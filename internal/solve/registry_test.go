package solve

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// builtNames is the names of the entries r has made an algorithm for.
func builtNames(r *Registry) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k := range r.built {
		out = append(out, r.entries[k.entry].Name+" "+k.spec.String())
	}
	slices.Sort(out)
	return out
}

// A process pays only for the puzzles it is asked about: a 15-puzzle
// makes the sliding search and nothing else (not the 5×5 Loopover
// two-phase solver, whose set-up costs the best part of a second).
func TestRegistryIsLazy(t *testing.T) {
	reg := NewRegistry(Builtin()...)
	if got := builtNames(reg); len(got) != 0 {
		t.Fatalf("a new registry has made %v", got)
	}
	s := New(reg)
	sp := spec(t, "15")
	st := puzzle.RandomWalk(sp, rand.New(rand.NewPCG(15, 15)), 20)
	for _, mode := range []result.Mode{result.ModeOptimal, result.ModeFast} {
		if r := s.Solve(context.Background(), st, Options{Mode: mode}); r.Status != result.StatusSolved {
			t.Fatalf("%s: %+v", mode, r)
		}
	}
	if got, want := builtNames(reg), []string{"sliding IDA* sliding:4x4"}; !slices.Equal(got, want) {
		t.Fatalf("after 15-puzzles the registry has made %v, want %v", got, want)
	}
	sp = spec(t, "loopover:5x5")
	st = puzzle.RandomWalk(sp, rand.New(rand.NewPCG(5, 5)), 6)
	if r := s.Solve(context.Background(), st, Options{Mode: result.ModeFast, Budget: search.Budget{MaxNodes: 1000}}); r.Status != result.StatusSolved {
		t.Fatalf("5x5 fast: %+v", r)
	}
	if got, want := builtNames(reg), []string{"loopover two-phase loopover:5x5", "sliding IDA* sliding:4x4"}; !slices.Equal(got, want) {
		t.Fatalf("after a 5x5 Loopover the registry has made %v, want %v", got, want)
	}
}

// The Loopover family's Route (the one place deciding what answers a
// board) gives an optimal search exactly to the boards past the in-memory
// tables whose walking-distance tables fit (loopover.WDSize), and to 5×5;
// 5×5 fast mode is the two-phase solver's; the rest is constructive.
func TestLoopoverRoutes(t *testing.T) {
	for r := puzzle.MinSide; r <= puzzle.MaxSide; r++ {
		for c := puzzle.MinSide; c <= puzzle.MaxSide; c++ {
			sp := puzzle.Spec{Kind: puzzle.Loopover, Rows: r, Cols: c}
			_, e1 := loopover.WDSize(r, c)
			_, e2 := loopover.WDSize(c, r)
			want := policy.RouteConstruct
			switch {
			case sp.Cells() <= policy.TableCells:
				want = policy.RouteTable
			case e1 == nil && e2 == nil, r == 5 && c == 5:
				want = policy.RouteSearch
			}
			if got := policy.Of(sp, false); got != want {
				t.Errorf("%s optimal: route %d, want %d", sp, got, want)
			}
			if r == 5 && c == 5 {
				want = policy.RouteTwoPhase
			}
			if got := policy.Of(sp, true); got != want {
				t.Errorf("%s fast: route %d, want %d", sp, got, want)
			}
		}
	}
}
