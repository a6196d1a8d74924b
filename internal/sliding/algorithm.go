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

// FastNodes is the default work budget of the tables-free fast mode: a
// state whose weighted search needs more ends budget_exceeded after
// exactly this many nodes, whatever the host's load, instead of after
// whatever the clock allowed. About a second of one core on 24-puzzles
// (docs/BENCHMARKS.md, "Fast mode by default: counted in nodes"), ten
// times under the time ceiling (search.FastCeiling, within the 10 s job
// default).
const FastNodes = 4_000_000

// Answer solves req by IDA* over the searcher's bound on req.Threads
// goroutines: proved optimal, or in fast mode weighted (h × 1.5) within
// FastNodes unless the request chose a budget (search.Budget.Fast).
func (s *Searcher) Answer(req search.Request) (search.Answer, error) {
	w, name, b := search.Unweighted, s.Name(), req.Budget
	if req.Mode == result.ModeFast {
		w, name, b = fastWeight, name+"×1.5", b.Fast(FastNodes)
	}
	out, err := s.SolveParallel(req.State.Cells, b, w, req.Threads)
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
