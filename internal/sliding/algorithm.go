package sliding

import (
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// fastWeight is the fast mode's heuristic weight (1.5×): it cuts
// 15-puzzle nodes by orders of magnitude for answers a few percent longer
// than optimal.
const fastWeight search.Weight = 24

// Answer solves req by IDA* over the searcher's bound on req.Threads
// goroutines: proved optimal, or in fast mode weighted (h × 1.5).
func (s *Searcher) Answer(req search.Request) (search.Answer, error) {
	w, name := search.Unweighted, s.Name()
	if req.Mode == result.ModeFast {
		w, name = fastWeight, name+"×1.5"
	}
	out, err := s.SolveParallel(req.State.Cells, req.Budget, w, req.Threads)
	return PathAnswer(out, name), err
}

// PathAnswer is the Answer of a sliding search's outcome: its path of tile
// directions (numbered as puzzle.Dir) becomes moves.
func PathAnswer(out search.Outcome, name string) search.Answer {
	a := search.Answer{Nodes: out.Nodes, LowerBound: out.LowerBound, Optimal: out.Optimal, Solver: name}
	if out.Path != nil {
		a.Moves = make([]puzzle.Move, len(out.Path))
		for i, d := range out.Path {
			a.Moves[i] = puzzle.Move{Dir: puzzle.Dir(d)}
		}
	}
	return a
}
