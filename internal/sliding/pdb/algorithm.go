package pdb

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding"
)

// fastWeights are the heuristic weights (sixteenths) of the fast mode,
// tried in turn: each lighter weight finds shorter answers for more
// nodes, and the last is plain (optimal) IDA*.
var fastWeights = []search.Weight{24, 23, 22, 21, 20, 18, search.Unweighted}

// Answer solves req by IDA* over the set: proved optimal on req.Threads
// goroutines, or in fast mode anytime weighted IDA*.
func (sv *Solver) Answer(req search.Request) (search.Answer, error) {
	if req.Mode == result.ModeFast {
		return sv.fast(req)
	}
	out, err := sv.SolveParallel(req.State.Cells, req.Budget, search.Unweighted, req.Threads)
	return sliding.PathAnswer(out, sv.Name()), err
}

// FastNodes is the default work budget of the fast mode: about
// search.FastWindow of one core of the reference machine over the 15- and
// 24-puzzle tables (docs/BENCHMARKS.md, "Fast mode by default: counted in
// nodes"), so that the same state gets the same answer at any load (on
// one thread: a parallel search's split of its nodes depends on the
// scheduler).
const FastNodes = 10_000_000

// fast is anytime weighted IDA*: the heaviest weight, then lighter
// ones, keeping the shortest answer, for as long as the request's own
// budget lasts when it chose one (a --timeout or --budget-nodes, longer
// or shorter), else for FastNodes in all (the first answer's included)
// under the time ceiling search.FastCeiling. An answer the clock
// ended says so in its name.
func (sv *Solver) fast(req search.Request) (search.Answer, error) {
	b := req.Budget
	window := b.Fast(FastNodes)
	// The first answer too: a state beyond the default ends after the same
	// nodes on any host.
	best, err := sv.SolveParallel(req.State.Cells, window, fastWeights[0], req.Threads)
	name := weighted(sv.Name(), fastWeights[0])
	if err != nil {
		return sliding.PathAnswer(best, name), err
	}
	timed := false
	for _, w := range fastWeights[1:] {
		lb := window
		if window.MaxNodes > 0 {
			if lb.MaxNodes = window.MaxNodes - best.Nodes; lb.MaxNodes <= 0 {
				break
			}
		}
		out, err := sv.SolveParallel(req.State.Cells, lb, w, req.Threads)
		best.Nodes += out.Nodes
		if err != nil {
			// Out of time or nodes: keep the best so far.
			timed = window.TimeLimited(best.Nodes)
			break
		}
		if len(out.Path) < len(best.Path) || out.Optimal {
			nodes := best.Nodes
			best, best.Nodes = out, nodes
			name = weighted(sv.Name(), w)
			if out.Optimal {
				name = sv.Name()
				break
			}
		}
	}
	if timed {
		name = search.TimeLimitedName(name)
	}
	return sliding.PathAnswer(best, name), nil
}

func weighted(name string, w search.Weight) string {
	return fmt.Sprintf("%s×%g", name, float64(w)/search.WeightDen)
}
