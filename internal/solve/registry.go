package solve

import (
	"fmt"
	"sync"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// Entry is one way to solve: which puzzles and modes it serves, and how to
// make its algorithm for one board shape. New runs once per shape, on the
// first request for it, so a process pays only for the puzzles it is asked
// about (tables mapped, in-memory tables built).
type Entry struct {
	Name   string
	Serves func(spec puzzle.Spec, mode result.Mode) bool
	New    func(spec puzzle.Spec) (search.Algorithm, error)
}

// Registry holds the entries in order of preference: a request goes to the
// first entry that serves it. It is built explicitly at start (Builtin,
// after any loaded table sets) and is safe for concurrent use.
type Registry struct {
	entries []Entry
	mu      sync.Mutex
	built   map[builtKey]*built
}

type builtKey struct {
	entry int
	spec  puzzle.Spec
}

type built struct {
	once sync.Once
	alg  search.Algorithm
	err  error
}

// NewRegistry is a registry over entries, best first.
func NewRegistry(entries ...Entry) *Registry {
	return &Registry{entries: entries, built: map[builtKey]*built{}}
}

// Pick is the algorithm of the first entry serving spec in mode, made on
// first use. An entry that fails to make one fails the request (it is not
// silently skipped: a damaged table must show).
func (r *Registry) Pick(spec puzzle.Spec, mode result.Mode) (search.Algorithm, error) {
	for i, e := range r.entries {
		if !e.Serves(spec, mode) {
			continue
		}
		k := builtKey{i, spec}
		r.mu.Lock()
		b := r.built[k]
		if b == nil {
			b = &built{}
			r.built[k] = b
		}
		r.mu.Unlock()
		b.once.Do(func() { b.alg, b.err = e.New(spec) })
		if b.err != nil {
			return nil, fmt.Errorf("%s for %s: %w", e.Name, spec, b.err)
		}
		return b.alg, nil
	}
	return nil, fmt.Errorf("%s: no solver for this puzzle in %s mode: %w", spec, mode, puzzle.ErrMalformed)
}
