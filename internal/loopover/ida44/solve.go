package ida44

import (
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/search"
)

// Heuristic is the admissible bound the search uses for cells (1..16).
func (s *Solver) Heuristic(cells []uint8) (int, error) {
	b, err := s.wd.Root(cells)
	if err != nil {
		return 0, err
	}
	h := s.wd.Bound(&b)
	cw, pw := words44(&b)
	var v slotVals
	p := s.pdbBound(s.table(), cw, pw, 1<<30, &v)
	return max(h, p+(p^b.Par)&1), nil
}

// Solve runs IDA* from cells (1..16 row-major) to the goal, as
// loopover.Solver.Solve does.
func (s *Solver) Solve(cells []uint8, bud search.Budget) (search.Outcome, error) {
	return s.SolveParallel(cells, bud, 1)
}

// SolveParallel is Solve on up to workers goroutines, as
// loopover.Solver.SolveParallel splits its iterations; each worker has its own
// buffers and reads the one pattern database.
func (s *Solver) SolveParallel(cells []uint8, bud search.Budget, workers int) (search.Outcome, error) {
	b, err := s.wd.Root(cells)
	if err != nil {
		return search.Outcome{}, err
	}
	w := &work44{Work: loopover.NewWork(s.wd, b, bud), s: s, pdb: s.table()}
	w.buf = s.bufs.Get().(*buf44)
	defer s.bufs.Put(w.buf)
	cw, pw := words44(&b)
	p := s.pdbBound(w.pdb, cw, pw, 1<<30, &w.rootV)
	h0 := max(s.wd.Bound(&b), p+(p^b.Par)&1)
	rc, cc := pack44(&b.RC), pack44(&b.CC)
	iter := func(w *work44) (int, bool) {
		if len(w.buf.kv) < w.Bound+1 {
			w.buf.kv = make([][16]slotVals, w.Bound+8)
		}
		return w.dfs44(0, cw, pw, rc, cc, b.HR, b.HC, b.Par, 16, 0, &w.rootV, 1<<32-1)
	}
	fork := func(c *loopover.Work) (*work44, *loopover.Work) {
		x := &work44{Work: *c, s: s, pdb: w.pdb, buf: &buf44{}, rootV: w.rootV}
		return x, &x.Work
	}
	return search.Deepen(loopover.NewTree(w, &w.Work, iter, fork), search.Deepening{H0: h0, Workers: workers})
}

var _ loopover.Parallel = (*Solver)(nil)
