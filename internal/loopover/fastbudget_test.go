package loopover

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// Fast mode's default budget before the constructive answer is
// FastNodes, not a clock: a 5×5 board the displacement search cannot
// solve in it falls back after exactly FastNodes nodes, and its answer
// carries no time mark. A chosen --timeout that the clock ends is said in
// the solver's name instead, since that answer depends on the host.
func TestFastDefaultBudgetIsNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("searches FastNodes nodes")
	}
	sv, err := NewEMDSolver(5, 5)
	if err != nil {
		t.Fatal(err)
	}
	alg := NewAlgorithm(sv)
	sp := puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
	st := puzzle.Random(sp, rand.New(rand.NewPCG(30, 1)))
	ask := func(b search.Budget) search.Answer {
		t.Helper()
		a, err := alg.Answer(search.Request{State: st, Mode: result.ModeFast, Budget: b.Start(context.Background())})
		if err != nil {
			t.Fatal(err)
		}
		if err := puzzle.VerifyMoves(st, a.Moves, st.Goal()); err != nil {
			t.Fatal(err)
		}
		return a
	}
	def := ask(search.Grant(search.Budget{}, policy.DefaultTimeout(sp, result.ModeFast), search.Budget{}))
	if def.Nodes != FastNodes || def.Solver != "loopover-construct" {
		t.Errorf("default budget: %d nodes by %q, want %d by the constructive solver, unmarked", def.Nodes, def.Solver, FastNodes)
	}
	timed := ask(search.Grant(search.Budget{Timeout: time.Millisecond}, policy.DefaultTimeout(sp, result.ModeFast), search.Budget{}))
	if timed.Nodes >= FastNodes || !strings.HasSuffix(timed.Solver, "(time limit)") {
		t.Errorf("--timeout 1ms: %d nodes by %q, want fewer than %d and the time mark", timed.Nodes, timed.Solver, FastNodes)
	}
}
