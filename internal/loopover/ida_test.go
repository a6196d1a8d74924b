package loopover

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
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

func spec(r, c int) puzzle.Spec { return puzzle.Spec{Kind: puzzle.Loopover, Rows: r, Cols: c} }

// The seed text's 4×4 table: 10147 double cosets by distance.
func TestWD4x4Seed(t *testing.T) {
	wd, err := NewWD(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{1, 2, 46, 540, 2781, 4350, 1886, 492, 49}
	if !slices.Equal(wd.Counts, want) || wd.Patterns != 10147 {
		t.Errorf("4x4 WD patterns %d by distance %v, want 10147 %v", wd.Patterns, wd.Counts, want)
	}
	if wd.Codes != 35 {
		t.Errorf("4x4 line multisets %d, want 35", wd.Codes)
	}
}

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

// On every board small enough for a full BFS table: the bound never
// exceeds the distance on any state, and IDA* finds exactly the distance.
func TestOptimalAgainstBFS(t *testing.T) {
	for _, c := range []struct {
		sp  puzzle.Spec
		emd bool
	}{{spec(2, 2), false}, {spec(2, 3), false}, {spec(3, 2), false}, {spec(3, 3), false}, {spec(2, 4), false}, {spec(4, 2), false},
		{spec(2, 5), false}, {spec(5, 2), false}, {spec(2, 3), true}, {spec(3, 3), true}, {spec(2, 4), true}, {spec(5, 2), true}} {
		sp := c.sp
		tb, err := fulltable.Build(sp)
		if err != nil {
			t.Fatal(err)
		}
		s, err := newSolver(sp.Rows, sp.Cols, c.emd)
		if err != nil {
			t.Fatal(err)
		}
		cells := make([]uint8, sp.Cells())
		step := max(tb.Size()/40000, 1)
		exact := 0
		for idx := uint64(0); idx < tb.Size(); idx += step {
			tb.Cells(idx, cells)
			d, _ := tb.Distance(cells)
			h, err := s.Heuristic(cells)
			if err != nil {
				t.Fatal(err)
			}
			if h > d {
				t.Fatalf("%s %v: bound %d > distance %d", sp, cells, h, d)
			}
			if h == d {
				exact++
			}
		}
		rng := rand.New(rand.NewPCG(1, uint64(sp.Cells())))
		for i := 0; i < 300; i++ {
			tb.Cells(rng.Uint64N(tb.Size()), cells)
			d, _ := tb.Distance(cells)
			out, err := s.Solve(cells, search.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Path) != d || !out.Optimal || out.LowerBound != d {
				t.Fatalf("%s %v: IDA* %d moves (optimal %v, bound %d), BFS distance %d", sp, cells, len(out.Path), out.Optimal, out.LowerBound, d)
			}
			coretest.Replay(t, puzzle.State{Spec: sp, Cells: cells}, s.Moves(out.Path))
		}
		t.Logf("%s (%s): %d states checked, bound exact on %d", sp, s.Name(), (tb.Size()+step-1)/step, exact)
	}
}

// ball is every 4×4 state within depth of the goal, by BFS over whole
// boards (the puzzle's own moves, independent of the solver's move codes).
func ball(sp puzzle.Spec, depth int) map[string]int {
	goal := puzzle.State{Spec: sp, Cells: make([]uint8, sp.Cells())}
	for i := range goal.Cells {
		goal.Cells[i] = uint8(i + 1)
	}
	dist := map[string]int{string(goal.Cells): 0}
	frontier := [][]uint8{goal.Cells}
	moves := puzzle.LegalMoves(goal)
	for d := 1; d <= depth; d++ {
		var next [][]uint8
		for _, c := range frontier {
			for _, m := range moves {
				st := puzzle.State{Spec: sp, Cells: slices.Clone(c)}
				if err := st.Apply(m); err != nil {
					panic(err)
				}
				if _, ok := dist[string(st.Cells)]; !ok {
					dist[string(st.Cells)] = d
					next = append(next, st.Cells)
				}
			}
		}
		frontier = next
	}
	return dist
}

// 4×4: every state within 5 moves of the goal (and a sample at depth 6)
// gets an answer of exactly its BFS depth, and the bound never exceeds it.
func TestOptimal4x4Ball(t *testing.T) {
	depth := 6
	if testing.Short() {
		depth = 5
	}
	sp := spec(4, 4)
	dist := ball(sp, depth)
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
func checkBall(t *testing.T, s *Solver44, dist map[string]int, depth int) {
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
	s, err := NewSolver44()
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

func TestMalformed(t *testing.T) {
	s, err := NewOptimal(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]uint8{{1, 2, 3}, {1, 1, 3, 4, 5, 6, 7, 8, 9}, {0, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 5, 6, 7, 8, 10}} {
		if _, err := s.Solve(c, search.Budget{}); !errors.Is(err, puzzle.ErrMalformed) {
			t.Errorf("%v: %v, want malformed", c, err)
		}
	}
	if _, err := NewOptimal(8, 8); err == nil {
		t.Error("8x8 walking-distance tables should be refused as too large")
	}
}

// Transposing a board and its answer back gives an answer for the
// original; the cheap bound never exceeds the BFS distance.
func TestTransposeAndShiftBound(t *testing.T) {
	for _, sp := range []puzzle.Spec{spec(2, 3), spec(3, 3), spec(2, 4), spec(4, 2), spec(2, 5)} {
		tb, err := fulltable.Build(sp)
		if err != nil {
			t.Fatal(err)
		}
		tsp := spec(sp.Cols, sp.Rows)
		tt, err := fulltable.Build(tsp)
		if err != nil {
			t.Fatal(err)
		}
		cells := make([]uint8, sp.Cells())
		step := max(tb.Size()/20000, 1)
		for idx := uint64(0); idx < tb.Size(); idx += step {
			tb.Cells(idx, cells)
			d, _ := tb.Distance(cells)
			if h := ShiftBound(sp.Rows, sp.Cols, cells); h > d {
				t.Fatalf("%s %v: shift bound %d > distance %d", sp, cells, h, d)
			}
			tc := fulltable.Transpose(sp.Rows, sp.Cols, cells)
			ms, err := tt.Solve(tc)
			if err != nil {
				t.Fatalf("%s %v transposed to %v: %v", sp, cells, tc, err)
			}
			if len(ms) != d {
				t.Fatalf("%s %v: transposed distance %d, want %d", sp, cells, len(ms), d)
			}
			coretest.Replay(t, puzzle.State{Spec: sp, Cells: cells}, fulltable.TransposeMoves(ms))
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
// binary: about 8 s of CPU), and one over the eight-piece table when
// `solverd tables build loopover-4x4-pdb8` has written it to
// $TESSERA_SOLVER_TABLES_DIR (1.5 min of CPU to build: never here).
func solvers44(t *testing.T) []*Solver44 {
	t.Helper()
	s6, err := NewSolver44()
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		return []*Solver44{s6}
	}
	pdb7Once.Do(func() { pdb7, _, _ = buildPDB44Payload(context.Background(), 7, nil) })
	s7, err := NewSolver44With(pdb7)
	if err != nil {
		t.Fatal(err)
	}
	if s8 := mapped44(t, 8); s8 != nil {
		return []*Solver44{s6, s7, s8}
	}
	return []*Solver44{s6, s7}
}

// slotValue reads image slot j (any of the 64) of a board.
func slotValue(s *Solver44, j uint8, cells []uint8) int {
	b, err := s.wd.root(cells)
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

func checkSlots(t *testing.T, s *Solver44) {
	sp := spec(4, 4)
	// A solver whose slots include the inverse ones, for their tables.
	var order []uint8
	for j := uint8(0); j < 16; j++ {
		order = append(order, j, j|16)
	}
	all, err := newSolver44(order, s.k)
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
			for _, s := range []*Solver44{s, all} {
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

func checkAgainstWD(t *testing.T, s *Solver44) {
	sp := spec(4, 4)
	wd, err := NewWDSolver(4, 4)
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

// 5×5 optimal with the displacement bound: walks of a few moves are solved
// within a modest budget to at most their length, and the bound is
// admissible on the 4×4 ball (where walking distance is the norm).
func TestEMDSearch(t *testing.T) {
	s, err := NewOptimal(5, 5)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "ida*(loopover-emd)" {
		t.Fatalf("5x5 uses %s", s.Name())
	}
	sp := spec(5, 5)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 20; i++ {
		st, ms := puzzle.RandomWalkMoves(sp, rng, 9)
		out, err := s.Solve(st.Cells, search.Budget{MaxNodes: 50_000_000})
		if err != nil {
			t.Fatalf("%v: %v", st.Cells, err)
		}
		if len(out.Path) > len(ms) {
			t.Fatalf("%v: %d moves, the walk had %d", st.Cells, len(out.Path), len(ms))
		}
		coretest.Replay(t, puzzle.State{Spec: sp, Cells: st.Cells}, s.Moves(out.Path))
	}
	e4, err := newSolver(4, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	for k, d := range ball(spec(4, 4), 5) {
		if h, _ := e4.Heuristic([]uint8(k)); h > d {
			t.Fatalf("%v: displacement bound %d > distance %d", []uint8(k), h, d)
		}
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
