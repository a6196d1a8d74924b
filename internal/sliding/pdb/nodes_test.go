package pdb

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// The node counts of a handful of searches, pinned: the IDA* driver and
// the dfs decide together which nodes are expanded, so a change to either
// that alters the search (bounds, order, lanes, budget checkpoints) shows
// here even when every answer stays optimal; the dual search's rows pin
// it too (dual_search_test.go). Recorded on the searches
// before they shared internal/search's driver.
func TestNodesPinned(t *testing.T) {
	pdbs := partition(t, Partition555)
	sv := reflectingSolver(t, pdbs...)
	lanes := reflectingSolver(t, pdbs...)
	lanes.interleave = true // as on tables too large for the caches
	s555, err := NewSet(pdbs...)
	if err != nil {
		t.Fatal(err)
	}
	dual, err := newDualSolver(s555, true, dualOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s33, err := NewSet(build(t, 3, 3, []uint8{1, 2, 3, 4}, Options{}), build(t, 3, 3, []uint8{5, 6, 7, 8}, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	sv33, err := NewSolver(s33, false)
	if err != nil {
		t.Fatal(err)
	}
	ks := instances.Korf100()
	rng := rand.New(rand.NewPCG(28, 5))
	type run struct {
		name  string
		sv    *Solver
		cells []uint8
		b     search.Budget
		w     search.Weight
	}
	var runs []run
	for _, id := range []int{1, 2, 9, 65} {
		runs = append(runs, run{fmt.Sprintf("555 korf %d", id), sv, ks[id-1].Cells, search.Budget{}, search.Unweighted},
			run{fmt.Sprintf("555 korf %d w24", id), sv, ks[id-1].Cells, search.Budget{}, 24},
			run{fmt.Sprintf("555 korf %d lanes", id), lanes, ks[id-1].Cells, search.Budget{}, search.Unweighted},
			run{fmt.Sprintf("555 korf %d dual", id), dual, ks[id-1].Cells, search.Budget{}, search.Unweighted})
	}
	runs = append(runs, run{"555 korf 1 budget", sv, ks[0].Cells, search.Budget{MaxNodes: 5000}, search.Unweighted},
		run{"555 korf 1 w24 budget", sv, ks[0].Cells, search.Budget{MaxNodes: 100}, 24},
		run{"555 korf 1 lanes budget", lanes, ks[0].Cells, search.Budget{MaxNodes: 5000}, search.Unweighted},
		run{"555 korf 1 dual budget", dual, ks[0].Cells, search.Budget{MaxNodes: 5000}, search.Unweighted},
		run{"555 korf 1 dual w24", dual, ks[0].Cells, search.Budget{}, 24})
	for i := range 3 {
		c := puzzle.RandomWalk(puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}, rng, 40).Cells
		runs = append(runs, run{fmt.Sprintf("3x3 walk %d", i), sv33, c, search.Budget{}, search.Unweighted},
			run{fmt.Sprintf("3x3 walk %d w32", i), sv33, c, search.Budget{}, 32})
	}
	want := []string{
		"555 korf 1: nodes 51288 moves 57 lower 57 optimal true err <nil>",
		"555 korf 1 w24: nodes 711 moves 63 lower 47 optimal false err <nil>",
		"555 korf 1 lanes: nodes 53003 moves 57 lower 57 optimal true err <nil>",
		"555 korf 1 dual: nodes 47102 moves 57 lower 57 optimal true err <nil>",
		"555 korf 2: nodes 39387 moves 55 lower 55 optimal true err <nil>",
		"555 korf 2 w24: nodes 461 moves 65 lower 45 optimal false err <nil>",
		"555 korf 2 lanes: nodes 22340 moves 55 lower 55 optimal true err <nil>",
		"555 korf 2 dual: nodes 25020 moves 55 lower 55 optimal true err <nil>",
		"555 korf 9: nodes 15457 moves 46 lower 46 optimal true err <nil>",
		"555 korf 9 w24: nodes 2366 moves 54 lower 40 optimal false err <nil>",
		"555 korf 9 lanes: nodes 13789 moves 46 lower 46 optimal true err <nil>",
		"555 korf 9 dual: nodes 9860 moves 46 lower 46 optimal true err <nil>",
		"555 korf 65: nodes 45247 moves 47 lower 47 optimal true err <nil>",
		"555 korf 65 w24: nodes 1019 moves 51 lower 37 optimal false err <nil>",
		"555 korf 65 lanes: nodes 64556 moves 47 lower 47 optimal true err <nil>",
		"555 korf 65 dual: nodes 34863 moves 47 lower 47 optimal true err <nil>",
		"555 korf 1 budget: nodes 5000 moves 0 lower 55 optimal false err budget exceeded",
		"555 korf 1 w24 budget: nodes 100 moves 0 lower 47 optimal false err budget exceeded",
		"555 korf 1 lanes budget: nodes 24809 moves 0 lower 55 optimal false err budget exceeded",
		"555 korf 1 dual budget: nodes 5000 moves 0 lower 55 optimal false err budget exceeded",
		"555 korf 1 dual w24: nodes 580 moves 63 lower 47 optimal false err <nil>",
		"3x3 walk 0: nodes 139 moves 22 lower 22 optimal true err <nil>",
		"3x3 walk 0 w32: nodes 29 moves 28 lower 20 optimal false err <nil>",
		"3x3 walk 1: nodes 24 moves 16 lower 16 optimal true err <nil>",
		"3x3 walk 1 w32: nodes 27 moves 16 lower 14 optimal false err <nil>",
		"3x3 walk 2: nodes 55 moves 18 lower 18 optimal true err <nil>",
		"3x3 walk 2 w32: nodes 65 moves 18 lower 16 optimal false err <nil>",
	}
	coretest.Pinned(t, want, len(runs), func(i int) (string, search.Outcome, error) {
		r := runs[i]
		out, err := r.sv.SolveWeighted(r.cells, r.b, r.w)
		if err == nil && !coretest.SlidingSolved(coretest.SlidePath(r.sv.set.g.cols, r.cells, out.Path)) {
			t.Errorf("%s: the answer does not reach the goal", r.name)
		}
		return r.name, out, err
	})
}
