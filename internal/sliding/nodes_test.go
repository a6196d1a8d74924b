package sliding

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
// that alters the search (bounds, order, budget checkpoints) shows here
// even when every answer stays optimal. Recorded on the searches before
// they shared internal/search's driver.
func TestNodesPinned(t *testing.T) {
	s44, err := NewSearcher(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	s33, err := NewSearcher(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	s55, err := NewSearcher(5, 5)
	if err != nil {
		t.Fatal(err)
	}
	ks := instances.Korf100()
	rng := rand.New(rand.NewPCG(28, 4))
	walk := func(r, c, n int) []uint8 {
		return puzzle.RandomWalk(puzzle.Spec{Kind: puzzle.Sliding, Rows: r, Cols: c}, rng, n).Cells
	}
	type run struct {
		name  string
		s     *Searcher
		cells []uint8
		b     search.Budget
		w     search.Weight
	}
	var runs []run
	runs = append(runs, run{"4x4 korf 9", s44, ks[8].Cells, search.Budget{}, search.Unweighted})
	for _, id := range []int{1, 9, 65} {
		runs = append(runs, run{fmt.Sprintf("4x4 korf %d w24", id), s44, ks[id-1].Cells, search.Budget{}, 24})
	}
	runs = append(runs, run{"4x4 korf 1 budget", s44, ks[0].Cells, search.Budget{MaxNodes: 70000}, search.Unweighted},
		run{"4x4 korf 1 w24 budget", s44, ks[0].Cells, search.Budget{MaxNodes: 300}, 24})
	for i := range 3 {
		runs = append(runs, run{fmt.Sprintf("3x3 walk %d", i), s33, walk(3, 3, 40), search.Budget{}, search.Unweighted})
	}
	for i := range 2 {
		c := walk(5, 5, 40)
		runs = append(runs, run{fmt.Sprintf("5x5 walk %d", i), s55, c, search.Budget{}, search.Unweighted},
			run{fmt.Sprintf("5x5 walk %d w32", i), s55, c, search.Budget{}, 32})
	}
	want := []string{
		"4x4 korf 9: nodes 108457 moves 46 lower 46 optimal true err <nil>",
		"4x4 korf 1 w24: nodes 18579 moves 65 lower 47 optimal false err <nil>",
		"4x4 korf 9 w24: nodes 6871 moves 48 lower 34 optimal false err <nil>",
		"4x4 korf 65 w24: nodes 32758 moves 49 lower 33 optimal false err <nil>",
		"4x4 korf 1 budget: nodes 70000 moves 0 lower 55 optimal false err budget exceeded",
		"4x4 korf 1 w24 budget: nodes 300 moves 0 lower 47 optimal false err budget exceeded",
		"3x3 walk 0: nodes 202 moves 22 lower 22 optimal true err <nil>",
		"3x3 walk 1: nodes 1020 moves 20 lower 20 optimal true err <nil>",
		"3x3 walk 2: nodes 108 moves 22 lower 22 optimal true err <nil>",
		"5x5 walk 0: nodes 5490 moves 40 lower 40 optimal true err <nil>",
		"5x5 walk 0 w32: nodes 141 moves 56 lower 32 optimal false err <nil>",
		"5x5 walk 1: nodes 3976 moves 32 lower 32 optimal true err <nil>",
		"5x5 walk 1 w32: nodes 693 moves 40 lower 24 optimal false err <nil>",
	}
	coretest.Pinned(t, want, len(runs), func(i int) (string, search.Outcome, error) {
		r := runs[i]
		out, err := r.s.SolveWeighted(r.cells, r.b, r.w)
		if err == nil && !coretest.SlidingSolved(coretest.SlidePath(r.s.cols, r.cells, out.Path)) {
			t.Errorf("%s: the answer does not reach the goal", r.name)
		}
		return r.name, out, err
	})
}
