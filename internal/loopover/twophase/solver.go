package twophase

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"time"
	"unsafe"

	"github.com/tessera-solver/tessera/internal/nibble"
	"github.com/tessera-solver/tessera/internal/perm"
	"github.com/tessera-solver/tessera/internal/prefetch"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// Solver is the two-phase 5×5 solver. It is immutable and safe for
// concurrent use; its phase-1 table may be a read-only mapping.
type Solver struct {
	p1  []byte // phase-1 pattern database of the first p1k pattern pieces
	p1k int
	// looks are the nl ways the block is read through the table, and sel
	// the block pieces each reads.
	looks [maxLook]lookup
	nl    int
	sel   [maxLook]uint16
	// useWD adds the phase-1 walking distance to the phase-1 bounds: the
	// fallback's 4-piece table is weak without it.
	useWD bool
	big   bool // p1 is the caller's six-piece table
	wd1   *wd1
	wd2   *wd2
	arm   *pdb2
	arm8  []byte // the eight-piece phase-2 table, or nil
}

// New wraps a phase-1 payload and builds the phase-2 bounds in memory
// (NewWith without a phase-2 table).
func New(phase1 []byte) (*Solver, error) { return NewWith(phase1, nil) }

// NewWith wraps a phase-1 payload (phase1Entries 4-bit entries, or
// phase7Entries for the seven-piece table) and a phase-2 payload
// (BuildPhase2's), e.g. read-only mapped table files; they are only read. A nil phase-2 payload builds those bounds in memory: the
// arm PDB (11 MB) and the phase-2 walking distance (2 MB).
// A nil phase-1 payload selects the fallback: a four-piece phase-1 table
// (150 KB) with the phase-1 walking distance (4 MB), built here, weaker
// but free; the big table makes that walking distance useless, so it is
// built only for the fallback.
func NewWith(phase1, phase2 []byte) (*Solver, error) { return NewTables(phase1, phase2, nil) }

// NewTables is NewWith that also reads the eight-piece phase-2 table
// (buildArm8's payload) when arm8 is not nil.
func NewTables(phase1, phase2, arm8 []byte) (*Solver, error) {
	if arm8 != nil {
		if err := checkArm8(arm8); err != nil {
			return nil, err
		}
	}
	s := &Solver{arm8: arm8, p1: phase1, p1k: 6, big: phase1 != nil, nl: len(p1Look)}
	copy(s.looks[:], p1Look[:])
	if phase1 != nil {
		switch uint64(len(phase1)) {
		case (phase1Entries + 1) / 2:
		case (phase7Entries + 1) / 2:
			s.p1k, s.nl = 7, len(p7Look)
			copy(s.looks[:], p7Look[:])
		default:
			return nil, fmt.Errorf("loopover 5x5 two-phase: phase-1 table has %d bytes, want %d (six pieces) or %d (seven): %w",
				len(phase1), (phase1Entries+1)/2, (phase7Entries+1)/2, puzzle.ErrMalformed)
		}
		if g := rank(PatternCells[:s.p1k]); nibble.At(phase1, g) != 0 {
			return nil, fmt.Errorf("loopover 5x5 two-phase: phase-1 table does not hold 0 at the goal: %w", puzzle.ErrMalformed)
		}
	}
	if phase2 != nil {
		var err error
		if s.arm, s.wd2, err = phase2From(phase2); err != nil {
			return nil, err
		}
	}
	// What is left to build is independent: build it side by side.
	var wg sync.WaitGroup
	if s.wd2 == nil {
		wg.Go(func() { s.wd2 = newWD2() })
		wg.Go(func() { s.arm = newPDB2() })
	}
	if phase1 == nil {
		// Without the big table: the four-piece one (0.3 M entries,
		// milliseconds) with the walking distance.
		wg.Go(func() { s.wd1 = newWD1() })
		s.p1, s.p1k, s.useWD = smallPhase1(), 4, true
	}
	wg.Wait()
	s.sel = selMask(s.looks[:s.nl], s.p1k)
	return s, nil
}

// HasTable reports whether the solver uses a big phase-1 table.
func (s *Solver) HasTable() bool { return s.big }

// Name describes the solver, for a Result's solver field: its phase-1
// table, and "+arm8" when it reads the eight-piece phase-2 table (whose
// answers and default differ).
func (s *Solver) Name() string {
	n := "two-phase(p1-4+wd"
	if s.big && s.p1k == 7 {
		n = "two-phase(loopover-5x5-p7"
	} else if s.big {
		n = "two-phase(loopover-5x5-p1"
	}
	if s.arm8 != nil {
		n += "+arm8"
	}
	return n + ")"
}

// maxLook is the most phase-1 table lookups a solver makes; hs arrays
// hold them and, at wdSlot and wdSlot+1, the walking distance's parts.
const (
	maxLook = 8
	wdSlot  = maxLook
)

// lookup maps the block pieces onto a table's pattern: sel[i] is the block
// piece (index into A B C F G H K L M) read as pattern piece i, and cmap
// the cell it is read at.
type lookup struct {
	sel  [7]uint8
	cmap [cells]uint8
}

// p1Look are the four lookups of the six-piece table: the pieces of block
// rows 0–1 as they are, of rows 1–2 moved up a row (translation), and of
// block columns 0–1 and 1–2 transposed (and moved left), each mapped onto
// the table's pattern, A B C F G H. Both symmetries map shifts to shifts,
// so every lookup is admissible; the bound is their maximum.
var p1Look = func() (l [4]lookup) {
	l[0].sel = [7]uint8{0, 1, 2, 3, 4, 5}
	l[1].sel = [7]uint8{3, 4, 5, 6, 7, 8}
	l[2].sel = [7]uint8{0, 3, 6, 1, 4, 7}
	l[3].sel = [7]uint8{1, 4, 7, 2, 5, 8}
	for x := 0; x < cells; x++ {
		r, c := x/side, x%side
		l[0].cmap[x] = uint8(x)
		l[1].cmap[x] = uint8((r+side-1)%side*side + c)
		l[2].cmap[x] = uint8(c*side + r)
		l[3].cmap[x] = uint8((c+side-1)%side*side + r)
	}
	return l
}()

// p7Look are the eight lookups of the seven-piece table (A B C F G H K)
// through the block's eight symmetries about its centre G, the rotations
// and mirrors of the torus (each maps shifts to shifts): each reads a
// different seven of the nine block pieces.
var p7Look = func() (l [8]lookup) {
	// (r, c) relative to G ↦ (m0·r + m1·c, m2·r + m3·c), modulo the side.
	sigma := func(m [4]int, x int) int {
		r, c := x/side-1, x%side-1
		return (1+m[0]*r+m[1]*c+2*side)%side*side + (1+m[2]*r+m[3]*c+2*side)%side
	}
	for k, m := range Orientations {
		inv := map[int]int{}
		for x := 0; x < cells; x++ {
			y := sigma(m, x)
			l[k].cmap[x] = uint8(y)
			inv[y] = x
		}
		for i, p := range PatternCells {
			g := uint8(inv[int(p)])
			for j, b := range blockGoal {
				if b == g {
					l[k].sel[i] = uint8(j)
				}
			}
		}
	}
	return l
}()

// blockGoal are the goal cells of the block pieces A B C F G H K L M.
var blockGoal = [9]uint8{0, 1, 2, 5, 6, 7, 10, 11, 12}

// h1 is the phase-1 bound of the block pieces at pos.
func (s *Solver) h1(pos *[9]uint8) int {
	var h uint8
	for k := range s.nl {
		h = max(h, s.look1(k, pos))
	}
	if s.useWD {
		h = max(h, s.look1(wdSlot, pos)+s.look1(wdSlot+1, pos))
	}
	return int(h)
}

// DefaultNodes is the search of a budget the request did not choose (and
// of one without any limit) where the eight-piece phase-2 table is
// loaded: the solver is anytime, and unbounded it would search for hours.
// About DefaultTime of one core of the reference machine over the
// seven-piece phase-1 table (docs/BENCHMARKS.md, "The eight-piece phase-2
// table"); counted in nodes so that the answer does not depend on the
// host's load.
const DefaultNodes = 250_000

// DefaultNodesWithoutArm8 is the default without the eight-piece table.
// Phase 2 then takes about a third of the nodes, each about half a
// phase-1 node's CPU, where with the table it takes a twentieth: the same
// CPU buys a fifth more nodes.
const DefaultNodesWithoutArm8 = 300_000

// Default is the solver's default node budget: DefaultNodes, or
// DefaultNodesWithoutArm8 without the eight-piece table.
func (s *Solver) Default() int64 {
	if s.arm8 == nil {
		return DefaultNodesWithoutArm8
	}
	return DefaultNodes
}

// DefaultTime is the window both defaults were calibrated to; the time
// ceiling of a default budget is search.FastCeiling, about thirty of it.
const DefaultTime = 300 * time.Millisecond

// checkEvery is how many nodes pass between clock checks: a quarter of a
// millisecond of search, so that answers come close to the deadline.
const checkEvery = 1 << 8

// maxPath bounds any path the search builds.
const maxPath = 96

type work struct {
	*Solver
	bud      search.Budget
	nodes    int64
	check    int64
	stopped  bool
	needOne  bool // no answer yet: the budget does not apply
	v        variant
	vb       board // the variant's board
	path     [maxPath]uint8
	p1len    int
	solved1  bool // the phase-1 iteration reached a solved block
	best     int
	bestPath []uint8
	bestVar  variant
	// phase 2
	b2, pos2 board
	bound2   int
	len2     int // length of the answer phase 2 found
	tried    tried
}

func (w *work) expired() bool {
	if w.needOne {
		w.check = w.nodes + checkEvery
		return false
	}
	if w.stopped || w.bud.Exhausted(w.nodes) {
		w.stopped = true
		return true
	}
	w.check = w.bud.NextCheck(w.nodes, checkEvery)
	return false
}

// Solve returns a short move list for a 5×5 board c (pieces 1..25, row-major),
// searching for shorter ones until the budget runs out; lower is an
// admissible lower bound on the optimal length. The first answer is found
// whatever the budget (milliseconds), so Solve never reports
// search.ErrBudgetExceeded; a budget without any limit searches
// s.Default() nodes. Errors wrap puzzle.ErrMalformed for a board
// that is not a permutation of 1..25 and puzzle.ErrUnsolvable for an odd
// permutation.
func (s *Solver) Solve(c []uint8, bud search.Budget) (moves []puzzle.Move, lower int, err error) {
	moves, lower, _, err = s.solve(c, bud)
	return moves, lower, err
}

// solve is Solve that also counts the nodes of both phases: a MaxNodes
// budget counts them all, those of the first answer included.
func (s *Solver) solve(c []uint8, bud search.Budget) (moves []puzzle.Move, lower int, nodes int64, err error) {
	moves, lower, nodes, _, err = s.solveTimed(c, bud)
	return moves, lower, nodes, err
}

// solveTimed is solve that also reports whether the clock or the context,
// not the node budget, ended the search (search.Budget.TimeLimited).
func (s *Solver) solveTimed(c []uint8, bud search.Budget) (moves []puzzle.Move, lower int, nodes int64, timed bool, err error) {
	st := puzzle.State{Spec: puzzle.Spec{Kind: puzzle.Loopover, Rows: side, Cols: side}, Cells: c}
	if err := puzzle.Solvable(st); err != nil {
		return nil, 0, 0, false, fmt.Errorf("loopover 5x5 two-phase: %w", err)
	}
	var in board
	for i, x := range c {
		in[i] = x - 1
	}
	if bud.MaxNodes <= 0 && bud.Deadline.IsZero() && bud.Ctx == nil {
		bud = bud.Fast(s.Default())
	}
	w := &work{Solver: s, bud: bud, needOne: true, best: maxPath}
	w.check = checkEvery
	vs := allVariants()
	var vb [2 * cells]board
	var lo1 [2 * cells]int // per variant: no phase-1 solution is shorter
	dmin := maxPath
	for i, v := range vs {
		vb[i] = v.transform(&in)
		p := blockPos(&vb[i])
		lo1[i] = s.h1(&p)
		lower = max(lower, lo1[i])
		dmin = min(dmin, lo1[i])
	}
	// The first answer comes from the plain board by weighted IDA* in
	// both phases (bounds count one and a half): milliseconds, whatever
	// the budget, and never a long search with the weak fallback bound.
	w.v, w.vb = vs[0], vb[0]
	for d := lo1[0] * 3 / 2; w.best == maxPath; d++ {
		w.phase1(d)
	}
	w.needOne = false
	// Then every variant, phase-1 length by length, while a phase-1
	// solution can still lead to a shorter answer.
	for d := dmin; d < w.best && !w.stopped && w.best > lower; d++ {
		for i, v := range vs {
			if lo1[i] > d || w.stopped || w.best <= lower {
				continue
			}
			w.v, w.vb = v, vb[i]
			if !w.phase1(d) && !w.stopped {
				// The optimum solves every variant's block on the way.
				lo1[i] = d + 1
				lower = max(lower, lo1[i])
			}
		}
	}
	timed = w.stopped && bud.TimeLimited(w.nodes)
	return w.bestVar.moves(w.bestPath), min(lower, w.best), w.nodes, timed, nil
}

// blockPos is the cells of the block pieces on b.
func blockPos(b *board) [9]uint8 {
	var pos [9]uint8
	var at [cells]uint8
	for x, p := range b {
		at[p] = uint8(x)
	}
	for i, g := range blockGoal {
		pos[i] = at[g]
	}
	return pos
}

// phase1 runs one IDA* iteration of bound d on the current variant,
// completing every phase-1 solution of length d by phase 2. It reports
// whether any node within the bound had the block solved.
func (w *work) phase1(d int) bool {
	pos := blockPos(&w.vb)
	w.solved1 = pos == blockGoal
	var hs [maxLook + 2]uint8
	var hi [maxLook]uint8
	for k := range w.nl {
		hs[k] = w.look1(k, &pos)
		hi[k] = hs[k]
	}
	hs[wdSlot], hs[wdSlot+1] = w.look1(wdSlot, &pos), w.look1(wdSlot+1, &pos)
	w.dfs1(0, d, pos, hs, hi, -1, 0)
	return w.solved1
}

// isPhase2Move reports whether m shifts a free line (rows or columns 3, 4),
// which leaves the block alone.
func isPhase2Move(m int) bool { return lineOf(m) >= 3 }

// look1 is phase-1 bound k at pos: lookup k (below nl) of the table, or
// the walking distance's vertical (k = wdSlot) or horizontal (wdSlot+1)
// part.
func (s *Solver) look1(k int, pos *[9]uint8) uint8 {
	if k >= wdSlot {
		if !s.useWD {
			return 0
		}
		return uint8(s.wd1.axis(pos, k-wdSlot))
	}
	return nibble.At(s.p1, s.index1(k, pos))
}

// index1 is the entry of the table that lookup k reads at pos.
func (s *Solver) index1(k int, pos *[9]uint8) uint64 {
	lk := &s.looks[k]
	if s.p1k == 7 {
		return index7(lk, pos)
	}
	var used uint32
	v := uint64(0)
	for i := 0; i < s.p1k; i++ {
		x := lk.cmap[pos[lk.sel[i]]]
		v = v*uint64(cells-i) + uint64(x) - uint64(bits.OnesCount32(used&(1<<x-1)))
		used |= 1 << x
	}
	return v
}

// index7 is index1 on the seven-piece table, written out (ranked one
// digit after another, it takes a third of phase 1's CPU): perm.Rank7
// with its place values constants, which the multiplications fold
// (perm.Rank7 itself, reading them from memory, costs 7 % more a node).
func index7(lk *lookup, pos *[9]uint8) uint64 {
	const (
		m6 = 1
		m5 = m6 * (cells - 6)
		m4 = m5 * (cells - 5)
		m3 = m4 * (cells - 4)
		m2 = m3 * (cells - 3)
		m1 = m2 * (cells - 2)
		m0 = m1 * (cells - 1)
	)
	x0, x1, x2, x3 := lk.cmap[pos[lk.sel[0]]], lk.cmap[pos[lk.sel[1]]], lk.cmap[pos[lk.sel[2]]], lk.cmap[pos[lk.sel[3]]]
	x4, x5, x6 := lk.cmap[pos[lk.sel[4]]], lk.cmap[pos[lk.sel[5]]], lk.cmap[pos[lk.sel[6]]]
	u0 := uint32(1) << (x0 & 31)
	u1 := u0 | 1<<(x1&31)
	u2 := u1 | 1<<(x2&31)
	u3 := u2 | 1<<(x3&31)
	u4 := u3 | 1<<(x4&31)
	u5 := u4 | 1<<(x5&31)
	return uint64(x0)*m0 + uint64(perm.Digit(u0, x1))*m1 + uint64(perm.Digit(u1, x2))*m2 + uint64(perm.Digit(u2, x3))*m3 +
		uint64(perm.Digit(u3, x4))*m4 + uint64(perm.Digit(u4, x5))*m5 + uint64(perm.Digit(u5, x6))
}

// selMask is the set of block pieces (bit i: piece i of A B C F G H K L
// M) each of the first k pieces of each lookup reads: a move that shifts
// none of them keeps its value.
func selMask(looks []lookup, k int) (t [maxLook]uint16) {
	for j := range looks {
		for _, i := range looks[j].sel[:k] {
			t[j] |= 1 << i
		}
	}
	return
}

// kid1 is a child of a phase-1 node while its bounds are decided: its
// block cells, the bounds it inherits and has read, and the lookup it
// waits for (k, at entry idx of the table; j counts the lookups decided,
// in the node's order).
type kid1 struct {
	np    [9]uint8
	nh    [maxLook + 2]uint8
	nhi   [maxLook]uint8
	m, j  uint8
	k     uint8
	moved uint16 // bit i: block piece i moved
	idx   uint64
}

// dfs1 searches phase 1 below a node at depth g of bounds hs, for
// solutions of length d.
//
// hs[0..nl) are lower bounds of the table lookups and hi their upper
// bounds (equal when looked up); hs[wdSlot] and hs[wdSlot+1] are the
// walking distances. A lookup is a BFS distance under these very shifts,
// so one shift changes it by at most one: while its upper bound stays
// clear of the search bound it cannot prune and is not looked up (a few
// percent of the lookups).
//
// Lookups are lazy, so that most pruned children cost one or two, and on
// the 1.2 GB table each is a cache miss. The children are decided side by
// side, in rounds: each round prefetches the next lookup every undecided
// child needs, then reads them, so the misses of one round overlap where
// one child after another would wait for each in turn. Which children
// survive, and the order they are searched in, are those of deciding
// each child just before searching it.
func (w *work) dfs1(g, d int, pos [9]uint8, hs [maxLook + 2]uint8, hi [maxLook]uint8, last, run int) {
	w.nodes++
	if w.nodes >= w.check && w.expired() {
		return
	}
	if g == d || w.needOne && g > 0 && pos == blockGoal {
		if pos != blockGoal {
			return
		}
		// A free-line shift last would repeat a shorter phase-1
		// solution followed by phase 2.
		if last >= 0 && isPhase2Move(last) {
			return
		}
		w.p1len = g
		w.phase2()
		return
	}
	left2 := uint8(2 * (d - g - 1)) // twice what a child's bound may be
	wt := uint8(2)
	if w.needOne {
		wt = 3
	}
	sel, nl := &w.sel, w.nl
	needOne := w.needOne
	// The largest bound first: it is the likeliest to prune.
	first := 0
	for k := 1; k < nl; k++ {
		if hs[k] > hs[first] {
			first = k
		}
	}
	// next moves kid to the next lookup that could prune it: it reports
	// +1 when that lookup must be read (its entry is then prefetched),
	// 0 when none can prune it, −1 when a bound already known prunes it.
	var pf [nMove]uintptr
	npf := 0
	next := func(kid *kid1) int {
		for ; int(kid.j) < nl; kid.j++ {
			k := int(kid.j) + first
			if k >= nl {
				k -= nl
			}
			// A lookup whose pieces stayed put is inherited; one whose
			// pieces moved is known to within one of its parent's.
			if kid.moved&sel[k] != 0 {
				kid.nh[k], kid.nhi[k] = max(kid.nh[k], 1)-1, min(kid.nhi[k]+1, 60) // 60·3 fits a byte
			}
			if kid.nhi[k]*wt <= left2 {
				continue
			}
			if kid.nh[k] != kid.nhi[k] {
				kid.k, kid.idx = uint8(k), w.index1(k, &kid.np)
				pf[npf] = uintptr(unsafe.Pointer(&w.p1[kid.idx>>1]))
				npf++
				return 1
			}
			return -1 // looked up already, and over the bound
		}
		return 0
	}
	// onLine[m>>1] is the block pieces the shifts of move m's line move
	// (m>>1 is the line: rows 0–4, then columns 0–4).
	var onLine [2 * side]uint16
	for i, x := range pos {
		onLine[rowOf[x]] |= 1 << i
		onLine[side+colOf[x]] |= 1 << i
	}
	var kids [nMove]kid1
	var wait [nMove]uint8 // the undecided children
	nk, nw := 0, 0
	for m := 0; m < nMove; m++ {
		if !canFollow(last, run, m) {
			continue
		}
		moved := onLine[m>>1]
		if moved == 0 {
			// The shift moves no block piece: only worth making as the
			// start of phase 2, which phase 2 itself does.
			continue
		}
		kid := &kids[nk]
		kid.np = pos
		dm := &dest[m]
		for b := moved; b != 0; b &= b - 1 {
			i := bits.TrailingZeros16(b) & 15
			kid.np[i%9] = dm[pos[i%9]]
		}
		if g+1 == d && kid.np != blockGoal {
			continue // a leaf must have the block solved: no lookup needed
		}
		kid.nh = hs
		if w.useWD {
			// The walking distance first (no cache misses); a row
			// shift changes only its horizontal part.
			k := wdSlot + axisOf(m) ^ 1
			kid.nh[k] = w.look1(k, &kid.np)
			if (kid.nh[wdSlot]+kid.nh[wdSlot+1])*wt > left2 {
				continue
			}
		}
		kid.nhi = hi
		kid.m, kid.j, kid.moved = uint8(m), 0, moved
		switch next(kid) {
		case -1:
			continue
		case 1:
			wait[nw] = uint8(nk)
			nw++
		}
		nk++
	}
	for nw > 0 {
		prefetch.Lines(&pf[0], npf)
		npf = 0
		n := 0
		for _, i := range wait[:nw] {
			kid := &kids[i]
			k := kid.k
			kid.nh[k] = nibble.At(w.p1, kid.idx)
			kid.nhi[k] = kid.nh[k]
			if kid.nh[k]*wt > left2 {
				kid.m = noKid
				continue
			}
			kid.j++
			switch next(kid) {
			case -1:
				kid.m = noKid
			case 1:
				wait[n] = i
				n++
			}
		}
		nw = n
	}
	for i := range kids[:nk] {
		kid := &kids[i]
		m := int(kid.m)
		if m == noKid {
			continue
		}
		if kid.np == blockGoal {
			w.solved1 = true
		}
		nrun := 1
		if m == last {
			nrun = run + 1
		}
		w.path[g] = uint8(m)
		w.dfs1(g+1, d, kid.np, kid.nh, kid.nhi, m, nrun)
		if w.stopped || w.best <= d || w.needOne != needOne {
			return // (the first answer ends the weighted search)
		}
	}
}

// rowOf and colOf are a cell's row and column.
var rowOf, colOf = func() (r, c [32]uint8) {
	for x := 0; x < cells; x++ {
		r[x], c[x] = uint8(x/side), uint8(x%side)
	}
	return
}()

// noKid marks a child pruned while the children were decided.
const noKid = 0xff

var goalBoard = func() (b board) {
	for i := range b {
		b[i] = uint8(i)
	}
	return b
}()

// smallPhase1 builds the four-piece phase-1 table (A B C F) of the
// fallback, read through the same four symmetric lookups.
func smallPhase1() []byte {
	packed, _, err := buildPDB(context.Background(), 4, -1, 1, nil)
	if err != nil {
		panic(err) // no cancellation, and the 4-piece BFS is checked by tests
	}
	out := make([]byte, (patSize(4)+1)/2)
	for i := range out {
		out[i] = byte(packed[i>>3] >> (8 * (i & 7)))
	}
	return out
}
