package ida55

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/tables"
)

// cappedP6 is the six-piece phase-1 table exact to depth 7 and 8 beyond:
// a bound, the same layout as the seven-piece file, and built in seconds
// (the full seven-piece table is 1.2 GB and minutes).
var cappedP6 = sync.OnceValues(func() ([]byte, error) {
	payload, _, err := twophase.Kind{Pieces: 6, Levels: 7}.Build(context.Background(), 0, nil)
	return payload, err
})

// cappedTables55 are the depth-capped walking distance and six-piece
// pattern the tests build in seconds.
func cappedTables55(t *testing.T) (*loopover.WD, []byte) {
	t.Helper()
	wd, err := capped55()
	if err != nil {
		t.Fatal(err)
	}
	p6, err := cappedP6()
	if err != nil {
		t.Fatal(err)
	}
	return wd, p6
}

// patternSolvers55 are the 5×5 search over the capped walking distance with
// and without the capped six-piece pattern through all 200 slots.
func patternSolvers55(t *testing.T) (with, without *Solver) {
	wd, p6 := cappedTables55(t)
	var err error
	if with, err = NewWithPattern(wd, p6, maxSlots55); err != nil {
		t.Fatal(err)
	}
	if without, err = New(wd); err != nil {
		t.Fatal(err)
	}
	return with, without
}

// checkPattern55 solves random walks with and without the pattern bound:
// the same optimal lengths, every answer replayed, the bound at the root
// never above the length, on one worker and two.
func checkPattern55(t *testing.T, with, without *Solver, walks []int, perWalk int) {
	sp := spec(5, 5)
	rng := rand.New(rand.NewPCG(55, 7))
	var nWith, nWithout int64
	for _, walk := range walks {
		for i := 0; i < perWalk; i++ {
			cells := puzzle.RandomWalk(sp, rng, walk).Cells
			a, err := with.Solve(cells, search.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := without.Solve(cells, search.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Path) != len(b.Path) || !a.Optimal {
				t.Fatalf("%v: %d moves with the pattern, %d without", cells, len(a.Path), len(b.Path))
			}
			if h, _ := with.Heuristic(cells); h > len(b.Path) {
				t.Fatalf("%v: bound %d above the optimal %d", cells, h, len(b.Path))
			}
			coretest.Replay(t, puzzle.State{Spec: sp, Cells: cells}, with.Moves(a.Path))
			p, err := with.SolveParallel(cells, search.Budget{}, 2)
			if err != nil || len(p.Path) != len(b.Path) {
				t.Fatalf("%v: %d moves on two workers, optimal %d (%v)", cells, len(p.Path), len(b.Path), err)
			}
			coretest.Replay(t, puzzle.State{Spec: sp, Cells: cells}, with.Moves(p.Path))
			nWith, nWithout = nWith+a.Nodes, nWithout+b.Nodes
		}
	}
	if nWith > nWithout {
		t.Errorf("%d nodes with the pattern, %d without", nWith, nWithout)
	}
	t.Logf("nodes: %d with the pattern, %d without", nWith, nWithout)
}

// The pattern bound over every slot is admissible on every state within 4
// moves (their BFS distances) and keeps answers optimal on longer walks.
func TestPattern55(t *testing.T) {
	with, without := patternSolvers55(t)
	n := 0
	for key, d := range coretest.Ball(spec(5, 5), 4) {
		cells := []uint8(key)
		h, err := with.Heuristic(cells)
		if err != nil || h > d {
			t.Fatalf("%v: bound %d, BFS distance %d (%v)", cells, h, d, err)
		}
		if n++; n%101 == 0 {
			out, err := with.Solve(cells, search.Budget{})
			if err != nil || len(out.Path) != d {
				t.Fatalf("%v: %d moves, BFS distance %d (%v)", cells, len(out.Path), d, err)
			}
		}
	}
	checkPattern55(t, with, without, []int{6, 8, 10, 12}, 10)
	if got := with.Name(); got != "ida*(loopover-wd+p6)" {
		t.Errorf("name %q", got)
	}
}

// Every slot reads a distinct set of pieces through a map of the torus
// that takes lines to lines, and the goal reads 0 in every slot.
func TestPattern55Slots(t *testing.T) {
	p6, err := cappedP6()
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPat55(p6, maxSlots55)
	if err != nil {
		t.Fatal(err)
	}
	var goal [32]uint8
	for i := range goal[:25] {
		goal[i] = uint8(i)
	}
	for i := range p.slots {
		sl := &p.slots[i]
		if v := p.look(sl, &goal); v != 0 {
			t.Fatalf("slot %d reads %d at the goal", i, v)
		}
		// Cells of one row go to one line, and of one column to one line.
		for r := 0; r < 5; r++ {
			rows, cols := map[uint8]bool{}, map[uint8]bool{}
			for c := 0; c < 5; c++ {
				y := sl.cmap[r*5+c]
				rows[y/5], cols[y%5] = true, true
			}
			if len(rows) != 1 && len(cols) != 1 {
				t.Fatalf("slot %d maps row %d onto no line", i, r)
			}
		}
	}
	if _, err := newPat55(p6[:100], 10); err == nil {
		t.Error("a short table accepted")
	}
}

// p7FromDir maps loopover-5x5-p7 and the walking distance from
// $TESSERA_SOLVER_TABLES_DIR, or skips.
func p7FromDir(tb testing.TB) (*loopover.WD, []byte) {
	dir := os.Getenv("TESSERA_SOLVER_TABLES_DIR")
	if dir == "" {
		tb.Skip("set TESSERA_SOLVER_TABLES_DIR to a directory holding loopover-5x5-wd and loopover-5x5-p7")
	}
	var data [2][]byte
	for i, id := range (Kind{Side: 5}).Tables() {
		m := metaOf(id)
		f, err := tables.Open(filepath.Join(dir, m.FileName()), m, false)
		if err != nil {
			tb.Skip(err)
		}
		tb.Cleanup(func() { f.Close() })
		if os.Getenv("TESSERA_TABLES_PRIVATE") != "" {
			if err := f.Private(); err != nil {
				tb.Fatal(err)
			}
		}
		data[i] = f.Data
	}
	wd, err := loopover.NewWDFrom(5, 5, data[0])
	if err != nil {
		tb.Fatal(err)
	}
	return wd, data[1]
}

// Over the mapped tables: the seven-piece bound, through every slot and
// through the slots the solver reads, is admissible within 4 moves and
// keeps answers optimal on walks of up to 13 moves.
func TestPattern55P7(t *testing.T) {
	wd, p7 := p7FromDir(t)
	without, err := New(wd)
	if err != nil {
		t.Fatal(err)
	}
	ball4 := coretest.Ball(spec(5, 5), 4)
	for _, slots := range []int{maxSlots55, pattern55Slots} {
		with, err := NewWithPattern(wd, p7, slots)
		if err != nil {
			t.Fatal(err)
		}
		for key, d := range ball4 {
			if h, err := with.Heuristic([]uint8(key)); err != nil || h > d {
				t.Fatalf("%d slots, %v: bound %d, BFS distance %d (%v)", slots, []uint8(key), h, d, err)
			}
		}
		checkPattern55(t, with, without, []int{8, 10, 12, 13}, 10)
	}
}

// The 5×5 walking-distance set's kind serves the pattern search when its
// second table is there, and the plain one when it is not.
func TestKindServesPattern(t *testing.T) {
	wd, p6 := cappedTables55(t)
	for _, c := range []struct {
		payloads [][]byte
		name     string
	}{{[][]byte{wd.Dist, p6}, "ida*(loopover-wd+p6)"}, {[][]byte{wd.Dist, nil}, "ida*(loopover-wd)"}} {
		alg, err := Kind{Side: 5}.Serve(c.payloads, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := puzzle.RandomWalk(spec(5, 5), rand.New(rand.NewPCG(5, 3)), 3)
		a, err := alg.Answer(search.Request{State: st, Goal: st.Goal(), Mode: result.ModeOptimal})
		if err != nil {
			t.Fatal(err)
		}
		if a.Solver != c.name {
			t.Errorf("served %q, want %q", a.Solver, c.name)
		}
	}
	if _, err := (Kind{Side: 5}).Serve([][]byte{wd.Dist, p6[:10]}, nil); err == nil {
		t.Error("a short pattern table accepted")
	}
}

// BenchmarkPattern55File solves the states of a file (one a line, e.g.
// `solverd scramble -p loopover:5x5 -n 12 --seed 19 --walk 17`) over the
// mapped tables with the seven-piece table through the first
// TESSERA_P55_SLOTS slots (0: walking distance alone; default
// pattern55Slots) on
// TESSERA_P55_THREADS workers, and logs each state's nodes, length and
// CPU time:
//
//	TESSERA_SOLVER_TABLES_DIR=~/.cache/tessera/tables TESSERA_P55_STATES=s19.txt go test -run '^$' -bench Pattern55File -benchtime 1x -v ./internal/loopover/ida55
func BenchmarkPattern55File(b *testing.B) {
	text, err := os.ReadFile(os.Getenv("TESSERA_P55_STATES"))
	if err != nil {
		b.Skip("set TESSERA_P55_STATES to a file of 5x5 states: ", err)
	}
	wd, p7 := p7FromDir(b)
	slots, threads := envInt("TESSERA_P55_SLOTS", pattern55Slots), envInt("TESSERA_P55_THREADS", 1)
	s, err := New(wd)
	if slots > 0 {
		s, err = NewWithPattern(wd, p7, slots)
	}
	if err != nil {
		b.Fatal(err)
	}
	sp := spec(5, 5)
	var set [][]uint8
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		st, err := puzzle.Parse(sp, line)
		if err != nil {
			b.Fatal(err)
		}
		set = append(set, st.Cells)
	}
	for i := 0; i < b.N; i++ {
		var nodes int64
		var cpu time.Duration
		for j, c := range set {
			c0, t0 := coretest.CPUTime(), time.Now()
			out, err := s.SolveParallel(c, search.Budget{}, threads)
			if err != nil {
				b.Fatal(err)
			}
			dc := coretest.CPUTime() - c0
			b.Logf("state %d: %d moves, %d nodes, %.2f s CPU, %.2f s wall", j, len(out.Path), out.Nodes, dc.Seconds(), time.Since(t0).Seconds())
			nodes, cpu = nodes+out.Nodes, cpu+dc
		}
		b.ReportMetric(float64(nodes), "nodes")
		b.ReportMetric(cpu.Seconds(), "cpu-s")
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}
