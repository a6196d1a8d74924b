package loopover

import (
	"math/rand/v2"
	"slices"
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

// 5×5 optimal with the displacement bound: walks of a few moves are solved
// within a modest budget to at most their length, and the bound is
// admissible on the 4×4 ball (where walking distance is the norm).
func TestEMDSearch(t *testing.T) {
	s, err := NewEMDSolver(5, 5)
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
	for k, d := range coretest.Ball(spec(4, 4), 5) {
		if h, _ := e4.Heuristic([]uint8(k)); h > d {
			t.Fatalf("%v: displacement bound %d > distance %d", []uint8(k), h, d)
		}
	}
}
