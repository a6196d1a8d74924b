package loopover

import (
	"context"
	"fmt"
	"sync"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// Solver44 is optimal IDA* for the 4×4 board: the walking-distance bound
// maxed with a pattern database over translates and transposes of the
// pattern (pdb44.go), on a board packed into nibble words (ida44.go).
// NewSolver44With takes a six-, seven- or eight-piece table built before
// (`solverd tables build loopover-4x4-pdbK`, mapped); NewSolver44 builds
// the six-piece one itself on Prepare or the first Solve or Heuristic
// (under a second, 2.9 MB kept), so a process that never solves 4×4 never
// builds it. Safe for concurrent use.
type Solver44 struct {
	// wd is the general walking-distance solver of 4×4, whose tables,
	// root, parity rule and move codes this one shares.
	wd       *Solver
	k        int // pieces of the pattern: 6 (built in memory), 7 or 8 (mapped)
	succ     [17 * 3]succ44
	images   [16]pdbImage
	order    []uint8    // image slots consulted, in order
	pieceImg [16]uint32 // per piece: the forward slots in use that read it
	lineImg  [8]uint32  // per line (rows, then columns): the inverse slots in use that read a cell of it

	pdbOnce sync.Once
	pdb     *pdbTable
	// bufs pools *buf44: a fresh one per solve would make many small
	// solves allocation-bound.
	bufs sync.Pool
}

// buf44 is a search's slot values per depth and kid, and the scratch of
// one node's batched reads (dfs44): ranks, their kid<<5|slot, and the
// bytes read.
type buf44 struct {
	kv [][16]slotVals
	rk [16 * maxSlots]uint32
	at [16 * maxSlots]uint16
	nb [16 * maxSlots]uint8
}

// work44 is one 4×4 search: the general search's counters and path, and
// the pattern database's per-depth values.
type work44 struct {
	work
	s     *Solver44
	pdb   *pdbTable
	buf   *buf44
	rootV slotVals
}

// NewSolver44 builds the 4×4 walking-distance tables and move lists
// (milliseconds); the pattern database waits for Prepare or first use.
func NewSolver44() (*Solver44, error) { return newSolver44(imageOrder(6), 6) }

// newSolver44 consults the image slots of order of a k-piece pattern
// database (the tests widen it).
func newSolver44(order []uint8, k int) (*Solver44, error) {
	if len(order) > maxSlots {
		return nil, fmt.Errorf("loopover 4x4: %d image slots, at most %d", len(order), maxSlots)
	}
	wd, err := NewWDSolver(4, 4)
	if err != nil {
		return nil, err
	}
	s := &Solver44{wd: wd, order: order, k: k}
	s.bufs.New = func() any { return new(buf44) }
	for last := 0; last <= 16; last++ {
		for run := 0; run < 3; run++ {
			sl := &s.succ[last*3+run]
			for m := 0; m < 16; m++ {
				ax, ln, dr := wd.axis[m], wd.line[m], wd.dir[m]
				nrun := 1
				if last < 16 && ax == wd.axis[last] {
					if ln < wd.line[last] {
						continue
					}
					if ln == wd.line[last] {
						if dr != wd.dir[last] {
							continue
						}
						nrun = run + 1
					}
				}
				if nrun > wd.maxRun[ax][dr] {
					continue
				}
				sl.m[sl.n], sl.nrun[sl.n] = uint8(m), uint8(nrun)
				sl.n++
			}
		}
	}
	// Translates in an order that prunes early: the pattern's own
	// placement, then ones that overlap it least.
	for t, d := range [16][2]int{{0, 0}, {2, 2}, {0, 2}, {2, 0}, {1, 1}, {3, 3}, {1, 3}, {3, 1}, {0, 1}, {2, 3}, {1, 0}, {3, 2}, {0, 3}, {2, 1}, {3, 0}, {1, 2}} {
		s.images[t] = newImage(d[0], d[1], k)
	}
	// What each slot in use reads, as pieces (forward) or cells (inverse)
	// of the untransposed board; bit si for the slot order[si].
	for si, j := range s.order {
		set := s.images[j&15].set
		for p := 0; p < 16; p++ {
			if set>>p&1 == 0 {
				continue
			}
			q := p
			if j&32 != 0 {
				q = p%4*4 + p/4
			}
			if j&16 == 0 {
				s.pieceImg[q] |= 1 << si
			} else {
				s.lineImg[q/4] |= 1 << si
				s.lineImg[4+q%4] |= 1 << si
			}
		}
	}
	return s, nil
}

// NewSolver44With is NewSolver44 over a pattern database built before
// (buildPDB44Payload's, e.g. a mapped table file, which must outlive the
// solver and is never written): no table is built at run time.
func NewSolver44With(payload []byte) (*Solver44, error) {
	k := 0
	for _, n := range []int{6, 7, 8} {
		if len(payload) == placements(n)/2 {
			k = n
		}
	}
	if k == 0 {
		return nil, fmt.Errorf("loopover 4x4 pattern database: %d bytes, want %d (six pieces), %d (seven) or %d (eight)", len(payload), pdbPlacements/2, pdb7Placements/2, pdb8Placements/2)
	}
	s, err := newSolver44(imageOrder(k), k)
	if err != nil {
		return nil, err
	}
	s.pdbOnce.Do(func() { s.pdb = &pdbTable{nib: payload, k: k} })
	return s, nil
}

// Prepare builds the pattern database now rather than on the first Solve
// or Heuristic. Optional.
func (s *Solver44) Prepare() { s.table() }

// table is the pattern database, built on first use.
func (s *Solver44) table() *pdbTable {
	s.pdbOnce.Do(func() {
		t, _, err := buildPDB44(context.Background(), s.k, nil)
		if err != nil {
			// The index and the moves are fixed: every placement is
			// reached (TestPDB44Table), so this is a bug, not an input.
			panic(err)
		}
		s.pdb = t
	})
	return s.pdb
}

// Name describes the heuristic, for a Result's solver field: which
// table (pdb6, pdb7, pdb8) answered matters when comparing nodes.
func (s *Solver44) Name() string { return fmt.Sprintf("ida*(loopover-wd+pdb%d)", s.k) }

// Moves converts a path of move codes to puzzle moves.
func (s *Solver44) Moves(path []uint8) []puzzle.Move { return s.wd.Moves(path) }

// Heuristic is the admissible bound the search uses for cells (1..16).
func (s *Solver44) Heuristic(cells []uint8) (int, error) {
	b, err := s.wd.root(cells)
	if err != nil {
		return 0, err
	}
	h := s.wd.hval(b.hr, b.hc, b.par)
	cw, pw := words44(&b)
	var v slotVals
	p := s.pdbBound(s.table(), cw, pw, 1<<30, &v)
	return max(h, p+(p^b.par)&1), nil
}

// Solve runs IDA* from cells (1..16 row-major) to the goal, as
// Solver.Solve does.
func (s *Solver44) Solve(cells []uint8, bud search.Budget) (search.Outcome, error) {
	return s.SolveParallel(cells, bud, 1)
}

// SolveParallel is Solve on up to workers goroutines, as
// Solver.SolveParallel splits its iterations; each worker has its own
// buffers and reads the one pattern database.
func (s *Solver44) SolveParallel(cells []uint8, bud search.Budget, workers int) (search.Outcome, error) {
	b, err := s.wd.root(cells)
	if err != nil {
		return search.Outcome{}, err
	}
	w := &work44{work: work{Solver: s.wd, b: b, gate: search.NewGate(bud), split: -1}, s: s, pdb: s.table()}
	w.buf = s.bufs.Get().(*buf44)
	defer s.bufs.Put(w.buf)
	cw, pw := words44(&b)
	p := s.pdbBound(w.pdb, cw, pw, 1<<30, &w.rootV)
	h0 := max(s.wd.hval(b.hr, b.hc, b.par), p+(p^b.par)&1)
	rc, cc := pack44(&b.rc), pack44(&b.cc)
	iter := func(w *work44) (int, bool) {
		if len(w.buf.kv) < w.bound+1 {
			w.buf.kv = make([][16]slotVals, w.bound+8)
		}
		return w.dfs44(0, cw, pw, rc, cc, b.hr, b.hc, b.par, 16, 0, &w.rootV, 1<<32-1)
	}
	fork := func(c *work) (*work44, *work) {
		x := &work44{work: *c, s: s, pdb: w.pdb, buf: &buf44{}, rootV: w.rootV}
		return x, &x.work
	}
	return search.Deepen(tree[*work44]{walker[*work44]{w, &w.work, iter}, fork}, search.Deepening{H0: h0, Workers: workers})
}
