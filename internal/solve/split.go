package solve

import (
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// SplitFunc runs f with the split search of spec's optimal
// algorithm, the tables it reads kept mapped while f runs; ok is false,
// and f is not run, when that algorithm cannot split.
type SplitFunc func(spec puzzle.Spec, f func(search.Splitter) error) (ok bool, err error)

// Split is the SplitFunc of s's registry.
func (s *Solver) Split(spec puzzle.Spec, f func(search.Splitter) error) (bool, error) {
	alg, err := s.reg.Pick(spec, result.ModeOptimal)
	if err != nil {
		return false, nil // no algorithm: the state is solved whole, which reports why
	}
	sp, ok := alg.(search.Splitter)
	if !ok {
		return false, nil
	}
	return true, f(sp)
}

// Split is Solver.Split over the sets in use when it is called.
func (v *Live) Split(spec puzzle.Spec, f func(search.Splitter) error) (bool, error) {
	g := v.acquire()
	defer v.release(g)
	return g.solver.Split(spec, f)
}
