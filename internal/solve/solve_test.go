package solve

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/swap"
	"github.com/tessera-solver/tessera/tables"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// builtin is a Solver over the algorithms that need no table file.
var builtin = New(NewRegistry(Builtin()...))

func spec(t *testing.T, s string) puzzle.Spec {
	t.Helper()
	sp, err := puzzle.ParseSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// Every solved answer replays, and its length is the exact distance: a
// plain BFS written here over the puzzle's own move set, independent of
// the solvers (the small sliding and Loopover boards are answered from
// fulltable's tables, so those cannot be the oracle).
func TestSolvedAnswersAreOptimalAndReplay(t *testing.T) {
	s := builtin
	rng := rand.New(rand.NewPCG(1, 2))
	// states: how many reach the goal (half the arrangements where parity
	// divides them), so the oracle is checked as well.
	for _, c := range []struct {
		name   string
		states int
	}{
		{"sliding:3x3", 181440}, {"sliding:2x4", 20160}, {"sliding:3x2", 360}, {"loopover:2x2", 24},
		{"loopover:3x3", 181440}, {"loopover:2x4", 40320}, {"swap:4x4", 12870}, {"swap:3x5", 6435},
	} {
		name := c.name
		sp := spec(t, name)
		dist := bfs(t, sp)
		if len(dist) != c.states {
			t.Fatalf("%s: BFS reaches %d states, want %d", name, len(dist), c.states)
		}
		for range 50 {
			st := puzzle.Random(sp, rng)
			r := s.Solve(context.Background(), st, Options{})
			if r.Status != result.StatusSolved || !r.Optimal || r.LowerBound != r.Length || r.Solver == "" {
				t.Fatalf("%s %s: %+v", name, st, r)
			}
			if err := puzzle.Verify(st, r.Moves); err != nil {
				t.Fatalf("%s %s: %v", name, st, err)
			}
			if d, ok := dist[string(st.Cells)]; !ok || d != r.Length {
				t.Fatalf("%s %s: length %d, BFS %d (reached %v)", name, st, r.Length, d, ok)
			}
		}
	}
}

// bfs is the distance to Goal(sp) of every state that reaches it (the
// standard goal; swap boards with Goal's number of ones, as Random draws),
// by breadth-first search from the goal over puzzle.LegalMoves: every
// move is undone by another, so distance from the goal is distance to it.
func bfs(t *testing.T, sp puzzle.Spec) map[string]int {
	t.Helper()
	goal := puzzle.Goal(sp)
	dist := map[string]int{string(goal.Cells): 0}
	for level, d := []puzzle.State{goal}, 0; len(level) > 0; d++ {
		var next []puzzle.State
		for _, st := range level {
			for _, m := range puzzle.LegalMoves(st) {
				c := st.Clone()
				if err := c.Apply(m); err != nil {
					t.Fatalf("%s %s: legal move %v: %v", sp, st, m, err)
				}
				if _, seen := dist[string(c.Cells)]; !seen {
					dist[string(c.Cells)] = d + 1
					next = append(next, c)
				}
			}
		}
		level = next
	}
	return dist
}

func TestSlidingIDA(t *testing.T) {
	sp := spec(t, "15")
	// Korf #1 after conversion to the blank-last goal: 57 moves, proved.
	st, err := puzzle.Parse(sp, "13 6 8 12/15 14 0 10/11 7 4 5/9 1 3 2")
	if err != nil {
		t.Fatal(err)
	}
	r := builtin.SolveText(context.Background(), sp, st.String(), Options{})
	if r.Status != result.StatusSolved || r.Length != 57 || !r.Optimal || r.Nodes == 0 || !strings.HasPrefix(r.Solver, "ida*") {
		t.Fatalf("%+v", r)
	}
	f := builtin.SolveText(context.Background(), sp, st.String(), Options{Mode: result.ModeFast})
	if f.Status != result.StatusSolved || f.Optimal || f.Length < 57 || f.LowerBound > 57 {
		t.Fatalf("fast: %+v", f)
	}
	if err := puzzle.Verify(st, f.Moves); err != nil {
		t.Fatal(err)
	}
}

// A budget that runs out is a result with a proved lower bound, never an
// answer; a cancelled context is the same.
func TestBudgetExceeded(t *testing.T) {
	sp := spec(t, "15")
	const korf1 = "13 6 8 12/15 14 0 10/11 7 4 5/9 1 3 2"
	for name, tc := range map[string]struct {
		ctx context.Context
		opt Options
	}{
		"nodes":     {context.Background(), Options{Budget: search.Budget{MaxNodes: 5000}}},
		"timeout":   {context.Background(), Options{Budget: search.Budget{Timeout: time.Microsecond}}},
		"cancelled": {cancelled(), Options{}},
	} {
		r := builtin.SolveText(tc.ctx, sp, korf1, tc.opt)
		if r.Status != result.StatusBudgetExceeded || r.Moves != "" || r.Length != 0 || r.Optimal || r.LowerBound > 57 {
			t.Errorf("%s: %+v", name, r)
		}
		if !strings.Contains(r.Error, "at least") {
			t.Errorf("%s: reason %q does not give the bound", name, r.Error)
		}
	}
	r := builtin.SolveText(context.Background(), sp, korf1, Options{Budget: search.Budget{MaxNodes: 5000}})
	if r.LowerBound < 41 || r.Nodes < 5000 {
		t.Errorf("lower bound %d after %d nodes: the first iteration alone proves 41", r.LowerBound, r.Nodes)
	}
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestRejected(t *testing.T) {
	for _, tc := range []struct {
		spec, state string
		status      result.Status
		reason      string
	}{
		{"8", "1 2 3/4 5 6/8 7 0", result.StatusUnsolvable, "inversions"},
		{"15", "1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 0", result.StatusUnsolvable, "blank row"},
		{"loopover:3x3", "2 1 3/4 5 6/7 8 9", result.StatusUnsolvable, "odd permutation"},
		{"8", "1 2 3/4 5 6/7 8 8", result.StatusInvalid, "8"},
		{"8", "1 2 3/4 5 6", result.StatusInvalid, "row"},
		{"swap:2x2", "12/00", result.StatusInvalid, "2"},
		{"8", "", result.StatusInvalid, ""},
	} {
		r := builtin.SolveText(context.Background(), spec(t, tc.spec), tc.state, Options{})
		if r.Status != tc.status || r.Error == "" || !strings.Contains(r.Error, tc.reason) || r.State != tc.state {
			t.Errorf("%s %q: %+v", tc.spec, tc.state, r)
		}
	}
}

// Every Loopover board from 2×2 to 8×8 gets a replayed answer (Solve
// replays before it reports solved): optimal where an optimal solver
// covers the board, constructive otherwise, never refused for its size.
func TestLoopoverEverySize(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for r := puzzle.MinSide; r <= puzzle.MaxSide; r++ {
		for c := puzzle.MinSide; c <= puzzle.MaxSide; c++ {
			sp := puzzle.Spec{Kind: puzzle.Loopover, Rows: r, Cols: c}
			_, e1 := loopover.WDSize(r, c)
			_, e2 := loopover.WDSize(c, r)
			var noSearch error = errors.New("constructive")
			if e1 == nil && e2 == nil || r == 5 && c == 5 {
				noSearch = nil
			}
			st := puzzle.Random(sp, rng)
			if noSearch == nil && sp.Cells() > 10 {
				// Short walks keep the optimal searches of boards without a
				// table file quick in the test (5×5 random states take hours).
				st = puzzle.RandomWalk(sp, rng, 8)
			}
			res := builtin.Solve(context.Background(), st, Options{})
			if res.Status != result.StatusSolved {
				t.Fatalf("%s %s: %+v", sp, st, res)
			}
			wantOptimal := sp.Cells() <= 10 || noSearch == nil
			if res.Optimal != wantOptimal && !(res.Optimal && res.Length == res.LowerBound) {
				t.Errorf("%s: optimal %v (solver %s), want %v", sp, res.Optimal, res.Solver, wantOptimal)
			}
			if res.LowerBound > res.Length {
				t.Errorf("%s: lower bound %d above the answer's %d moves", sp, res.LowerBound, res.Length)
			}
		}
	}
}

// 5×5 in fast mode is the two-phase solver (over in-memory bounds here):
// a random state in about 300 ms, replayed, with a proved bound below it.
func TestLoopover5x5Fast(t *testing.T) {
	sp := spec(t, "loopover:5x5")
	st := puzzle.Random(sp, rand.New(rand.NewPCG(25, 25)))
	r := builtin.Solve(context.Background(), st, Options{Mode: result.ModeFast})
	if r.Status != result.StatusSolved || !strings.HasPrefix(r.Solver, "two-phase") || r.LowerBound < 10 || r.Length < r.LowerBound || r.Length > 60 {
		t.Fatalf("%+v", r)
	}
}

// A 4×4 optimal solve that runs out of nodes reports the bound it proved;
// in fast mode the same budget still yields a (constructive) answer.
func TestLoopoverBudget(t *testing.T) {
	sp := spec(t, "loopover:4x4")
	state := puzzle.Random(sp, rand.New(rand.NewPCG(16, 16))).String()
	r := builtin.SolveText(context.Background(), sp, state, Options{Budget: search.Budget{MaxNodes: 100}})
	if r.Status != result.StatusBudgetExceeded || r.LowerBound == 0 || r.Moves != "" {
		t.Fatalf("optimal under 100 nodes: %+v", r)
	}
	f := builtin.SolveText(context.Background(), sp, state, Options{Mode: result.ModeFast, Budget: search.Budget{MaxNodes: 100}})
	if f.Status != result.StatusSolved || f.Optimal || f.LowerBound < r.LowerBound || f.Solver != "loopover-construct" {
		t.Fatalf("fast under 100 nodes: %+v", f)
	}
}

func TestSwapGoal(t *testing.T) {
	sp := spec(t, "swap:3x3")
	st, _ := puzzle.Parse(sp, "100/000/001")
	g, _ := puzzle.Parse(sp, "000/110/000")
	r := builtin.Solve(context.Background(), st, Options{Goal: &g})
	if r.Status != result.StatusSolved || r.Length != 3 {
		t.Fatalf("%+v", r)
	}
	if err := puzzle.VerifyTo(st, r.Moves, g); err != nil {
		t.Fatal(err)
	}
	bad, _ := puzzle.Parse(sp, "000/111/000")
	if r := builtin.Solve(context.Background(), st, Options{Goal: &bad}); r.Status != result.StatusInvalid {
		t.Errorf("goal with 3 ones: %+v", r)
	}
}

// The swap cap refuses a move list too long to hand out, reporting its
// exact length as the bound.
func TestSwapMoveCap(t *testing.T) {
	sp := puzzle.Spec{Kind: puzzle.Swap, Rows: 300, Cols: 300}
	c := make([]uint8, sp.Cells())
	for i := range c[len(c)/2:] { // the ones last: every one travels far
		c[len(c)/2+i] = 1
	}
	r := builtin.Solve(context.Background(), puzzle.State{Spec: sp, Cells: c}, Options{})
	if r.Status != result.StatusBudgetExceeded || r.LowerBound <= swap.MaxMoves || r.Moves != "" {
		t.Fatalf("%+v", r)
	}
}

// A state built by hand (not parsed) is still checked before any search:
// IDA* on an unsolvable board would never end.
func TestSolveChecksUnparsedStates(t *testing.T) {
	sp := spec(t, "15")
	g := puzzle.Goal(sp)
	g.Cells[0], g.Cells[1] = g.Cells[1], g.Cells[0]
	if r := builtin.Solve(context.Background(), g, Options{}); r.Status != result.StatusUnsolvable {
		t.Errorf("%+v", r)
	}
	bad := puzzle.State{Spec: sp, Cells: []uint8{1, 2, 3}}
	if r := builtin.Solve(context.Background(), bad, Options{}); r.Status != result.StatusInvalid {
		t.Errorf("%+v", r)
	}
}

// TestLoadTables: "auto" finds nothing in an empty directory and says
// what to build; a named missing set is an error naming its build
// command; once built, 15-puzzles are solved over the pattern databases
// with the same optimal length as walking distance gives.
func TestLoadTables(t *testing.T) {
	dir := t.TempDir()
	l, err := Tables(dir, "auto", false)
	if err != nil || len(l.Sets) != 0 || len(l.Notices) == 0 || !strings.Contains(l.Notices[0].Text, "solverd tables build 15-pdb-78") {
		t.Fatalf("auto on empty dir: %+v, %v", l, err)
	}
	if _, err := Tables(dir, "15-pdb-555", false); err == nil || !strings.Contains(err.Error(), "solverd tables build 15-pdb-555") {
		t.Fatalf("missing named set: %v", err)
	}
	if _, err := Tables(dir, "15-pdb-nope", false); err == nil {
		t.Fatal("unknown set accepted")
	}
	set, _ := catalog.LookupSet("15-pdb-555")
	for _, tb := range set.Tables {
		if _, _, err := catalog.Build(context.Background(), dir, tb, nil); err != nil {
			t.Fatal(err)
		}
	}
	l, err = Tables(dir, "auto", false)
	if err != nil || len(l.Sets) != 1 || l.Sets[0] != "15-pdb-555" {
		t.Fatalf("auto: %+v, %v", l, err)
	}
	s := New(l.Registry())
	// Tables are mapped on the first request they serve, not at start.
	if r := s.SolveText(context.Background(), spec(t, "8"), "1 2 3/4 5 6/7 0 8", Options{}); r.Status != result.StatusSolved || len(l.closers) != 0 {
		t.Fatalf("an 8-puzzle mapped the 15-puzzle tables (%d mapped): %+v", len(l.closers), r)
	}
	sp := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	text := "13 6 8 12/15 14 0 10/11 7 4 5/9 1 3 2" // Korf #1, 57 moves
	r := s.SolveText(context.Background(), sp, text, Options{})
	if r.Status != result.StatusSolved || r.Length != 57 || !r.Optimal || !strings.HasPrefix(r.Solver, "ida*(pdb") || len(l.closers) != 1 {
		t.Fatalf("with tables (%d mapped): %+v", len(l.closers), r)
	}
	// Threads split the search; the answer is as short.
	if r2 := s.SolveText(context.Background(), sp, text, Options{Threads: 2}); r2.Status != result.StatusSolved || r2.Length != 57 || !r2.Optimal {
		t.Fatalf("two threads: %+v", r2)
	}
	// Fast mode over the tables: the anytime weights reach plain IDA*
	// within the window on this instance, so the answer is optimal.
	f := s.SolveText(context.Background(), sp, text, Options{Mode: result.ModeFast})
	if f.Status != result.StatusSolved || f.Length != 57 || !f.Optimal {
		t.Fatalf("fast with tables: %+v", f)
	}
	// Under a tiny node budget only the heaviest weight's answer fits.
	f = s.SolveText(context.Background(), sp, text, Options{Mode: result.ModeFast, Budget: search.Budget{MaxNodes: 2000}})
	if f.Status == result.StatusSolved && (f.Length < 57 || f.Optimal && f.Length != 57) {
		t.Fatalf("fast under budget: %+v", f)
	}
	if err := l.Close(); err != nil || len(l.closers) != 0 {
		t.Fatalf("Close left %d tables mapped (%v)", len(l.closers), err)
	}
	wd := builtin.SolveText(context.Background(), sp, text, Options{})
	if wd.Length != r.Length || strings.HasPrefix(wd.Solver, "ida*(pdb") {
		t.Fatalf("without tables: %+v", wd)
	}
}

// A set in use whose optional table is missing (a directory built before
// the 5×5 phase-2 file existed) still loads, with a notice naming the
// command that builds the missing file; once it is built the notice goes.
func TestOptionalTableNotice(t *testing.T) {
	dir := t.TempDir()
	set, _ := catalog.LookupSet("loopover-5x5-p1")
	if _, _, err := tables.Write(dir, set.Tables[0].Meta, make([]byte, (set.Tables[0].Meta.Entries+1)/2)); err != nil {
		t.Fatal(err)
	}
	noticed := func(l *Loaded) bool {
		return slices.ContainsFunc(l.Notices, func(n Notice) bool {
			return strings.Contains(n.Text, "solverd tables build loopover-5x5-p2")
		})
	}
	l, err := Tables(dir, "auto", false)
	if err != nil || !slices.Contains(l.Sets, set.Name) || !noticed(l) {
		t.Fatalf("phase-1 table alone: %+v, %v", l, err)
	}
	if _, _, err := catalog.Build(context.Background(), dir, set.Tables[1], nil); err != nil {
		t.Fatal(err)
	}
	if l, err = Tables(dir, set.Name, false); err != nil || noticed(l) {
		t.Fatalf("both tables: %+v, %v", l, err)
	}
}

// TestLoopoverFullTable builds the 3x4 Loopover distance table (about a
// minute, 240 MB: run with TESSERA_BFS_BIG=1), loads it like solverd does,
// and answers 3x4 and, transposed, 4x3 boards from it with the lengths
// the walking-distance search proves.
func TestLoopoverFullTable(t *testing.T) {
	if os.Getenv("TESSERA_BFS_BIG") == "" || testing.Short() {
		t.Skip("set TESSERA_BFS_BIG=1 to build the 3x4 Loopover table")
	}
	dir := t.TempDir()
	set, _ := catalog.LookupSet("loopover-3x4-bfs")
	if _, _, err := catalog.Build(context.Background(), dir, set.Tables[0], nil); err != nil {
		t.Fatal(err)
	}
	l, err := Tables(dir, "auto", false)
	s := New(l.Registry())
	if err != nil || !slices.Contains(l.Sets, "loopover-3x4-bfs") {
		t.Fatalf("auto: %+v, %v", l, err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sp := range []puzzle.Spec{{Kind: puzzle.Loopover, Rows: 3, Cols: 4}, {Kind: puzzle.Loopover, Rows: 4, Cols: 3}} {
		for i := 0; i < 50; i++ {
			st := puzzle.RandomWalk(sp, rng, 10)
			r := s.Solve(context.Background(), st, Options{})
			ida := builtin.Solve(context.Background(), st, Options{})
			if r.Status != result.StatusSolved || !r.Optimal || r.Solver != "bfs-table" || r.Length != ida.Length || !ida.Optimal {
				t.Fatalf("%s %s: table %+v, search %+v", sp, st, r, ida)
			}
		}
		if r := s.Solve(context.Background(), puzzle.Random(sp, rng), Options{}); r.Status != result.StatusSolved || r.Length > 14 {
			t.Fatalf("%s random: %+v (God's number of 3x4 is 14)", sp, r)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if r := builtin.Solve(context.Background(), puzzle.RandomWalk(puzzle.Spec{Kind: puzzle.Loopover, Rows: 3, Cols: 4}, rng, 6), Options{}); r.Solver == "bfs-table" {
		t.Fatal("a 12-cell board answered from a table without one loaded")
	}
}
