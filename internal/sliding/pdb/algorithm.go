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

// fast is anytime weighted IDA*: the heaviest weight under the job's
// budget, then lighter ones, keeping the shortest answer, for as long as
// the request's own budget lasts when it chose one (a --timeout or
// --budget-nodes, longer or shorter), else while search.FastWindow lasts.
func (sv *Solver) fast(req search.Request) (search.Answer, error) {
	b := req.Budget
	// The window counts from the start, so a solve takes about a second
	// in all unless the first answer alone takes longer.
	window := b.Fast(search.FastWindow)
	best, err := sv.SolveParallel(req.State.Cells, b, fastWeights[0], req.Threads)
	name := weighted(sv.Name(), fastWeights[0])
	if err != nil {
		return sliding.PathAnswer(best, name), err
	}
	for _, w := range fastWeights[1:] {
		lb := window
		if b.MaxNodes > 0 {
			if lb.MaxNodes = b.MaxNodes - best.Nodes; lb.MaxNodes <= 0 {
				break
			}
		}
		out, err := sv.SolveParallel(req.State.Cells, lb, w, req.Threads)
		best.Nodes += out.Nodes
		if err != nil {
			break // out of time or nodes: keep the best so far
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
	return sliding.PathAnswer(best, name), nil
}

func weighted(name string, w search.Weight) string {
	return fmt.Sprintf("%s×%g", name, float64(w)/search.WeightDen)
}
