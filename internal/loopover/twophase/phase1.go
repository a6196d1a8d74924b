package twophase

import (
	"context"
	"fmt"
	"runtime"

	"github.com/tessera-solver/tessera/internal/bfs"
	"github.com/tessera-solver/tessera/internal/nibble"
	"github.com/tessera-solver/tessera/internal/perm"
)

// phase1Entries is the number of entries of the phase-1 table: the cells
// of the six pieces of the block's top two rows, 25!/19!.
const phase1Entries = 127512000

// phase1Encoding is the phase-1 table's entry encoding: 4-bit distances,
// two to a byte, low nibble first (entry i in byte i/2).
const phase1Encoding = "u4"

// phase1Pattern names the pieces of the phase-1 table, for its file header.
const phase1Pattern = "1-3,6-8"

// phase1Generator versions the six-piece buildPhase: bump it when the index or the
// entries change meaning.
const phase1Generator = 1

// phase1Counts is the golden depth histogram of the phase-1 table (the
// seed's table of the big phase-1 solver).
var phase1Counts = []int64{1, 10, 94, 880, 7558, 58432, 402862, 2335840, 10374813, 30419907, 47958515, 30962779, 4936603, 53706}

// phase7Entries is the number of entries of the seven-piece phase-1
// table (the six pieces and K, the block's bottom-left piece): 25!/18!.
const phase7Entries = 2422728000

// phase7Pattern names the pieces of the seven-piece table.
const phase7Pattern = "1-3,6-8,11"

// phase7Generator versions the seven-piece buildPhase.
const phase7Generator = 1

// phase7Counts is the golden depth histogram of the seven-piece table.
var phase7Counts = []int64{1, 12, 121, 1190, 11085, 96313, 771602, 5542127, 33871714, 161523439, 523516288, 932489705, 657276042, 106331470, 1296781, 110}

// PatternCells are the goal cells of the phase-1 tables' pieces in index
// order: the top two rows of the 3×3 block, then its bottom-left cell
// (the first six index the six-piece table, all seven the seven-piece
// one). The optimal 5×5 search reads the seven-piece table too.
var PatternCells = [7]uint8{0, 1, 2, 5, 6, 7, 10}

// Orientations are the square's eight rotations and mirrors as matrices
// (r, c) ↦ (m0·r + m1·c, m2·r + m3·c), identity and transpose first: about
// any centre, each maps the torus's shifts to shifts, so every table is
// read through them.
var Orientations = [8][4]int{{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 0, 0, -1}, {-1, 0, 0, 1}, {-1, 0, 0, -1}, {0, 1, -1, 0}, {0, -1, 1, 0}, {0, -1, -1, 0}}

// patSize is the number of entries of the table of the first k pattern
// pieces, 25!/(25−k)!.
func patSize(k int) uint64 { return patPerm[k].Size() }

// patPerm[k] ranks the cells of the first k pattern pieces: each cell's
// rank among the cells still free, in mixed radix 25, 24, … (the phase-1
// file's index order).
var patPerm = func() (t [len(PatternCells) + 1]perm.Partial) {
	for k := 1; k < len(t); k++ {
		t[k] = perm.NewPartial(cells, k)
	}
	return t
}()

// rank indexes distinct cells p[0..k).
func rank(p []uint8) uint64 { return patPerm[len(p)].Rank(p) }

// buildPhase builds the phase-1 pattern database of k pieces (6, or 7:
// 1.2 GB, which the solver reads instead where it is present, for fewer
// phase-1 nodes and shorter answers) on every core, returning the payload
// in the file layout (see phase1Encoding) and the depth histogram; it
// holds the packed table once (the payload is a view of it).
func buildPhase(ctx context.Context, k int, progress func(done, total uint64)) ([]byte, []int64, error) {
	packed, counts, err := buildPDB(ctx, k, -1, runtime.GOMAXPROCS(0), progress)
	if err != nil {
		return nil, nil, err
	}
	return nibble.Payload(packed, patSize(k)), counts, nil
}

// buildPDB runs internal/bfs's builder from the goal over the cells of the
// first k pattern pieces under all twenty shifts, stopping after level
// maxDepth when it is not negative (the entries it has not reached then
// hold maxDepth+1, so the table is still a bound).
func buildPDB(ctx context.Context, k, maxDepth, workers int, progress func(done, total uint64)) ([]uint64, []int64, error) {
	tb, err := bfs.Build(ctx, bfs.Spec{Size: patSize(k), Goals: []uint64{rank(PatternCells[:k])},
		Workers: workers, MaxDepth: maxDepth, Progress: progress},
		func() bfs.Walker { return &pdbWalker{k: k, pp: &patPerm[k]} })
	if err != nil {
		return nil, nil, fmt.Errorf("phase-1 table: %w", err)
	}
	return tb.Packed, tb.Counts, nil
}

// pdbWalker is one build worker's scratch space.
type pdbWalker struct {
	k      int
	pp     *perm.Partial
	pb, qb [7]uint8
}

// neighbour is the index (by pp) after move m of the pieces at p, or
// false when m moves none of them.
func neighbour(pp *perm.Partial, p []uint8, m int, q []uint8) (uint64, bool) {
	moved := false
	d := &dest[m]
	for i, x := range p {
		q[i] = d[x]
		moved = moved || q[i] != x
	}
	if !moved {
		return 0, false
	}
	return pp.Rank(q), true
}

func (w *pdbWalker) Expand(idx uint64, lv *bfs.Level) {
	p, q := w.pb[:w.k], w.qb[:w.k]
	w.pp.Unrank(idx, p)
	for mv := 0; mv < nMove; mv++ {
		if n, ok := neighbour(w.pp, p, mv, q); ok {
			lv.Reach(n)
		}
	}
}

func (w *pdbWalker) Touches(idx uint64, lv *bfs.Level) bool {
	p, q := w.pb[:w.k], w.qb[:w.k]
	w.pp.Unrank(idx, p)
	for mv := 0; mv < nMove; mv++ {
		if n, ok := neighbour(w.pp, p, mv, q); ok && lv.InFrontier(n) {
			return true
		}
	}
	return false
}
