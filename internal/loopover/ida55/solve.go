package ida55

import (
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/search"
)

var _ loopover.Parallel = (*Solver)(nil)

// Heuristic is the admissible bound the search uses for cells (1..25).
func (s *Solver) Heuristic(cells []uint8) (int, error) {
	b, err := s.g.Root(cells)
	if err != nil {
		return 0, err
	}
	h := s.g.Bound(&b)
	if s.pat != nil {
		h = max(h, s.pat.bound(&s.pat.root55(&b).pos))
	}
	return h, nil
}

// Solve runs IDA* from cells (1..25 row-major) to the goal, as
// loopover.Solver.Solve does.
func (s *Solver) Solve(cells []uint8, bud search.Budget) (search.Outcome, error) {
	return s.SolveParallel(cells, bud, 1)
}

// SolveParallel is Solve on up to workers goroutines, as
// loopover.Solver.SolveParallel splits its iterations; each worker has its
// own children and pattern states per depth.
func (s *Solver) SolveParallel(cells []uint8, bud search.Budget, workers int) (search.Outcome, error) {
	b, err := s.g.Root(cells)
	if err != nil {
		return search.Outcome{}, err
	}
	w := &work{Work: loopover.NewWork(s.g, b, bud), pat: s.pat}
	var rc, cc codes55
	for i := range rc {
		rc[i], cc[i] = uint16(b.RC[i]), uint16(b.CC[i])
	}
	h0 := s.g.Bound(&b)
	var nd *node55
	if s.pat != nil {
		nd = s.pat.root55(&b)
		h0 = max(h0, s.pat.bound(&nd.pos))
	}
	iter := func(w *work) (int, bool) {
		w.grow()
		return w.dfs55(0, rc, cc, b.HR, b.HC, 0xff, 0, nd)
	}
	fork := func(c *loopover.Work) (*work, *loopover.Work) {
		x := &work{Work: *c, pat: s.pat}
		return x, &x.Work
	}
	return search.Deepen(loopover.NewTree(w, &w.Work, iter, fork), search.Deepening{H0: h0, Workers: workers})
}

// grow sizes dfs55's per-depth children, and their pattern states, for
// w.Bound.
func (w *work) grow() {
	if len(w.k55) < w.Bound+1 {
		w.k55 = make([]kids55, w.Bound+1)
		if w.pat != nil {
			w.n55 = make([][4 * side]node55, w.Bound+1)
		}
	}
}
