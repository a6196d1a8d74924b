package sliding_test

// Oracle tests of the sliding IDA*: every answer is replayed with
// internal/puzzle (not the searcher's own move codes) and its length is
// compared with an exact distance, from the BFS tables of internal/fulltable
// on boards of up to 10 cells and from a bidirectional breadth-first search
// on short scrambles of larger boards.

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/sliding"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// capped bounds every oracle solve, so that a broken heuristic fails the
// test instead of hanging it. The hardest state these tests solve needs
// about 0.7 M nodes (a 2x6 scramble); 3x3 boards need at most 17,353.
var capped = search.Budget{MaxNodes: 20_000_000}

func slidingSpec(rows, cols int) puzzle.Spec {
	return puzzle.Spec{Kind: puzzle.Sliding, Rows: rows, Cols: cols}
}

// Tables are built once per test binary and shared by parallel tests.
var (
	tablesMu sync.Mutex
	tables   = map[puzzle.Spec]func() (*fulltable.Table, error){}
)

func table(t testing.TB, sp puzzle.Spec) *fulltable.Table {
	t.Helper()
	tablesMu.Lock()
	f, ok := tables[sp]
	if !ok {
		f = sync.OnceValues(func() (*fulltable.Table, error) { return fulltable.Build(sp) })
		tables[sp] = f
	}
	tablesMu.Unlock()
	tb, err := f()
	if err != nil {
		t.Fatalf("fulltable.Build(%s): %v", sp, err)
	}
	return tb
}

func solver(t testing.TB, sp puzzle.Spec) *sliding.Searcher {
	t.Helper()
	s, err := sliding.NewSearcher(sp.Rows, sp.Cols)
	if err != nil {
		t.Fatalf("NewSliding(%d, %d): %v", sp.Cols, sp.Rows, err)
	}
	return s
}

// toMoves turns the searcher's move codes into puzzle moves. The codes are
// documented to equal puzzle.Dir; replaying them with puzzle.Apply is what
// checks that claim.
func toMoves(path []uint8) []puzzle.Move {
	ms := make([]puzzle.Move, len(path))
	for i, d := range path {
		ms[i] = puzzle.Move{Dir: puzzle.Dir(d)}
	}
	return ms
}

// sampleIndices returns every index below size when n ≥ size, else n
// distinct indices spread over the whole range (k·step mod size with step
// coprime to size), always including index 0. Deterministic.
func sampleIndices(size uint64, n int) []uint64 {
	if uint64(n) >= size {
		out := make([]uint64, size)
		for i := range out {
			out[i] = uint64(i)
		}
		return out
	}
	step := size/uint64(n) + 1
	for gcd(step, size) != 1 {
		step++
	}
	out := make([]uint64, n)
	for k := range out {
		out[k] = uint64(k) * step % size
	}
	return out
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// parallel runs f(i) for i in [0, n) on GOMAXPROCS goroutines; worker is the
// goroutine's number, for per-goroutine scratch space. It stops handing out
// work once stop() is true.
func parallel(n int, stop func() bool, f func(worker, i int)) {
	workers := runtime.GOMAXPROCS(0)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop() {
				i := int(next.Add(64)) - 64
				if i >= n {
					return
				}
				for j := i; j < min(i+64, n); j++ {
					f(w, j)
				}
			}
		}()
	}
	wg.Wait()
}

// failures collects errors from worker goroutines (t.Fatal may only be
// called from the test goroutine) and stops the work after a few.
type failures struct {
	t *testing.T
	n atomic.Int32
}

func (f *failures) errorf(format string, args ...any) {
	if f.n.Add(1) <= 10 {
		f.t.Errorf(format, args...)
	}
}

func (f *failures) stop() bool { return f.n.Load() >= 10 }

// eachState runs f, in parallel, on the state of tb at each index of idx
// with its distance; cells is the worker's own buffer, refilled per call.
// A state the table does not know is a failure, and f is not called.
func eachState(tb *fulltable.Table, idx []uint64, fail *failures, f func(w, i int, cells []uint8, d int)) {
	scratch := make([][]uint8, runtime.GOMAXPROCS(0))
	for w := range scratch {
		scratch[w] = make([]uint8, tb.Spec.Cells())
	}
	parallel(len(idx), fail.stop, func(w, i int) {
		cells := scratch[w]
		tb.Cells(idx[i], cells)
		d, ok := tb.Distance(cells)
		if !ok {
			fail.errorf("table index %d: Cells gives %v, which Distance rejects", idx[i], cells)
			return
		}
		f(w, i, cells, d)
	})
}

// TestOracleAllStates solves every reachable state of the small boards (a
// spread sample of 3x3, 2x4 and 4x2 in -short mode) and checks each answer
// against the BFS table: proved optimal, length = exact distance, lower
// bound = length, replays to the goal with puzzle.ApplyMoves, root
// heuristic ≤ distance. In exhaustive mode the histogram of answer lengths
// must also equal the table's depth counts (the published distribution).
func TestOracleAllStates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sp    puzzle.Spec
		short int // states checked in -short mode
	}{
		{slidingSpec(2, 3), 1 << 30},
		{slidingSpec(3, 2), 1 << 30},
		{slidingSpec(3, 3), 20000},
		{slidingSpec(2, 4), 4000},
		{slidingSpec(4, 2), 4000},
	} {
		t.Run(c.sp.String(), func(t *testing.T) {
			tb := table(t, c.sp)
			s := solver(t, c.sp)
			n := 1 << 30
			if testing.Short() {
				n = c.short
			}
			idx := sampleIndices(tb.Size(), n)
			exhaustive := uint64(len(idx)) == tb.Size()
			hist := make([][]int64, runtime.GOMAXPROCS(0))
			for w := range hist {
				hist[w] = make([]int64, len(tb.Counts)+1)
			}
			var fail failures
			fail.t = t
			eachState(tb, idx, &fail, func(w, i int, cells []uint8, d int) {
				out, err := s.Solve(cells, capped)
				switch {
				case err != nil:
					fail.errorf("%v: Solve: %v", cells, err)
				case len(out.Path) != d:
					fail.errorf("%v: %d moves, BFS distance %d", cells, len(out.Path), d)
				case !out.Optimal || out.LowerBound != d:
					fail.errorf("%v: Optimal %v LowerBound %d, want true %d", cells, out.Optimal, out.LowerBound, d)
				case out.Nodes < 1:
					fail.errorf("%v: Nodes %d", cells, out.Nodes)
				}
				if why := coretest.Check(puzzle.State{Spec: c.sp, Cells: cells}, toMoves(out.Path)); why != nil {
					fail.errorf("%v: answer %v does not replay: %s", cells, out.Path, why)
				}
				if h := s.Heuristic(cells); h > d || (d-h)%2 != 0 {
					fail.errorf("%v: Heuristic %d, distance %d (must be ≤ and of the same parity)", cells, h, d)
				}
				if i%97 == 0 { // the text path the pipeline uses
					st := puzzle.State{Spec: c.sp, Cells: slices.Clone(cells)}
					if err := puzzle.Verify(st, puzzle.FormatMoves(c.sp, toMoves(out.Path))); err != nil {
						fail.errorf("%v: puzzle.Verify: %v", cells, err)
					}
				}
				if len(out.Path) < len(hist[w]) {
					hist[w][len(out.Path)]++
				}
			})
			if t.Failed() || !exhaustive {
				return
			}
			got := make([]int64, len(tb.Counts))
			for _, h := range hist {
				for d := range got {
					got[d] += h[d]
				}
			}
			if !slices.Equal(got, tb.Counts) {
				t.Errorf("answer lengths\n got %v\nwant %v (BFS depth counts)", got, tb.Counts)
			}
		})
	}
}

// samples is how many states a case checks: full, or short with -short;
// a case with none to check is skipped.
func samples(t *testing.T, full, short int) int {
	t.Helper()
	n := full
	if testing.Short() {
		n = short
	}
	if n == 0 {
		t.Skip("skipped in -short mode")
	}
	return n
}

// sampledCase is a board checked against its BFS table on full states
// (short with -short; none: skipped).
type sampledCase struct {
	sp          puzzle.Spec
	full, short int
}

// forSampled runs f as a subtest per case, with the case's table, solver
// and number of states to check.
func forSampled(t *testing.T, cases []sampledCase, f func(t *testing.T, sp puzzle.Spec, tb *fulltable.Table, s *sliding.Searcher, n int)) {
	for _, c := range cases {
		t.Run(c.sp.String(), func(t *testing.T) {
			f(t, c.sp, table(t, c.sp), solver(t, c.sp), samples(t, c.full, c.short))
		})
	}
}

// TestOracleRandomStates solves uniformly random states (puzzle.Random,
// fixed seeds) and compares with the BFS distance: 2x4 and 4x2, and
// 2x5 / 5x2, whose 1.8 M states are too many to solve exhaustively here.
func TestOracleRandomStates(t *testing.T) {
	t.Parallel()
	forSampled(t, []sampledCase{
		{slidingSpec(2, 4), 1000, 300},
		{slidingSpec(4, 2), 1000, 300},
		{slidingSpec(2, 5), 100, 0},
		{slidingSpec(5, 2), 100, 0},
	}, func(t *testing.T, sp puzzle.Spec, tb *fulltable.Table, s *sliding.Searcher, n int) {
		rng := rand.New(rand.NewPCG(uint64(sp.Rows), uint64(sp.Cols)))
		states := make([][]uint8, n)
		for i := range states {
			states[i] = puzzle.Random(sp, rng).Cells
		}
		var fail failures
		fail.t = t
		parallel(n, fail.stop, func(_, i int) {
			cells := states[i]
			d, ok := tb.Distance(cells)
			if !ok {
				fail.errorf("puzzle.Random gave %v, which the BFS table says is unreachable", cells)
				return
			}
			out, err := s.Solve(cells, capped)
			if err != nil || len(out.Path) != d || !out.Optimal || out.LowerBound != d {
				fail.errorf("%v: %d moves optimal %v lb %d err %v; BFS distance %d", cells, len(out.Path), out.Optimal, out.LowerBound, err, d)
				return
			}
			if why := coretest.Check(puzzle.State{Spec: sp, Cells: cells}, toMoves(out.Path)); why != nil {
				fail.errorf("%v: answer does not replay: %s", cells, why)
			}
		})
	})
}

// bidiDistance is the exact distance of start to the goal by a
// bidirectional breadth-first search (independent of every table and
// heuristic), or -1 if it exceeds limit. States are strings of cells.
func bidiDistance(sp puzzle.Spec, start []uint8, limit int) int {
	goal := string(puzzle.Goal(sp).Cells)
	if string(start) == goal {
		return 0
	}
	w, n := sp.Cols, sp.Cells()
	seen := [2]map[string]struct{}{{string(start): {}}, {goal: {}}}
	front := [2][]string{{string(start)}, {goal}}
	depth := [2]int{}
	buf := make([]uint8, n)
	for depth[0]+depth[1] < limit {
		side := 0
		if len(front[1]) < len(front[0]) {
			side = 1
		}
		var next []string
		for _, c := range front[side] {
			b := strings.IndexByte(c, 0)
			for _, nb := range [4]int{b - w, b + w, b - 1, b + 1} {
				if nb < 0 || nb >= n || (nb != b-w && nb != b+w && nb/w != b/w) {
					continue
				}
				copy(buf, c)
				buf[b], buf[nb] = buf[nb], 0
				if _, ok := seen[side][string(buf)]; ok {
					continue
				}
				// Nothing met before this layer, so a meeting now is with
				// the other side's deepest layer: the total is exact.
				if _, ok := seen[1-side][string(buf)]; ok {
					return depth[0] + depth[1] + 1
				}
				k := string(buf)
				seen[side][k] = struct{}{}
				next = append(next, k)
			}
		}
		front[side] = next
		depth[side]++
	}
	return -1
}

// TestOracleShortScrambles covers boards beyond the BFS tables, and in
// particular the axes without a walking-distance table, where the searcher
// keeps Manhattan + linear conflict incrementally per move (2x6 and 6x2 on
// one axis, 5x5 on both): random-walk scrambles are solved and compared
// with a bidirectional BFS.
func TestOracleShortScrambles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sp          puzzle.Spec
		walk        int
		full, short int
		wantAxes    string // in Name(): the axis this board is here to cover
	}{
		{slidingSpec(2, 6), 44, 40, 10, "md+lc"},
		{slidingSpec(6, 2), 44, 40, 10, "md+lc"},
		{slidingSpec(5, 5), 22, 40, 10, "md+lc/md+lc"},
		{slidingSpec(3, 5), 26, 20, 0, "wd"},
		{slidingSpec(4, 4), 24, 20, 5, "wd/wd"},
	} {
		t.Run(c.sp.String(), func(t *testing.T) {
			s := solver(t, c.sp)
			if !strings.Contains(s.Name(), c.wantAxes) {
				t.Fatalf("solver %s: this case is meant to cover %s", s.Name(), c.wantAxes)
			}
			n := samples(t, c.full, c.short)
			rng := rand.New(rand.NewPCG(7, uint64(c.sp.Cells())))
			states := make([][]uint8, n)
			for i := range states {
				states[i] = puzzle.RandomWalk(c.sp, rng, c.walk).Cells
			}
			var fail failures
			fail.t = t
			parallel(n, fail.stop, func(_, i int) {
				cells := states[i]
				d := bidiDistance(c.sp, cells, c.walk)
				if d < 0 {
					fail.errorf("%v: no path within the %d-move walk that made it", cells, c.walk)
					return
				}
				if h := s.Heuristic(cells); h > d || (d-h)%2 != 0 {
					fail.errorf("%v: Heuristic %d, distance %d", cells, h, d)
				}
				out, err := s.Solve(cells, capped)
				if err != nil || len(out.Path) != d || !out.Optimal || out.LowerBound != d {
					fail.errorf("%v: %d moves optimal %v lb %d err %v; BFS distance %d", cells, len(out.Path), out.Optimal, out.LowerBound, err, d)
					return
				}
				if why := coretest.Check(puzzle.State{Spec: c.sp, Cells: cells}, toMoves(out.Path)); why != nil {
					fail.errorf("%v: answer does not replay: %s", cells, why)
				}
			})
		})
	}
}

// TestOracleWeighted checks fast mode: SolveWeighted with weight 24/16 gives
// a replaying answer, not claimed optimal, whose length d′ satisfies
// d ≤ d′ ≤ ⌊1.5·d⌋ with d′ ≡ d (mod 2); the bound is weighted IDA*'s (each
// node of an optimal path has g + 1.5·h ≤ 1.5·d with h admissible). A
// weight of 16 sixteenths or less is the optimal search.
func TestOracleWeighted(t *testing.T) {
	t.Parallel()
	forSampled(t, []sampledCase{
		{slidingSpec(3, 3), 4000, 1500},
		{slidingSpec(2, 4), 2000, 500},
		{slidingSpec(4, 2), 2000, 500},
	}, func(t *testing.T, sp puzzle.Spec, tb *fulltable.Table, s *sliding.Searcher, n int) {
		idx := sampleIndices(tb.Size(), n)
		var suboptimal atomic.Int64
		var fail failures
		fail.t = t
		eachState(tb, idx, &fail, func(_, i int, cells []uint8, d int) {
			out, err := s.SolveWeighted(cells, capped, 24)
			if err != nil {
				fail.errorf("%v: SolveWeighted: %v", cells, err)
				return
			}
			l := len(out.Path)
			if l < d || l > d*6/4 || (l-d)%2 != 0 {
				fail.errorf("%v: weighted answer has %d moves, distance %d (want %d..%d, same parity)", cells, l, d, d, d*6/4)
			}
			if d > 0 && out.Optimal {
				fail.errorf("%v: weighted answer claims to be optimal", cells)
			}
			if out.LowerBound > d {
				fail.errorf("%v: weighted LowerBound %d > distance %d", cells, out.LowerBound, d)
			}
			if why := coretest.Check(puzzle.State{Spec: sp, Cells: cells}, toMoves(out.Path)); why != nil {
				fail.errorf("%v: weighted answer does not replay: %s", cells, why)
			}
			if l > d {
				suboptimal.Add(1)
			}
			if i%50 == 0 { // weight ≤ 16 sixteenths is plain IDA*
				for _, wq := range []search.Weight{16, 4} {
					o, err := s.SolveWeighted(cells, capped, wq)
					if err != nil || len(o.Path) != d || !o.Optimal || o.LowerBound != d {
						fail.errorf("%v: SolveWeighted(weight %d): %d moves optimal %v lb %d err %v; distance %d", cells, wq, len(o.Path), o.Optimal, o.LowerBound, err, d)
					}
				}
			}
		})
		t.Logf("%d of %d weighted answers longer than optimal", suboptimal.Load(), len(idx))
	})
}

// deep3x3 is one of the two 3x3 states 31 moves from the goal (the
// maximum); the test checks that against the table.
var deep3x3 = []uint8{8, 6, 7, 2, 5, 4, 3, 0, 1}

func deepState(t *testing.T) []uint8 {
	t.Helper()
	if d, ok := table(t, slidingSpec(3, 3)).Distance(deep3x3); !ok || d != 31 {
		t.Fatalf("%v: table distance %d, %v; want 31", deep3x3, d, ok)
	}
	return slices.Clone(deep3x3)
}

// TestBudgetNodes: with too few nodes the search stops with
// ErrBudgetExceeded, no path and a lower bound in (0, d] that never
// decreases as the budget grows; with enough nodes it finds the optimum.
func TestBudgetNodes(t *testing.T) {
	t.Parallel()
	const d = 31
	cells := deepState(t)
	s := solver(t, slidingSpec(3, 3))
	full, err := s.Solve(cells, capped)
	if err != nil || len(full.Path) != d {
		t.Fatalf("unbudgeted solve: %d moves, %v", len(full.Path), err)
	}
	limits := []int64{1, 2, 10, 100, 1000, full.Nodes / 2, full.Nodes - 1}
	slices.Sort(limits)
	prev := 1
	for _, limit := range limits {
		out, err := s.Solve(cells, search.Budget{MaxNodes: limit})
		if !errors.Is(err, search.ErrBudgetExceeded) {
			t.Fatalf("MaxNodes %d (solve needs %d): err %v, want ErrBudgetExceeded", limit, full.Nodes, err)
		}
		if len(out.Path) != 0 || out.Optimal {
			t.Errorf("MaxNodes %d: budget-exceeded outcome carries path %v optimal %v", limit, out.Path, out.Optimal)
		}
		if out.LowerBound < prev || out.LowerBound > d {
			t.Errorf("MaxNodes %d: LowerBound %d, want in [%d, %d]", limit, out.LowerBound, prev, d)
		}
		if out.Nodes > limit {
			t.Errorf("MaxNodes %d: spent %d nodes", limit, out.Nodes)
		}
		prev = max(prev, out.LowerBound)
	}
	if h := s.Heuristic(cells); prev < h {
		t.Errorf("lower bound %d after %d nodes is below the root heuristic %d", prev, full.Nodes-1, h)
	}
	// The budget counts nodes: exactly what the search needs is enough.
	for _, limit := range []int64{full.Nodes, full.Nodes + 1, 2 * full.Nodes} {
		out, err := s.Solve(cells, search.Budget{MaxNodes: limit})
		if err != nil || !slices.Equal(out.Path, full.Path) || out.Nodes != full.Nodes {
			t.Errorf("MaxNodes %d (solve needs %d): %d moves, %d nodes, %v; want the unbudgeted answer", limit, full.Nodes, len(out.Path), out.Nodes, err)
		}
	}
}

// korf1 is Korf's instance #1 (published optimum 57) in this project's
// goal convention (/work/shared/data/korf100.tsv). It needs far more than
// the 2^16 nodes between the searcher's clock and context checks.
var korf1 = []uint8{13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2}

const korf1Opt = 57

// TestBudgetCancelled: a cancelled context, a past deadline, or a
// cancellation during the search stop it with ErrBudgetExceeded and a
// lower bound in (0, optimum].
func TestBudgetCancelled(t *testing.T) {
	t.Parallel()
	s4 := solver(t, slidingSpec(4, 4))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for name, b := range map[string]search.Budget{
		"cancelled context": {Ctx: cancelled},
		"past deadline":     {Deadline: time.Now().Add(-time.Second)},
	} {
		out, err := s4.Solve(korf1, b)
		if !errors.Is(err, search.ErrBudgetExceeded) {
			t.Fatalf("%s: err %v, want ErrBudgetExceeded", name, err)
		}
		if out.LowerBound <= 0 || out.LowerBound > korf1Opt || len(out.Path) != 0 {
			t.Errorf("%s: LowerBound %d (optimum %d), path %v", name, out.LowerBound, korf1Opt, out.Path)
		}
		// Checks happen every 2^16 nodes: a stopped search must not run on.
		if out.Nodes > 1<<17 {
			t.Errorf("%s: %d nodes expanded after cancellation", name, out.Nodes)
		}
	}

	// Cancelled while running.
	ctx, cancelLater := context.WithCancel(context.Background())
	timer := time.AfterFunc(30*time.Millisecond, cancelLater)
	defer timer.Stop()
	t0 := time.Now()
	out, err := s4.Solve(korf1, search.Budget{Ctx: ctx})
	elapsed := time.Since(t0)
	switch {
	case errors.Is(err, search.ErrBudgetExceeded):
		if out.LowerBound <= 0 || out.LowerBound > korf1Opt {
			t.Errorf("cancelled mid-search: LowerBound %d, optimum %d", out.LowerBound, korf1Opt)
		}
		if elapsed > 3*time.Second {
			t.Errorf("cancelled after 30 ms, returned after %v", elapsed)
		}
	case err == nil: // a much faster searcher than today's: still must be right
		if len(out.Path) != korf1Opt {
			t.Errorf("solved in %v with %d moves, optimum %d", elapsed, len(out.Path), korf1Opt)
		}
	default:
		t.Fatalf("cancelled mid-search: %v", err)
	}

	// A small search must notice a cancelled context too: the gate checks
	// at the first node when a context or deadline is given.
	cells := deepState(t)
	s3 := solver(t, slidingSpec(3, 3))
	out, err = s3.Solve(cells, search.Budget{Ctx: cancelled})
	if !errors.Is(err, search.ErrBudgetExceeded) || len(out.Path) != 0 || out.Nodes != 0 || out.LowerBound > 31 {
		t.Errorf("3x3 cancelled: %d moves, %d nodes, lower bound %d, %v; want ErrBudgetExceeded at once", len(out.Path), out.Nodes, out.LowerBound, err)
	}
}

// TestSolveRejects: an unsolvable board never yields a path (under a node
// budget it exhausts the budget), and malformed input is an error.
func TestSolveRejects(t *testing.T) {
	t.Parallel()
	s := solver(t, slidingSpec(3, 3))
	unsolvable := []uint8{2, 1, 3, 4, 5, 6, 7, 8, 0}
	// The deadline is a backstop should MaxNodes stop working.
	out, err := s.Solve(unsolvable, search.Budget{MaxNodes: 300000, Deadline: time.Now().Add(20 * time.Second)})
	if !errors.Is(err, search.ErrBudgetExceeded) || len(out.Path) != 0 || out.Nodes > 300000 {
		t.Errorf("unsolvable board: path %v, %d nodes, err %v; want ErrBudgetExceeded within 300000 nodes", out.Path, out.Nodes, err)
	}
	for _, cells := range [][]uint8{
		{1, 2, 3, 4, 5, 6, 7, 8},    // too short
		{1, 2, 3, 4, 5, 6, 7, 8, 9}, // no blank
	} {
		if _, err := s.Solve(cells, search.Budget{MaxNodes: 1000}); err == nil || errors.Is(err, search.ErrBudgetExceeded) {
			t.Errorf("Solve(%v): err %v, want an input error", cells, err)
		}
	}
	for _, wh := range [][2]int{{1, 3}, {3, 1}, {9, 2}, {2, 9}} {
		if _, err := sliding.NewSearcher(wh[1], wh[0]); err == nil {
			t.Errorf("NewSliding(%d, %d) accepted", wh[0], wh[1])
		}
	}
}

// TestSolveGoal: the goal needs no moves and has heuristic 0, on boards up
// to 5x5 (the 5-sided ones, whose walking-distance tables take a while to
// build, not in -short mode) and the extreme 2x8, 8x2 and 8x8.
func TestSolveGoal(t *testing.T) {
	t.Parallel()
	shapes := [][2]int{{2, 8}, {8, 2}, {8, 8}, {5, 5}}
	for w := 2; w <= 5; w++ {
		for h := 2; h <= 5; h++ {
			if (w < 5 && h < 5) || !testing.Short() && w+h < 10 {
				shapes = append(shapes, [2]int{w, h})
			}
		}
	}
	for _, wh := range shapes {
		w, h := wh[0], wh[1]
		sp := slidingSpec(h, w)
		s := solver(t, sp)
		goal := puzzle.Goal(sp).Cells
		out, err := s.Solve(goal, search.Budget{MaxNodes: 10})
		if err != nil || len(out.Path) != 0 || !out.Optimal || out.LowerBound != 0 {
			t.Errorf("%s goal: path %v optimal %v lb %d err %v", sp, out.Path, out.Optimal, out.LowerBound, err)
		}
		if hv := s.Heuristic(goal); hv != 0 {
			t.Errorf("%s goal: Heuristic %d", sp, hv)
		}
	}
}
