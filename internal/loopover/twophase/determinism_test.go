package twophase

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// The default fast budget is counted in nodes: the same states solved
// twice, once with the process slowed (one P shared with a busy
// goroutine, so the search gets half the CPU and its wall time doubles), give byte-identical answers: moves, length, bound, nodes
// and solver. A clock window would have searched fewer nodes in the slow
// run and answered differently.
func TestDefaultBudgetSameAtAnyLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("solves six 5×5 boards at the default budget")
	}
	s := fallback(t)
	states := randomStates(3)
	// The budget the pipeline and `solverd solve` grant a job naming none.
	def := search.Grant(search.Budget{}, policy.DefaultTimeout(spec55, result.ModeFast), search.Budget{})
	var nodes []int64
	solveAll := func() []string {
		out := make([]string, len(states))
		nodes = nodes[:0]
		for i, st := range states {
			a, err := s.Answer(search.Request{State: st, Budget: def.Start(context.Background())})
			if err != nil {
				t.Fatal(err)
			}
			nodes = append(nodes, a.Nodes)
			out[i] = fmt.Sprintf("%s len %d lower %d nodes %d solver %q", puzzle.FormatMoves(spec55, a.Moves), len(a.Moves), a.LowerBound, a.Nodes, a.Solver)
		}
		return out
	}
	quiet := solveAll()

	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !stop.Load() {
				x++ // preempted asynchronously: the hogs share the one P with the search
			}
			_ = x
		}()
	}
	loaded := solveAll()
	stop.Store(true)
	wg.Wait()

	for i := range quiet {
		if quiet[i] != loaded[i] {
			t.Errorf("state %d: quiet %s\nloaded %s", i, quiet[i], loaded[i])
		}
	}
	// The node budget, not an early optimal proof, ended each search, so
	// the comparison above tested the budget.
	for i, n := range nodes {
		if n < s.Default() {
			t.Errorf("state %d: %d nodes, under the default %d: the budget was not what stopped it", i, n, s.Default())
		}
	}
}
