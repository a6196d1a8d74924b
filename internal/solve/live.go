package solve

import (
	"context"
	"errors"
	"sync"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
)

// Live is the solver of a long-running process whose tables may change
// while it runs (solverd run picking up tables built or pulled after its
// start). Swap replaces the table sets whole; a solve keeps the sets it
// started with, so a search never sees its tables change under it, and a
// replaced set's tables are unmapped when the last solve using them
// returns. It is safe for concurrent use.
type Live struct {
	mu      sync.Mutex
	cur     *generation
	errs    []error        // from unmapping replaced sets, returned by Close
	closing sync.WaitGroup // unmappings under way
}

// generation is one Loaded with its solver and the solves using it.
type generation struct {
	loaded  *Loaded
	solver  *Solver
	refs    int
	retired bool
}

// NewLive serves with l (and the built-in algorithms) until the first Swap.
func NewLive(l *Loaded) *Live {
	return &Live{cur: newGeneration(l)}
}

func newGeneration(l *Loaded) *generation {
	return &generation{loaded: l, solver: New(l.Registry())}
}

// SolveText is Solver.SolveText over the sets in use when it is called.
func (v *Live) SolveText(ctx context.Context, spec puzzle.Spec, text string, opt Options) result.Result {
	g := v.acquire()
	defer v.release(g)
	return g.solver.SolveText(ctx, spec, text, opt)
}

// Loaded is the sets in use now.
func (v *Live) Loaded() *Loaded {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cur.loaded
}

// Swap serves every solve that starts from now on with l. The sets it
// replaces are unmapped once no solve uses them. Swap after Close is a
// no-op that closes l.
func (v *Live) Swap(l *Loaded) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cur.retired { // closed
		v.unmap(newGeneration(l))
		return
	}
	old := v.cur
	v.cur = newGeneration(l)
	v.retire(old)
}

// Close unmaps the sets in use once their running solves return; no solve
// may start after it. It waits for the unmappings under way and returns
// the errors of every unmapping so far.
func (v *Live) Close() error {
	v.mu.Lock()
	if !v.cur.retired {
		v.retire(v.cur)
	}
	v.mu.Unlock()
	v.closing.Wait()
	v.mu.Lock()
	defer v.mu.Unlock()
	return errors.Join(v.errs...)
}

func (v *Live) acquire() *generation {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.cur.refs++
	return v.cur
}

func (v *Live) release(g *generation) {
	v.mu.Lock()
	defer v.mu.Unlock()
	g.refs--
	if g.retired && g.refs == 0 {
		v.unmap(g)
	}
}

// retire marks g replaced and unmaps it now if no solve uses it. v.mu is
// held.
func (v *Live) retire(g *generation) {
	g.retired = true
	if g.refs == 0 {
		v.unmap(g)
	}
}

// unmap closes g, which no solve uses nor will, in the background:
// unmapping a large set takes milliseconds that neither the solve that
// released it last nor the others waiting on v.mu should wait for. v.mu
// is held.
func (v *Live) unmap(g *generation) {
	v.closing.Add(1)
	go func() {
		defer v.closing.Done()
		err := g.loaded.Close()
		v.mu.Lock()
		defer v.mu.Unlock()
		v.errs = append(v.errs, err)
	}()
}
