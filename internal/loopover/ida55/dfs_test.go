package ida55

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// capped55 is the 5×5 walking distance exact to depth 5 and 6 beyond:
// admissible, built in a second or two, where the table file takes
// minutes. Shared by the tests of this file.
var capped55 = sync.OnceValues(func() (*loopover.WD, error) {
	dist, _, err := loopover.BuildWDTable(context.Background(), 5, 5, 0, 5, nil)
	if err != nil {
		return nil, err
	}
	return loopover.NewWDFrom(5, 5, dist)
})

// solvers55 are the specialised 5×5 search over the capped table and the
// general one over the same distances.
func solvers55(t *testing.T) (fast *Solver, general *loopover.Solver) {
	wd, err := capped55()
	if err != nil {
		t.Fatal(err)
	}
	if fast, err = New(wd); err != nil {
		t.Fatal(err)
	}
	other := *wd
	if general, err = loopover.NewWDSolverWith(5, 5, wd, &other); err != nil {
		t.Fatal(err)
	}
	return fast, general
}

// The specialised search is the general one made faster: the same bound,
// move rules and order of children, so on every state the same path after
// the same number of nodes; and on two workers an answer as short.
func TestDFS55MatchesGeneral(t *testing.T) {
	fast, general := solvers55(t)
	sp := spec(5, 5)
	rng := rand.New(rand.NewPCG(55, 55))
	for i := 0; i < 40; i++ {
		cells := puzzle.RandomWalk(sp, rng, 4+i%7).Cells
		a, err := fast.Solve(cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := general.Solve(cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Path, b.Path) || a.Nodes != b.Nodes || a.LowerBound != b.LowerBound {
			t.Fatalf("%v: specialised %v in %d nodes, general %v in %d", cells, a.Path, a.Nodes, b.Path, b.Nodes)
		}
		coretest.Replay(t, puzzle.State{Spec: sp, Cells: cells}, fast.Moves(a.Path))
		p, err := fast.SolveParallel(cells, search.Budget{}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Path) != len(a.Path) {
			t.Fatalf("%v: %d moves on two workers, %d on one", cells, len(p.Path), len(a.Path))
		}
		coretest.Replay(t, puzzle.State{Spec: sp, Cells: cells}, fast.Moves(p.Path))
	}
	// A budget stops it with the bound proved so far, as it does the
	// general search.
	cells := puzzle.Random(sp, rng).Cells
	a, errA := fast.Solve(cells, search.Budget{MaxNodes: 500})
	b, errB := general.Solve(cells, search.Budget{MaxNodes: 500})
	if errA != search.ErrBudgetExceeded || errB != search.ErrBudgetExceeded || a.LowerBound != b.LowerBound || a.Nodes != b.Nodes {
		t.Fatalf("budget: %v bound %d nodes %d; general %v bound %d nodes %d", errA, a.LowerBound, a.Nodes, errB, b.LowerBound, b.Nodes)
	}
}

// Every state within 4 moves is answered in exactly its BFS distance.
func TestDFS55Ball(t *testing.T) {
	fast, _ := solvers55(t)
	n := 0
	for key, d := range coretest.Ball(spec(5, 5), 4) {
		cells := []uint8(key)
		if n++; n%13 != 0 {
			continue
		}
		out, err := fast.Solve(cells, search.Budget{})
		if err != nil || len(out.Path) != d || !out.Optimal {
			t.Fatalf("%v: %d moves (optimal %v), BFS distance %d (%v)", cells, len(out.Path), out.Optimal, d, err)
		}
	}
}
