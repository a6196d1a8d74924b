package twophase

import (
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/nibble"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// bfsBoards is every board within depth moves of the goal using moves
// (codes), with its exact distance.
func bfsBoards(moves []int, depth int) map[board]int {
	dist := map[board]int{goalBoard: 0}
	frontier := []board{goalBoard}
	for d := 1; d <= depth; d++ {
		var next []board
		for _, b := range frontier {
			for _, m := range moves {
				c := b
				c.apply(m)
				if _, ok := dist[c]; !ok {
					dist[c] = d
					next = append(next, c)
				}
			}
		}
		frontier = next
	}
	return dist
}

func inverse(b *board) (pos board) {
	for x, p := range b {
		pos[p] = uint8(x)
	}
	return pos
}

// phase2Bound is the bound phase 2 searches with at b.
func phase2Bound(s *Solver, b *board) int {
	w := &work{Solver: s, b2: *b, pos2: inverse(b)}
	t := s.wd2
	h := max(t.h(&w.b2, &wd2Views[0])+t.h(&w.b2, &wd2Views[1]), t.h(&w.pos2, &wd2Views[0])+t.h(&w.pos2, &wd2Views[1]))
	for k := 0; k < 4; k++ {
		h = max(h, int(w.armLookup(k)))
	}
	return h
}

// TestPhase2Admissible checks every phase-2 bound against the exact
// distance of every board within 7 phase-2 moves of the goal.
func TestPhase2Admissible(t *testing.T) {
	s := fallback(t)
	depth := 7
	if testing.Short() {
		depth = 5
	}
	dist := bfsBoards(p2Moves[:], depth)
	tight := 0
	for b, d := range dist {
		h := phase2Bound(s, &b)
		if h > d {
			t.Fatalf("phase-2 bound %d > distance %d at %v", h, d, b)
		}
		if h == d {
			tight++
		}
	}
	t.Logf("%d boards, bound exact on %d", len(dist), tight)
}

// TestPhase1Admissible checks the phase-1 bounds (fallback; and the big
// table when present) against the exact distance of every board within 4
// moves of the goal: solving the block takes at most that many.
func TestPhase1Admissible(t *testing.T) {
	var all [nMove]int
	for m := range all {
		all[m] = m
	}
	dist := bfsBoards(all[:], 4)
	t.Logf("%d boards", len(dist))
	check := func(s *Solver) {
		for b, d := range dist {
			pos := blockPos(&b)
			if h := s.h1(&pos); h > d {
				t.Fatalf("phase-1 bound %d > distance %d at %v", h, d, b)
			}
		}
	}
	check(fallback(t))
	t.Run("table", func(t *testing.T) {
		s, err := New(openPhase1(t))
		if err != nil {
			t.Fatal(err)
		}
		check(s)
		// Near the goal the file must hold the naive BFS's distances.
		near, _ := naiveCounts(6, 4)
		for p, d := range near {
			i := rank(p[:])
			if got := int(s.p1[i>>1] >> (4 * (i & 1)) & 15); got != d {
				t.Fatalf("table entry %v = %d, BFS %d", p, got, d)
			}
		}
	})
}

// TestVariants solves random boards through each of the 50 variants
// alone and replays the answer on the input: every translation and the
// inverse map moves back correctly.
func TestVariants(t *testing.T) {
	s := fallback(t)
	rng := rand.New(rand.NewPCG(7, 7))
	for _, st := range randomStates(2) {
		var in board
		for i, x := range st.Cells {
			in[i] = x - 1
		}
		for _, v := range allVariants() {
			if rng.IntN(3) != 0 && !(v.dr == 0 && v.dc == 0) {
				continue // a third of them, and every untranslated one
			}
			w := &work{Solver: s, needOne: true, best: maxPath, v: v, vb: v.transform(&in), check: checkEvery}
			pos := blockPos(&w.vb)
			for d := s.h1(&pos); w.best == maxPath; d++ {
				w.phase1(d)
			}
			coretest.Replay(t, st, v.moves(w.bestPath))
		}
	}
}

func TestConcurrent(t *testing.T) {
	s := fallback(t)
	states := randomStates(4)
	done := make(chan error)
	for _, st := range states {
		go func() {
			ms, _, err := s.Solve(st.Cells, search.Budget{MaxNodes: 20000})
			if err == nil {
				c := st.Clone()
				if err = c.ApplyMoves(ms); err == nil && !c.IsGoal() {
					t.Errorf("%v: answer does not solve", st.Cells)
				}
			}
			done <- err
		}()
	}
	for range states {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// Every lookup reads its pieces at the pattern's goal cells when the
// block is solved, and its cell map is a symmetry of the board: it
// carries each shift to a shift, so a table distance read through it is
// a distance of the board too (admissible).
func TestLookSymmetries(t *testing.T) {
	check := func(name string, looks []lookup, k int) {
		for j, lk := range looks {
			for i := range k {
				if got := lk.cmap[blockGoal[lk.sel[i]]]; got != PatternCells[i] {
					t.Fatalf("%s lookup %d: piece %d's goal maps to %d, pattern cell %d", name, j, i, got, PatternCells[i])
				}
			}
			for m := range nMove {
				found := false
				for m2 := 0; m2 < nMove && !found; m2++ {
					found = true
					for x := range cells {
						if lk.cmap[dest[m][x]] != dest[m2][lk.cmap[x]] {
							found = false
							break
						}
					}
				}
				if !found {
					t.Fatalf("%s lookup %d: shift %d maps to no shift", name, j, m)
				}
			}
		}
	}
	check("six-piece", p1Look[:], 6)
	check("seven-piece", p7Look[:], 7)
	// The eight lookups of seven pieces leave out eight different pairs.
	missing := map[uint16]bool{}
	for _, lk := range p7Look {
		m := uint16(1<<9 - 1)
		for _, i := range lk.sel {
			m &^= 1 << i
		}
		missing[m] = true
	}
	if len(missing) != len(p7Look) {
		t.Fatalf("seven-piece lookups leave out %d distinct pairs, want %d", len(missing), len(p7Look))
	}
}

// solver7 is the solver over capped7's table: the seven-piece lookups,
// exact near the goal.
func solver7(t *testing.T) *Solver {
	if testing.Short() {
		t.Skip("the capped seven-piece table holds 1.2 GB")
	}
	tab, _ := capped7()
	s, err := New(nibble.Payload(tab, phase7Entries))
	if err != nil {
		t.Fatal(err)
	}
	if s.p1k != 7 || s.nl != len(p7Look) || s.Name() != "two-phase(loopover-5x5-p7)" {
		t.Fatalf("seven-piece table read as %d pieces, %d lookups, %s", s.p1k, s.nl, s.Name())
	}
	return s
}

// Over the seven-piece table: every phase-1 bound is at most the exact
// distance within 4 moves of the goal, and scrambles are solved (their
// answers replayed). The capped table is weak far from the goal, so the
// scrambles are short walks.
func TestPhase7Solver(t *testing.T) {
	s := solver7(t)
	var all [nMove]int
	for m := range all {
		all[m] = m
	}
	for b, d := range bfsBoards(all[:], 4) {
		pos := blockPos(&b)
		if h := s.h1(&pos); h > d {
			t.Fatalf("phase-1 bound %d > distance %d at %v", h, d, b)
		}
	}
	rng := rand.New(rand.NewPCG(7, 77))
	for range 4 {
		st := puzzle.RandomWalk(spec55, rng, 8)
		ms, lower, err := s.Solve(st.Cells, search.Budget{MaxNodes: 50000})
		if err != nil {
			t.Fatal(err)
		}
		coretest.Replay(t, st, ms)
		if lower > len(ms) {
			t.Fatalf("lower bound %d above the answer's %d moves", lower, len(ms))
		}
	}
}
