package optimal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/ida44"
	"github.com/tessera-solver/tessera/internal/loopover/ida55"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// The node counts of a handful of searches, pinned: the IDA* driver and
// the dfs loops (general, dfs55, dfs44) decide together which nodes are
// expanded, so a change to either that alters the search (bounds, order,
// budget checkpoints) shows here even when every answer stays optimal.
func TestNodesPinned(t *testing.T) {
	type solver interface {
		Solve([]uint8, search.Budget) (search.Outcome, error)
		Moves([]uint8) []puzzle.Move
	}
	must := func(s solver, err error) solver {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	wd33 := must(loopover.NewWDSolver(3, 3))
	wd44 := must(loopover.NewWDSolver(4, 4))
	s44 := must(ida44.New())
	wd35 := must(loopover.NewWDSolver(3, 5))
	emd55 := must(loopover.NewEMDSolver(5, 5))
	// The 5×5 walking distance exact to depth 5 and 6 beyond: admissible,
	// built in a second or two, where the table file takes minutes.
	dist, _, err := loopover.BuildWDTable(context.Background(), 5, 5, 0, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	capped, err := loopover.NewWDFrom(5, 5, dist)
	if err != nil {
		t.Fatal(err)
	}
	fast55 := must(ida55.New(capped))
	rng := rand.New(rand.NewPCG(28, 6))
	type run struct {
		name  string
		s     solver
		sp    puzzle.Spec
		cells []uint8
		b     search.Budget
	}
	var runs []run
	add := func(name string, s solver, sp puzzle.Spec, n int, cells func() []uint8, b search.Budget) {
		for i := range n {
			runs = append(runs, run{fmt.Sprintf("%s %d", name, i), s, sp, cells(), b})
		}
	}
	walk := func(sp puzzle.Spec, n int) func() []uint8 {
		return func() []uint8 { return puzzle.RandomWalk(sp, rng, n).Cells }
	}
	random := func(sp puzzle.Spec) func() []uint8 { return func() []uint8 { return randomState(sp, rng) } }
	add("3x3 wd", wd33, spec(3, 3), 3, random(spec(3, 3)), search.Budget{})
	add("4x4 wd", wd44, spec(4, 4), 2, walk(spec(4, 4), 13), search.Budget{})
	add("4x4 wd+pdb6", s44, spec(4, 4), 3, random(spec(4, 4)), search.Budget{})
	add("4x4 wd+pdb6 budget", s44, spec(4, 4), 1, random(spec(4, 4)), search.Budget{MaxNodes: 200})
	add("3x5 wd", wd35, spec(3, 5), 3, walk(spec(3, 5), 14), search.Budget{})
	add("3x5 wd budget", wd35, spec(3, 5), 1, random(spec(3, 5)), search.Budget{MaxNodes: 3000})
	add("5x5 emd", emd55, spec(5, 5), 2, walk(spec(5, 5), 10), search.Budget{})
	add("5x5 wd55", fast55, spec(5, 5), 3, walk(spec(5, 5), 12), search.Budget{})
	add("5x5 wd55 budget", fast55, spec(5, 5), 1, random(spec(5, 5)), search.Budget{MaxNodes: 5000})
	want := []string{
		"3x3 wd 0: nodes 71 moves 6 lower 6 optimal true err <nil>",
		"3x3 wd 1: nodes 65 moves 7 lower 7 optimal true err <nil>",
		"3x3 wd 2: nodes 101 moves 7 lower 7 optimal true err <nil>",
		"4x4 wd 0: nodes 2193 moves 11 lower 11 optimal true err <nil>",
		"4x4 wd 1: nodes 50572 moves 13 lower 13 optimal true err <nil>",
		"4x4 wd+pdb6 0: nodes 53475 moves 15 lower 15 optimal true err <nil>",
		"4x4 wd+pdb6 1: nodes 148752 moves 14 lower 14 optimal true err <nil>",
		"4x4 wd+pdb6 2: nodes 40800 moves 15 lower 15 optimal true err <nil>",
		"4x4 wd+pdb6 budget 0: nodes 200 moves 0 lower 12 optimal false err budget exceeded",
		"3x5 wd 0: nodes 17339 moves 11 lower 11 optimal true err <nil>",
		"3x5 wd 1: nodes 1554 moves 10 lower 10 optimal true err <nil>",
		"3x5 wd 2: nodes 11 moves 7 lower 7 optimal true err <nil>",
		"3x5 wd budget 0: nodes 3000 moves 0 lower 11 optimal false err budget exceeded",
		"5x5 emd 0: nodes 141 moves 10 lower 10 optimal true err <nil>",
		"5x5 emd 1: nodes 50 moves 10 lower 10 optimal true err <nil>",
		"5x5 wd55 0: nodes 328 moves 12 lower 12 optimal true err <nil>",
		"5x5 wd55 1: nodes 13 moves 7 lower 7 optimal true err <nil>",
		"5x5 wd55 2: nodes 69 moves 10 lower 10 optimal true err <nil>",
		"5x5 wd55 budget 0: nodes 5000 moves 0 lower 15 optimal false err budget exceeded",
	}
	coretest.Pinned(t, want, len(runs), func(i int) (string, search.Outcome, error) {
		r := runs[i]
		out, err := r.s.Solve(r.cells, r.b)
		if err == nil {
			coretest.Replay(t, puzzle.State{Spec: r.sp, Cells: r.cells}, r.s.Moves(out.Path))
		}
		return r.name, out, err
	})
}
