package pdb

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
)

// BenchmarkKorfFelner24Stored solves the $PDB_KF24_N (default 10)
// shortest of Korf and Felner's fifty 24-puzzle instances optimally on
// $PDB_KF24_WORKERS goroutines (default 1; see SolveParallel) with the 24-pdb-6666 tables
// ($PDB_KF24_SET=7764: 24-pdb-7764) stored in $TESSERA_SOLVER_TABLES_DIR
// (default: the user cache) and the reflected lookup; $PDB_KF24_IDS
// ("25,40") picks instances instead. Every page of the tables is read
// before the timer starts. Each instance's nodes and time are logged; a
// missing table set skips. $PDB_KF24_MAXNODES caps each instance (an
// instance over the cap is logged with its proved bound). $PDB_FSM_L as in
// BenchmarkKorf100Stored.
//
//	go test -run '^$' -bench KorfFelner24Stored -benchtime 1x -timeout 0 -v ./internal/sliding/pdb
func BenchmarkKorfFelner24Stored(b *testing.B) {
	ks := instances.KorfFelner24()
	var err error
	slices.SortStableFunc(ks, func(x, y instances.Instance) int { return x.Opt - y.Opt })
	if v := os.Getenv("PDB_KF24_IDS"); v != "" {
		var pick []instances.Instance
		for _, f := range strings.Split(v, ",") {
			id, err := strconv.Atoi(f)
			if err != nil {
				b.Fatalf("PDB_KF24_IDS=%q", v)
			}
			for _, k := range ks {
				if k.ID == id {
					pick = append(pick, k)
				}
			}
		}
		ks = pick
	} else {
		n := 10
		if v := os.Getenv("PDB_KF24_N"); v != "" {
			if n, err = strconv.Atoi(v); err != nil || n < 1 || n > len(ks) {
				b.Fatalf("PDB_KF24_N=%q", v)
			}
		}
		ks = ks[:n]
	}
	var budget search.Budget
	if v := os.Getenv("PDB_KF24_MAXNODES"); v != "" {
		if budget.MaxNodes, err = strconv.ParseInt(v, 10, 64); err != nil {
			b.Fatalf("PDB_KF24_MAXNODES=%q", v)
		}
	}
	workers := 1
	if v := os.Getenv("PDB_KF24_WORKERS"); v != "" {
		if workers, err = strconv.Atoi(v); err != nil || workers < 1 {
			b.Fatalf("PDB_KF24_WORKERS=%q", v)
		}
	}
	sv, pdbs := storedSolver(b, storedDir(b), kf24Partition(b))
	// Read every page before the timer starts.
	var sum byte
	for _, p := range pdbs {
		for i := 0; i < len(p.data); i += 4096 {
			sum += p.data[i]
		}
	}
	_ = sum
	b.ResetTimer()
	var nodes int64
	cpu0 := coretest.CPUTime()
	for i := 0; i < b.N; i++ {
		nodes = 0
		for _, k := range ks {
			t0, c0 := time.Now(), coretest.CPUTime()
			out, err := sv.SolveParallel(k.Cells, budget, search.Unweighted, workers)
			nodes += out.Nodes
			if err == search.ErrBudgetExceeded {
				b.Logf("#%d (%d moves): over %d nodes, bound %d, %.1f s cpu", k.ID, k.Opt, budget.MaxNodes, out.LowerBound, (coretest.CPUTime() - c0).Seconds())
				continue
			}
			if err != nil {
				b.Fatal(err)
			}
			if len(out.Path) != k.Opt || !coretest.SlidingSolved(coretest.SlidePath(5, k.Cells, out.Path)) {
				b.Fatalf("#%d: %d moves, optimum %d", k.ID, len(out.Path), k.Opt)
			}
			b.Logf("#%d (%d moves): %d nodes, %.1f s, %.1f s cpu", k.ID, k.Opt, out.Nodes, time.Since(t0).Seconds(), (coretest.CPUTime() - c0).Seconds())
		}
	}
	b.ReportMetric((coretest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	el := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(nodes), "nodes")
	b.ReportMetric(el.Seconds(), "s/op")
	b.ReportMetric(float64(el.Nanoseconds())/float64(nodes), "ns/node")
}

// kf24Partition is the 24-puzzle table set the Korf–Felner benchmarks
// search: $PDB_KF24_SET names it (6666, the default, or 7764).
func kf24Partition(b *testing.B) Partition {
	switch v := os.Getenv("PDB_KF24_SET"); v {
	case "", "6666":
		return Partition6666
	case "7764":
		return Partition7764
	default:
		b.Fatalf("PDB_KF24_SET=%q: want 6666 or 7764", v)
		return Partition{}
	}
}
