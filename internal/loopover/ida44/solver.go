// Package ida44 is the optimal 4×4 Loopover search: IDA* over the
// walking-distance bound of internal/loopover maxed with a pattern
// database of six, seven or eight pieces read through translates,
// transposes and inverses of the board (Solver), and that database's
// table kind (Kind). It is pure: no I/O.
package ida44

import (
	"context"
	"fmt"
	"sync"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// The 4×4 search: the board is two nibble words, cell → piece and piece →
// cell (the latter is the inverse's cells), so that a move is a few
// shifts and a pattern-database lookup a rotation, a mask, a rank and a
// table read. The walking-distance codes of the four rows and four
// columns are packed a byte each. The bound is the walking distance
// (rows + columns, parity-rounded) maxed with the pattern database over
// image slots: bit 5 of a slot is the transposed board, bit 4 the
// inverse, bits 0..3 the translate (Solver.images).

// succ44 lists the moves allowed after a move (16: at the root) that
// ended a run of 1 or 2 unit shifts, by the rules of the general search.
type succ44 struct {
	n    int
	m    [16]uint8
	nrun [16]uint8
}

type kid44 struct {
	cells          uint64
	codes          uint32
	m, h, run, par uint8
}

// imageOrder is the slots consulted, in the order tried: 8 translates of
// the board and 8 of its transpose. Measured on random states: forward
// slots prune more per read than inverse ones (a forward slot's value
// moves by at most one per move, so most need no read, see dfs44); with
// 16+16 translates nodes drop by a quarter but the time does not, and
// with fewer than 6+6 it rises. With the seven-piece table, total reads
// are flat from 4+4 translates (1.50 M nodes, 22.2 M reads on the 200
// benchmark states) to 12+12 (0.69 M nodes, 24.1 M reads); 8+8 has 0.85 M
// nodes and 22.2 M reads.
//
// The eight-piece pattern (rows 0 and 1) is its own translate along the
// rows (the relabelled pattern is the same pieces, and the value is a
// distance, which symmetries keep), so it has four distinct translates,
// one per pair of adjacent rows, and four of the transpose; each bounds
// every seven-piece slot of its rows from above.
func imageOrder(k int) []uint8 {
	if k == 8 {
		// Solver.images: {0,0} is slot 0, {2,0} 3, {1,0} 10, {3,0} 14.
		// The inverse's slots too: on the 200 benchmark states they cut
		// nodes from 1,100 to 704 per state and table reads from 6.8 M to
		// 4.9 M (batches of two), CPU time by about a tenth.
		var o []uint8
		for _, inv := range []uint8{0, 16} {
			for _, t := range []uint8{0, 3, 10, 14} {
				o = append(o, t|inv, t|inv|32)
			}
		}
		return o
	}
	var o []uint8
	for t := uint8(0); t < 8; t++ {
		o = append(o, t, t|32)
	}
	return o
}

// maxSlots bounds the image slots in use; slotVals holds a value per slot
// in use, in order.
const maxSlots = 32

type slotVals [maxSlots]uint8

// Solver is optimal IDA* for the 4×4 board: the walking-distance bound
// maxed with a pattern database over translates and transposes of the
// pattern (pdb.go), on a board packed into nibble words (dfs.go).
// NewWith takes a six-, seven- or eight-piece table built before
// (`solverd tables build loopover-4x4-pdbK`, mapped); New builds
// the six-piece one itself on Prepare or the first Solve or Heuristic
// (under a second, 2.9 MB kept), so a process that never solves 4×4 never
// builds it. Safe for concurrent use.
type Solver struct {
	// wd is the general walking-distance solver of 4×4, whose tables,
	// root, parity rule and move codes this one shares.
	wd       *loopover.Solver
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
	loopover.Work
	s     *Solver
	pdb   *pdbTable
	buf   *buf44
	rootV slotVals
}

// New builds the 4×4 walking-distance tables and move lists
// (milliseconds); the pattern database waits for Prepare or first use.
func New() (*Solver, error) { return newSolver(imageOrder(6), 6) }

// newSolver consults the image slots of order of a k-piece pattern
// database (the tests widen it).
func newSolver(order []uint8, k int) (*Solver, error) {
	if len(order) > maxSlots {
		return nil, fmt.Errorf("loopover 4x4: %d image slots, at most %d", len(order), maxSlots)
	}
	wd, err := loopover.NewWDSolver(4, 4)
	if err != nil {
		return nil, err
	}
	s := &Solver{wd: wd, order: order, k: k}
	s.bufs.New = func() any { return new(buf44) }
	for last := 0; last <= 16; last++ {
		for run := 0; run < 3; run++ {
			sl := &s.succ[last*3+run]
			for m := 0; m < 16; m++ {
				ax, ln, dr := wd.Move(uint8(m))
				lax, lln, ldr := wd.Move(uint8(min(last, 15)))
				nrun := 1
				if last < 16 && ax == lax {
					if ln < lln {
						continue
					}
					if ln == lln {
						if dr != ldr {
							continue
						}
						nrun = run + 1
					}
				}
				if nrun > wd.MaxRun(ax, dr) {
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

// NewWith is New over a pattern database built before
// (buildPDB44Payload's, e.g. a mapped table file, which must outlive the
// solver and is never written): no table is built at run time.
func NewWith(payload []byte) (*Solver, error) {
	k := 0
	for _, n := range []int{6, 7, 8} {
		if len(payload) == placements(n)/2 {
			k = n
		}
	}
	if k == 0 {
		return nil, fmt.Errorf("loopover 4x4 pattern database: %d bytes, want %d (six pieces), %d (seven) or %d (eight)", len(payload), pdbPlacements/2, pdb7Placements/2, pdb8Placements/2)
	}
	s, err := newSolver(imageOrder(k), k)
	if err != nil {
		return nil, err
	}
	s.pdbOnce.Do(func() { s.pdb = &pdbTable{nib: payload, k: k} })
	return s, nil
}

// Prepare builds the pattern database now rather than on the first Solve
// or Heuristic. Optional.
func (s *Solver) Prepare() { s.table() }

// table is the pattern database, built on first use.
func (s *Solver) table() *pdbTable {
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
func (s *Solver) Name() string { return fmt.Sprintf("ida*(loopover-wd+pdb%d)", s.k) }

// Moves converts a path of move codes to puzzle moves.
func (s *Solver) Moves(path []uint8) []puzzle.Move { return s.wd.Moves(path) }
