package twophase

import (
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// A chosen budget is spent, however it compares with DefaultTime: a node
// budget several times what the default window searched is searched to
// its end (unless the answer is proved optimal first), and a tiny one
// still gets the first answer. Counted in nodes, so the load of the
// machine does not matter.
func TestAnswerSpendsChosenBudget(t *testing.T) {
	s := fallback(t)
	st := puzzle.Random(spec55, rand.New(rand.NewPCG(55, 1)))
	def, err := s.Answer(search.Request{State: st, Budget: search.Budget{}})
	if err != nil {
		t.Fatal(err)
	}
	if def.Nodes == 0 || def.Optimal {
		t.Skipf("default answer %d moves, optimal %v, %d nodes: nothing to extend", len(def.Moves), def.Optimal, def.Nodes)
	}
	coretest.Replay(t, st, def.Moves)
	more := 4 * def.Nodes
	long, err := s.Answer(search.Request{State: st, Budget: search.Budget{MaxNodes: more, Origin: search.OriginChosen}})
	if err != nil {
		t.Fatal(err)
	}
	coretest.Replay(t, st, long.Moves)
	if long.Nodes <= more && !long.Optimal {
		t.Fatalf("a budget of %d nodes stopped after %d (the default window: %d)", more, long.Nodes, def.Nodes)
	}
	if len(long.Moves) > len(def.Moves) {
		t.Errorf("%d nodes gave %d moves, the default %d moves", long.Nodes, len(long.Moves), len(def.Moves))
	}
	short, err := s.Answer(search.Request{State: st, Budget: search.Budget{MaxNodes: 100, Origin: search.OriginChosen}})
	if err != nil {
		t.Fatal(err)
	}
	coretest.Replay(t, st, short.Moves)
	if short.Nodes >= def.Nodes {
		t.Errorf("a budget of 100 nodes searched %d, the default %d", short.Nodes, def.Nodes)
	}
}
