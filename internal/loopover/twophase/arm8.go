package twophase

import (
	"context"
	"errors"
	"fmt"

	"github.com/tessera-solver/tessera/internal/bfs"
	"github.com/tessera-solver/tessera/internal/nibble"
	"github.com/tessera-solver/tessera/internal/perm"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// arm8 is the eight-piece phase-2 pattern database: the cells of the six
// arm pieces (D E I J N O) and of the two pieces of the first free row's
// corner (S T, cells 18 and 19) under the eight phase-2 shifts, by BFS
// from the goal. The index is the 8-of-16 partial permutation rank of the
// pieces' region numbers (16!/8! entries, 4 bits each: 260 MB).
//
// The block's eight symmetries about its centre map the region and the
// phase-2 shifts onto themselves, so the table is read four ways, each
// bounding a different eight pieces: the arm with either free row's
// corner, and the arm's transpose (the six pieces under the block) with
// either free column's corner; and each of those on the inverse board.
const arm8Entries = 16 * 15 * 14 * 13 * 12 * 11 * 10 * 9

// arm8Depth caps the BFS: 35.5 M placements lie more than 15 moves
// deep, which 4-bit entries cannot hold, so the BFS stops after level 13
// and the entries past it hold 14, meaning "14 or more" (still a bound;
// a phase-2 search rarely has 14 moves left).
const arm8Depth = 13

// arm8Cells are the goal cells of the pattern pieces in index order.
var arm8Cells = [8]uint8{3, 4, 8, 9, 13, 14, 18, 19}

var arm8Perm = perm.NewPartial(16, 8)

// arm8Sym are the lookups of the eight-piece table: pmap takes a pattern
// piece to the piece read in its place and cmap a cell to the cell read
// (a symmetry σ: pmap = σ⁻¹, cmap = σ), one per distinct set of pieces read.
var arm8Sym = func() (l [4]struct{ pmap, cmap [cells]uint8 }) {
	n := 0
	var seen []uint32
	for _, m := range Orientations {
		var s [cells]uint8
		for x := 0; x < cells; x++ {
			r, c := x/side-1, x%side-1
			s[x] = uint8((1+m[0]*r+m[1]*c+2*side)%side*side + (1+m[2]*r+m[3]*c+2*side)%side)
		}
		var inv [cells]uint8
		for x, y := range s {
			inv[y] = uint8(x)
		}
		var set uint32
		for _, g := range arm8Cells {
			set |= 1 << inv[g]
		}
		dup := false
		for _, v := range seen {
			dup = dup || v == set
		}
		if dup {
			continue
		}
		seen = append(seen, set)
		l[n].pmap, l[n].cmap = inv, s
		n++
	}
	if n != len(l) {
		panic(fmt.Sprintf("twophase: %d distinct eight-piece lookups, want %d", n, len(l)))
	}
	return
}()

// arm8Index is the index of the pattern pieces' cells given by
// where[piece] (pos2, or the board itself for the inverse) read through
// lookup k.
func arm8Index(where *board, k int) uint64 {
	sy := &arm8Sym[k]
	var used uint32
	var r uint64
	for i, g := range arm8Cells {
		x := regionIdx[sy.cmap[where[sy.pmap[g]]]]
		r += uint64(perm.Digit(used, x)) * arm8Perm.Mul(i)
		used |= 1 << x
	}
	return r
}

// The eight-piece table file's identity: 4-bit entries as phase 1's.
const (
	arm8Encoding  = "u4"
	arm8Pattern   = "arm DEIJNO+ST, capped at 14"
	arm8Generator = 1
)

// arm8Counts is the golden depth histogram of the eight-piece table: the
// BFS's levels 0 to 13, then the entries left at 14.
var arm8Counts = []int64{1, 6, 34, 180, 896, 4254, 19259, 83443, 343520, 1328955, 4759916, 15457133, 44109399, 104100933}

// buildArm8 builds the eight-piece phase-2 table with internal/bfs's
// builder on workers goroutines, stopping after level maxDepth: the
// payload in the file layout (entry i in the low nibble of byte i/2 for
// even i) and the depth histogram. It holds the 260 MB packed table (the
// payload is a view of it).
func buildArm8(ctx context.Context, maxDepth, workers int, progress func(done, total uint64)) ([]byte, []int64, error) {
	var g [8]uint8
	for i, c := range arm8Cells {
		g[i] = regionIdx[c]
	}
	tb, err := bfs.Build(ctx, bfs.Spec{Size: arm8Entries, Goals: []uint64{arm8Perm.Rank(g[:])}, Workers: workers,
		MaxDepth: maxDepth, Progress: progress}, func() bfs.Walker { return &arm8Walker{} })
	if err != nil {
		return nil, nil, fmt.Errorf("eight-piece phase-2 table: %w", err)
	}
	return nibble.Payload(tb.Packed, arm8Entries), tb.Counts, nil
}

type arm8Walker struct{ p, q [8]uint8 }

func (w *arm8Walker) next(m int) uint64 {
	t := &p2Region[m]
	for i, r := range w.p {
		w.q[i] = t[r]
	}
	return arm8Perm.Rank(w.q[:])
}

func (w *arm8Walker) Expand(idx uint64, lv *bfs.Level) {
	arm8Perm.Unrank(idx, w.p[:])
	for m := range p2Region {
		lv.Reach(w.next(m))
	}
}

func (w *arm8Walker) Touches(idx uint64, lv *bfs.Level) bool {
	arm8Perm.Unrank(idx, w.p[:])
	for m := range p2Region {
		if lv.InFrontier(w.next(m)) {
			return true
		}
	}
	return false
}

// ErrArm8Table marks a refused eight-piece phase-2 payload (with
// puzzle.ErrMalformed).
var ErrArm8Table = errors.New("bad eight-piece phase-2 table")

// checkArm8 refuses a payload of the wrong size or without 0 at the goal.
func checkArm8(p []byte) error {
	if uint64(len(p)) != (arm8Entries+1)/2 {
		return fmt.Errorf("loopover 5x5 two-phase: eight-piece phase-2 table has %d bytes, want %d: %w: %w", len(p), (arm8Entries+1)/2, ErrArm8Table, puzzle.ErrMalformed)
	}
	g := goalBoard
	if i := arm8Index(&g, 0); nibble.At(p, i) != 0 {
		return fmt.Errorf("loopover 5x5 two-phase: eight-piece phase-2 table does not hold 0 at the goal: %w: %w", ErrArm8Table, puzzle.ErrMalformed)
	}
	return nil
}
