package twophase

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/tables"
)

// seed20 is the benchmark set of docs/BENCHMARKS.md ("Fast mode by
// default: counted in nodes"): the n states of `solverd scramble --puzzle
// loopover:5x5 --count n --seed 20`.
func seed20(n int) []puzzle.State { return scrambled(20, n) }

// scrambled is the n states of `solverd scramble --puzzle loopover:5x5
// --count n --seed seed`.
func scrambled(seed uint64, n int) []puzzle.State {
	rng := rand.New(rand.NewPCG(seed, 0x7e55e7a))
	out := make([]puzzle.State, n)
	for i := range out {
		out[i] = puzzle.Random(spec55, rng)
	}
	return out
}

// openSeven maps the seven-piece phase-1 table and, when present, the
// phase-2 tables from $TESSERA_SOLVER_TABLES_DIR, or skips: one payload
// per table of the set, nil for one that is not there.
func openSeven(tb testing.TB) [][]byte {
	dir := os.Getenv("TESSERA_SOLVER_TABLES_DIR")
	if dir == "" {
		tb.Skip("set TESSERA_SOLVER_TABLES_DIR to a directory holding loopover-5x5-p7")
	}
	ts := Kind{Pieces: 7}.Tables()
	out := make([][]byte, len(ts))
	for i, t := range ts {
		m := metaOf(t)
		f, err := tables.Open(filepath.Join(dir, m.FileName()), m, false)
		if err != nil {
			if i == 0 {
				tb.Skip(err)
			}
			continue
		}
		tb.Cleanup(func() { f.Close() })
		out[i] = f.Data
	}
	return out
}

// BenchmarkDefault5x5 solves the 40 states of seed 20 at the default
// node budget ($TESSERA_TWOPHASE_NODES overrides it) over the seven-piece
// table, every answer replayed, and reports the mean length, the nodes
// and the process's CPU per state (user + system, so run it alone).
func BenchmarkDefault5x5(b *testing.B) {
	ps := openSeven(b)
	if os.Getenv("TESSERA_TWOPHASE_ARM8") == "0" {
		ps[2] = nil // for contrast, without the eight-piece table
	}
	s, err := NewTables(ps[0], ps[1], ps[2])
	if err != nil {
		b.Fatal(err)
	}
	nodes := s.Default()
	if v, err := strconv.ParseInt(os.Getenv("TESSERA_TWOPHASE_NODES"), 10, 64); err == nil && v > 0 {
		nodes = v
	}
	states := seed20(40)
	if v, err := strconv.ParseUint(os.Getenv("TESSERA_TWOPHASE_SEED"), 10, 64); err == nil {
		states = scrambled(v, 40) // another set, against tuning to this one
	}
	// Touch the table's pages first, so that the first state does not pay
	// for them.
	for _, st := range states[:4] {
		if _, _, _, err := s.solve(st.Cells, search.Budget{MaxNodes: nodes}); err != nil {
			b.Fatal(err)
		}
	}
	var moves, lower int
	var spent int64
	var cpu float64
	for b.Loop() {
		moves, lower, spent = 0, 0, 0
		c0 := cpuSeconds()
		for _, st := range states {
			ms, lo, n, err := s.solve(st.Cells, search.Budget{MaxNodes: nodes})
			if err != nil {
				b.Fatal(err)
			}
			coretest.Replay(b, st, ms)
			moves += len(ms)
			lower += lo
			spent += n
		}
		cpu = cpuSeconds() - c0
	}
	n := float64(len(states))
	b.ReportMetric(float64(moves)/n, "moves/state")
	b.ReportMetric(float64(lower)/n, "lower/state")
	b.ReportMetric(float64(spent)/n, "nodes/state")
	b.ReportMetric(cpu*1000/n, "cpu-ms/state")
	b.ReportMetric(cpu*1e9/float64(spent), "cpu-ns/node")
}

// cpuSeconds is the CPU time the process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
