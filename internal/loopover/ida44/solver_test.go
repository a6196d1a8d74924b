package ida44

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

func spec(r, c int) puzzle.Spec { return puzzle.Spec{Kind: puzzle.Loopover, Rows: r, Cols: c} }

func randomState(sp puzzle.Spec, rng *rand.Rand) []uint8 {
	n := sp.Cells()
	c := make([]uint8, n)
	for i := range c {
		c[i] = uint8(i + 1)
	}
	rng.Shuffle(n, func(i, j int) { c[i], c[j] = c[j], c[i] })
	if sp.Rows%2 == 1 && sp.Cols%2 == 1 && puzzle.Solvable(puzzle.State{Spec: sp, Cells: c}) != nil {
		c[0], c[1] = c[1], c[0]
	}
	return c
}

// 4×4: every state within 5 moves of the goal (and a sample at depth 6)
// gets an answer of exactly its BFS depth, and the bound never exceeds it.
func TestOptimal4x4Ball(t *testing.T) {
	depth := 6
	if testing.Short() {
		depth = 5
	}
	sp := spec(4, 4)
	dist := coretest.Ball(sp, depth)
	counts := make([]int, depth+1)
	for _, d := range dist {
		counts[d]++
	}
	t.Logf("4x4 states by depth: %v", counts)
	for _, s := range solvers44(t) {
		t.Run(fmt.Sprintf("pdb%d", s.k), func(t *testing.T) { checkBall(t, s, dist, depth) })
	}
}

// checkBall checks s on every state of dist, the ball of depth.
func checkBall(t *testing.T, s *Solver, dist map[string]int, depth int) {
	sp := spec(4, 4)
	n := 0
	for k, d := range dist {
		cells := []uint8(k)
		h, err := s.Heuristic(cells)
		if err != nil {
			t.Fatal(err)
		}
		if h > d {
			t.Fatalf("%v: bound %d > distance %d", cells, h, d)
		}
		if d < depth || n%50 == 0 {
			out, err := s.Solve(cells, search.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Path) != d {
				t.Fatalf("%v: IDA* %d moves, BFS depth %d", cells, len(out.Path), d)
			}
			coretest.Replay(t, puzzle.State{Spec: sp, Cells: cells}, s.Moves(out.Path))
		}
		n++
	}
}

// Random 4×4 states: answers replay, and the node budget is honoured with
// the proved lower bound.
func TestRandom4x4(t *testing.T) {
	sp := spec(4, 4)
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	n := 20
	if testing.Short() {
		n = 5
	}
	for i := 0; i < n; i++ {
		cells := randomState(sp, rng)
		out, err := s.Solve(cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := s.Heuristic(cells)
		if len(out.Path) < h || (len(out.Path)-h)%2 != 0 {
			t.Fatalf("%v: %d moves, bound %d (same parity expected)", cells, len(out.Path), h)
		}
		coretest.Replay(t, puzzle.State{Spec: sp, Cells: cells}, s.Moves(out.Path))
		if out.Nodes > 10 {
			_, err := s.Solve(cells, search.Budget{MaxNodes: out.Nodes / 2})
			if !errors.Is(err, search.ErrBudgetExceeded) {
				t.Fatalf("%v: half the nodes gave %v, want budget exceeded", cells, err)
			}
		}
	}
}

// The 4×4 pattern databases' depth histograms (golden: a changed index or
// move table shows here first). Only the goal placement is at 0, so every
// placement was reached (the table starts zeroed) and the rank is onto.
func TestPDB44Table(t *testing.T) {
	golden := map[int][]int64{
		6: {1, 12, 108, 900, 6879, 46686, 266818, 1121713, 2526948, 1668608, 126825, 262},
		7: {1, 12, 112, 1021, 8795, 69743, 500125, 3029117, 13105629, 27460042, 13079928, 402975, 100},
		8: {1, 12, 114, 1084, 9931, 86036, 703024, 5240586, 32884017, 142199734, 258379100, 78645932, 768545, 284},
	}
	for _, s := range solvers44(t) {
		if counts := pdbCounts(s.table().nib); !slices.Equal(counts, golden[s.k]) {
			t.Errorf("%d pieces: placements by distance %#v, want %#v", s.k, counts, golden[s.k])
		}
	}
	if _, _, err := buildPDB44Payload(context.Background(), 9, nil); err == nil {
		t.Error("a nine-piece table should be refused")
	}
}

var (
	pdb7Once sync.Once
	pdb7     []byte
)

// solvers44 is the 4×4 solver with the six-piece table it builds itself
// and, unless -short, one over the seven-piece table (built once per test
// binary), and one over the eight-piece table when `solverd tables build
// loopover-4x4-pdb8` has written it to $TESSERA_SOLVER_TABLES_DIR (too
// slow to build here).
func solvers44(t *testing.T) []*Solver {
	t.Helper()
	s6, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		return []*Solver{s6}
	}
	pdb7Once.Do(func() { pdb7, _, _ = buildPDB44Payload(context.Background(), 7, nil) })
	s7, err := NewWith(pdb7)
	if err != nil {
		t.Fatal(err)
	}
	if s8 := mapped44(t, 8); s8 != nil {
		return []*Solver{s6, s7, s8}
	}
	return []*Solver{s6, s7}
}

// slotValue reads image slot j (any of the 64) of a board.
func slotValue(s *Solver, j uint8, cells []uint8) int {
	b, err := s.wd.Root(cells)
	if err != nil {
		panic(err)
	}
	cw, pw := words44(&b)
	return int(s.table().get(s.images[j&15].index(slotWords(pw, cw)[j>>4&3])))
}

// Every image slot is the table's value on the board relabelled by its
// symmetry: a translate, the transpose (transpose.go's Transpose) and the
// inverse, each checked against a plain construction; a move changes a
// forward slot's value by at most one, and leaves every slot in use that
// the search deems untouched (pieceImg, lineImg) unchanged. The search's
// skipping rests on these; admissibility then follows from the ball.
func TestPDB44Slots(t *testing.T) {
	for _, s := range solvers44(t) {
		t.Run(fmt.Sprintf("pdb%d", s.k), func(t *testing.T) { checkSlots(t, s) })
	}
}

func checkSlots(t *testing.T, s *Solver) {
	sp := spec(4, 4)
	// A solver whose slots include the inverse ones, for their tables.
	var order []uint8
	for j := uint8(0); j < 16; j++ {
		order = append(order, j, j|16)
	}
	all, err := newSolver(order, s.k)
	if err != nil {
		t.Fatal(err)
	}
	tb := s.table()
	all.pdbOnce.Do(func() { all.pdb = tb }) // the same table: no second build
	rng := rand.New(rand.NewPCG(44, 6))
	for n := 0; n < 200; n++ {
		cells := randomState(sp, rng)
		var pos [16]int
		for c, v := range cells {
			pos[v-1] = c
		}
		inv := make([]uint8, 16)
		for p := range inv {
			inv[p] = uint8(pos[p] + 1)
		}
		tr := fulltable.Transpose(4, 4, cells)
		for j := uint8(0); j < 16; j++ {
			// The translate reads piece p+u at cell c and files it as
			// piece p at cell c−u.
			var u [2]int
			for d := 0; d < 16; d++ {
				if newImage(d/4, d%4, s.k) == s.images[j] {
					u = [2]int{d / 4, d % 4}
				}
			}
			var x uint32
			for i := 0; i < s.k; i++ {
				p := i
				q := (int(p)/4+u[0])%4*4 + (int(p)%4+u[1])%4
				c := pos[q]
				x |= uint32((c/4-u[0]+4)%4*4+(c%4-u[1]+4)%4) << (4 * i)
			}
			if got, want := slotValue(s, j, cells), int(tb.get(x)); got != want {
				t.Fatalf("%v slot %d (translate %v): %d, want %d", cells, j, u, got, want)
			}
			if got, want := slotValue(s, j|16, cells), slotValue(s, j, inv); got != want {
				t.Fatalf("%v inverse slot %d: %d, want %d", cells, j, got, want)
			}
			if got, want := slotValue(s, j|32, cells), slotValue(s, j, tr); got != want {
				t.Fatalf("%v transposed slot %d: %d, want %d", cells, j, got, want)
			}
			// Two rows are their own translate along the rows: the
			// solver reads one slot per pair of rows (imageOrder).
			if s.k == 8 {
				var same uint8
				for r, k := range s.images {
					if k == newImage(u[0], 0, 8) {
						same = uint8(r)
					}
				}
				if got, want := slotValue(s, j, cells), slotValue(s, same, cells); got != want {
					t.Fatalf("%v slot %d (translate %v): %d, translate %v: %d", cells, j, u, got, []int{u[0], 0}, want)
				}
			}
		}
		for m := 0; m < 16; m++ {
			st := puzzle.State{Spec: sp, Cells: slices.Clone(cells)}
			if err := st.Apply(s.Moves([]uint8{uint8(m)})[0]); err != nil {
				t.Fatal(err)
			}
			var moved uint64
			for c := 0; c < 16; c++ {
				if st.Cells[c] != cells[c] {
					moved |= 1 << (4 * (cells[c] - 1))
				}
			}
			for _, s := range []*Solver{s, all} {
				touched := s.lineImg[m>>1] | s.piecesAff(moved)
				for si, j := range s.order {
					a, b := slotValue(s, j, cells), slotValue(s, j, st.Cells)
					if j&16 == 0 && (b > a+1 || b < a-1) {
						t.Fatalf("%v move %d: forward slot %d went %d → %d", cells, m, j, a, b)
					}
					if touched>>si&1 == 0 && a != b {
						t.Fatalf("%v move %d: untouched slot %d went %d → %d", cells, m, j, a, b)
					}
				}
			}
		}
	}
}

// 4×4 answers with the pattern database are as long as those of the
// walking-distance search alone (an independent optimal search), on
// random states far beyond the ball.
func TestPDB44AgainstWD(t *testing.T) {
	for _, s := range solvers44(t) {
		t.Run(fmt.Sprintf("pdb%d", s.k), func(t *testing.T) { checkAgainstWD(t, s) })
	}
}

func checkAgainstWD(t *testing.T, s *Solver) {
	sp := spec(4, 4)
	wd, err := loopover.NewWDSolver(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(6, 44))
	n := 8
	if testing.Short() {
		n = 2
	}
	for i := 0; i < n; i++ {
		cells := randomState(sp, rng)
		a, err := s.Solve(cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := wd.Solve(cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Path) != len(b.Path) {
			t.Fatalf("%v: %d moves with the pattern database, %d without", cells, len(a.Path), len(b.Path))
		}
		coretest.Replay(t, puzzle.State{Spec: sp, Cells: cells}, s.Moves(a.Path))
	}
}

// pdbCounts is the depth histogram of a table's payload, counted from
// its entries (not the builder's own count).
func pdbCounts(nib []byte) (counts []int64) {
	for r := range 2 * len(nib) {
		d := int(nib[r>>1] >> (r & 1 * 4) & 15)
		for len(counts) <= d {
			counts = append(counts, 0)
		}
		counts[d]++
	}
	return counts
}
