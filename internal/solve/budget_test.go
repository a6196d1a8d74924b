package solve

import (
	"context"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// recorder answers nothing and keeps the request it was given.
type recorder struct{ req *search.Request }

func (r recorder) Answer(req search.Request) (search.Answer, error) {
	*r.req = req
	return search.Answer{}, search.ErrBudgetExceeded
}

// The request's own --timeout and --budget-nodes reach the algorithm as a
// chosen budget (fast mode spends it, however long); a host's ceiling and
// no budget at all do not.
func TestBudgetChosen(t *testing.T) {
	var got search.Request
	s := New(NewRegistry(Entry{Name: "recorder",
		Serves: func(puzzle.Spec, result.Mode) bool { return true },
		New:    func(puzzle.Spec) (search.Algorithm, error) { return recorder{&got}, nil }}))
	st := spec(t, "15")
	goal := puzzle.State{Spec: st}.Goal().String()
	for _, c := range []struct {
		name   string
		opt    Options
		chosen bool
	}{
		{"no budget", Options{Mode: result.ModeFast}, false},
		{"a longer timeout", Options{Mode: result.ModeFast, Budget: search.Budget{Timeout: 5 * time.Second}}, true},
		{"a node budget", Options{Mode: result.ModeFast, Budget: search.Budget{MaxNodes: 1e9}}, true},
		{"a host's ceiling", Options{Mode: result.ModeFast, Budget: search.Budget{Timeout: time.Minute, MaxNodes: 1e9, Origin: search.OriginCeiling}}, false},
	} {
		start := time.Now()
		s.SolveText(context.Background(), st, goal, c.opt)
		b := got.Budget
		if chosen := b.Origin == search.OriginChosen && (b.MaxNodes > 0 || b.Timeout > 0); chosen != c.chosen || b.MaxNodes != c.opt.Budget.MaxNodes {
			t.Errorf("%s: budget %+v", c.name, b)
		}
		if d := c.opt.Budget.Timeout; d > 0 && (b.Deadline.Before(start.Add(d)) || b.Deadline.After(time.Now().Add(d))) {
			t.Errorf("%s: deadline %v after the start, want %v", c.name, b.Deadline.Sub(start), d)
		}
	}
}
