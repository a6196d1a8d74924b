package pdb

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/tables"
)

// BenchmarkBuild builds the 15-puzzle partitions on every core and reports
// build time, the builder's arrays and the heap it allocated:
//
//	go test -run '^$' -bench Build -benchtime 1x ./internal/sliding/pdb
func BenchmarkBuild(b *testing.B) {
	for _, pt := range []Partition{Partition555, Partition663} {
		b.Run(pt.Name, func(b *testing.B) {
			var work, tab uint64
			var states uint64
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			t0 := time.Now()
			for i := 0; i < b.N; i++ {
				_, sts, err := BuildPartition(context.Background(), pt, Options{})
				if err != nil {
					b.Fatal(err)
				}
				work, tab, states = 0, 0, 0
				for _, st := range sts {
					work = max(work, st.WorkBytes) // one build at a time
					tab += st.TableBytes
					states += st.States
				}
			}
			el := time.Since(t0)
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(el.Seconds()/float64(b.N), "s/build")
			b.ReportMetric(float64(tab)/1e6, "table-MB")
			b.ReportMetric(float64(work+tab)/1e6, "peak-arrays-MB")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/1e6, "alloc-MB/build")
			b.ReportMetric(float64(states), "states")
		})
	}
}

// BenchmarkKorf100 solves Korf's 100 optimally on one goroutine with
// IDA* over the 5-5-5 and 6-6-3 sets, with and without the reflected
// lookup. The tables are built before the timer starts. Compare with
// go test -run '^$' -bench Korf100 -benchtime 1x ./internal/sliding (WD+ID).
//
//	go test -run '^$' -bench Korf100 -benchtime 1x ./internal/sliding/pdb
func BenchmarkKorf100(b *testing.B) {
	ks := instances.Korf100()
	for _, pt := range []Partition{Partition555, Partition663} {
		pdbs, _, err := BuildPartition(context.Background(), pt, Options{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := NewSet(pdbs...)
		if err != nil {
			b.Fatal(err)
		}
		for _, reflect := range []bool{false, true} {
			sv, err := NewSolver(s, reflect)
			if err != nil {
				b.Fatal(err)
			}
			name := pt.Name
			if reflect {
				name += "+reflect"
			}
			b.Run(name, func(b *testing.B) {
				var nodes int64
				var el time.Duration
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					nodes = korfPass(b, sv, ks)
					el = time.Since(t0)
				}
				b.ReportMetric(float64(nodes), "nodes")
				b.ReportMetric(el.Seconds(), "s/100")
				b.ReportMetric(float64(nodes)/el.Seconds()/1e6, "Mnodes/s")
			})
		}
	}
}

// BenchmarkKorf100Stored solves Korf's 100 (or the first $PDB_KORF_N)
// with the tables stored in $TESSERA_SOLVER_TABLES_DIR (default: the user cache,
// where `solverd tables build` writes), with reflection, after one
// untimed pass that brings the mapped pages in ($PDB_NO_WARM skips it). A
// set whose files are missing is skipped; 78 needs `solverd tables build
// 15-pdb-78`. $PDB_FSM_L=n replaces the pruning machine by one of the
// duplicates up to n moves (2: only a move undone). cpu-s/op is user and
// system time, steadier than wall time on a shared machine.
//
//	go test -run '^$' -bench Korf100Stored/78 -benchtime 1x -count 5 ./internal/sliding/pdb
func BenchmarkKorf100Stored(b *testing.B) {
	ks := instances.Korf100()
	if v := os.Getenv("PDB_KORF_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > len(ks) {
			b.Fatalf("PDB_KORF_N=%q", v)
		}
		ks = ks[:n]
	}
	dir := storedDir(b)
	for _, pt := range []Partition{Partition663, Partition78, Partition555} {
		b.Run(pt.Name, func(b *testing.B) {
			sv, _ := storedSolver(b, dir, pt)
			if os.Getenv("PDB_NO_WARM") == "" {
				korfPass(b, sv, ks)
			}
			b.ResetTimer()
			var nodes int64
			cpu0 := coretest.CPUTime()
			for i := 0; i < b.N; i++ {
				nodes = korfPass(b, sv, ks)
			}
			b.ReportMetric((coretest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			el := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(nodes), "nodes")
			b.ReportMetric(el.Seconds(), "s/op")
			b.ReportMetric(float64(el.Nanoseconds())/float64(nodes), "ns/node")
		})
	}
}

// korfPass solves 15-puzzle instances with sv, checks every answer's
// length and replay, and returns the nodes spent.
func korfPass(b *testing.B, sv *Solver, ks []instances.Instance) (nodes int64) {
	for _, k := range ks {
		out, err := sv.Solve(k.Cells, search.Budget{})
		if err != nil {
			b.Fatal(err)
		}
		if len(out.Path) != k.Opt || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) {
			b.Fatalf("#%d: %d moves, optimum %d", k.ID, len(out.Path), k.Opt)
		}
		nodes += out.Nodes
	}
	return nodes
}

// storedDir is where the Stored benchmarks find tables:
// $TESSERA_SOLVER_TABLES_DIR, else the user cache, where `solverd tables build`
// writes.
func storedDir(b testing.TB) string {
	if dir := os.Getenv("TESSERA_SOLVER_TABLES_DIR"); dir != "" {
		return dir
	}
	c, err := os.UserCacheDir()
	if err != nil {
		b.Skip(err)
	}
	return filepath.Join(c, "tessera", "tables")
}

// storedSolver maps pt's tables from dir (skipping the benchmark when one
// is missing; they are closed when it ends) and returns the solver over
// them with reflection. $PDB_FSM_L=n replaces its pruning machine by one
// of the duplicates up to n moves (experiments). $PDB_PRIVATE=1 copies the
// tables into huge-page memory (PDB.Private); $PDB_PREFETCH=0 or 1 forces
// prefetching, and with it the lanes of one search, off or on;
// $PDB_DUAL=1 adds the dual lookups (newDualSolver); $PDB_COMPRESS=k
// searches the tables as compressed by k would answer (compressMin).
func storedSolver(b *testing.B, dir string, pt Partition) (*Solver, []*PDB) {
	var pdbs []*PDB
	for i := range pt.Patterns {
		p := stored(b, dir, pt, i, os.Getenv("PDB_PRIVATE") != "")
		if p == nil {
			b.Skipf("table %s is not in %s", pt.TableName(i), dir)
		}
		if v := os.Getenv("PDB_COMPRESS"); v != "" {
			k, err := strconv.Atoi(v)
			if err == nil {
				p, err = compressMin(p, k)
			}
			if err != nil {
				b.Fatalf("PDB_COMPRESS=%q: %v", v, err)
			}
		}
		pdbs = append(pdbs, p)
	}
	sv := reflectingSolver(b, pdbs...)
	if v := os.Getenv("PDB_DUAL_PATHS"); v != "" {
		dualPaths, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("PDB_DUAL_SLACK"); v != "" {
		dualSlack, _ = strconv.Atoi(v)
	}
	if os.Getenv("PDB_DUAL") == "1" {
		s, err := NewSet(pdbs...)
		if err != nil {
			b.Fatal(err)
		}
		var opt dualOptions
		if v := os.Getenv("PDB_EXTRA"); v != "" {
			opt.Extra, opt.ExtraDual = extraSet(b, v, pt.Rows, pt.Cols), os.Getenv("PDB_EXTRA_DUAL") == "1"
			opt.ExtraSteps = os.Getenv("PDB_EXTRA_STEPS") == "1"
		}
		if sv, err = newDualSolver(s, true, opt); err != nil {
			b.Fatal(err)
		}
	}
	if v := os.Getenv("PDB_PREFETCH"); v != "" {
		sv.prefetch = v == "1"
		sv.interleave = sv.prefetch
	}
	if v := os.Getenv("PDB_FSM_L"); v != "" {
		L, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		sv.fsm = newFSM(duplicateStrings(L))
	}
	return sv, pdbs
}

// BenchmarkBuildStored builds one table of a partition ($PDB_BUILD, e.g.
// 15-pdb-78-b or 24-pdb-6666-a; skipped when unset) on $PDB_BUILD_WORKERS
// goroutines (default every core) and compares it byte for byte with the
// stored table when the cache holds it; when it does not and
// $PDB_BUILD_WRITE=1, it writes the table there (how the experimental
// 24-pdb-7764, not in the catalogue, is built). cpu-s/op is user and
// system time.
//
//	PDB_BUILD=15-pdb-78-b go test -run '^$' -bench BuildStored -benchtime 1x ./internal/sliding/pdb
func BenchmarkBuildStored(b *testing.B) {
	name := os.Getenv("PDB_BUILD")
	if name == "" {
		b.Skip("PDB_BUILD unset")
	}
	var pt Partition
	idx := -1
	for _, q := range []Partition{Partition78, Partition7764, Partition6666, Partition663, Partition555} {
		for i := range q.Patterns {
			if q.TableName(i) == name {
				pt, idx = q, i
			}
		}
	}
	if idx < 0 {
		b.Fatalf("PDB_BUILD=%q: no such table", name)
	}
	var opt Options
	if v := os.Getenv("PDB_BUILD_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		opt.Workers = n
	}
	var p *PDB
	var st Stats
	cpu0 := coretest.CPUTime()
	for i := 0; i < b.N; i++ {
		var err error
		if p, st, err = Build(context.Background(), pt.Rows, pt.Cols, pt.Patterns[idx], opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((coretest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric((b.Elapsed() / time.Duration(b.N)).Seconds(), "s/op")
	b.ReportMetric(float64(st.States), "states")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(st.States), "ns/state")
	q := stored(b, storedDir(b), pt, idx, false)
	if q != nil && string(q.Data()) != string(p.Data()) {
		b.Errorf("%s differs from the stored table", name)
	}
	if q == nil && os.Getenv("PDB_BUILD_WRITE") == "1" {
		path, _, err := tables.Write(storedDir(b), metaOf(Kind{Partition: pt}.Tables()[idx]), p.Data())
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("wrote %s", path)
	}
}

// stored maps table i of pt from dir for the rest of the benchmark, as the
// catalogue does (its package imports this one, so a test here cannot call
// it); nil when the table is missing or damaged.
func stored(b testing.TB, dir string, pt Partition, i int, private bool) *PDB {
	m := metaOf(Kind{Partition: pt}.Tables()[i])
	ts, closer, err := tables.OpenAll([]string{filepath.Join(dir, m.FileName())}, []tables.Meta{m}, false, private)
	if err != nil {
		b.Log(err)
		return nil
	}
	b.Cleanup(func() { closer() })
	p, err := FromData(pt.Rows, pt.Cols, pt.Patterns[i], ts[0].Data)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkKorf100StoredFast is the fast mode over the stored tables:
// weighted IDA* (1.5×h) on Korf's 100, one thread, every answer replayed;
// nodes and moves are the totals (unchanged by a refactoring of the
// driver: 201,721 nodes over 15-pdb-663, 25,216 over 15-pdb-78).
//
//	go test -run '^$' -bench 'Korf100StoredFast/(663|78)$' -benchtime 1x ./internal/sliding/pdb
func BenchmarkKorf100StoredFast(b *testing.B) {
	for _, pt := range []Partition{Partition663, Partition78} {
		b.Run(pt.Name, func(b *testing.B) {
			sv, _ := storedSolver(b, storedDir(b), pt)
			var nodes, moves int64
			for b.Loop() {
				nodes, moves = 0, 0
				for _, k := range instances.Korf100() {
					out, err := sv.SolveWeighted(k.Cells, search.Budget{}, 24)
					if err != nil || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) || len(out.Path) < k.Opt {
						b.Fatalf("#%d: %v, %d moves", k.ID, err, len(out.Path))
					}
					nodes += out.Nodes
					moves += int64(len(out.Path))
				}
			}
			b.ReportMetric(float64(nodes), "nodes")
			b.ReportMetric(float64(moves), "moves")
		})
	}
}

// BenchmarkSearch15 is the search against the best public solver
// (docs/BENCHMARKS.md) in process, over 15-pdb-78 with
// reflection: Korf's 100 and $PDB_RANDOM_N (default 1,000) uniform random
// 15-puzzles (the states of `solverd scramble --puzzle 15 --count 1000
// --seed 2`), each solved one after the other on one thread (threads=1),
// one after the other with each search on two (threads=2), and side by
// side on two goroutines over the one mapping, each taking the next state
// (goroutines=2, as two solverd workers do). An untimed pass brings the
// mapped pages in first. s/op is wall time, cpu-s/op user and system time
// of the process; every answer is replayed and optimal.
//
//	go test -run '^$' -bench Search15 -benchtime 3x -count 5 ./internal/sliding/pdb
func BenchmarkSearch15(b *testing.B) {
	n := 1000
	if v := os.Getenv("PDB_RANDOM_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("PDB_RANDOM_N=%q", v)
		}
	}
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	rng := rand.New(rand.NewPCG(2, 0x7e55e7a)) // solverd scramble's generator
	var random []instances.Instance
	for range n {
		random = append(random, instances.Instance{Cells: puzzle.Random(spec, rng).Cells})
	}
	sv, _ := storedSolver(b, storedDir(b), Partition78)
	for _, set := range []struct {
		name string
		ks   []instances.Instance
	}{{"korf100", instances.Korf100()}, {"random" + strconv.Itoa(n), random}} {
		searchPass(b, sv, set.ks, 1, 1)
		for _, mode := range []struct {
			name                string
			threads, goroutines int
		}{{"threads=1", 1, 1}, {"threads=2", 2, 1}, {"goroutines=2", 1, 2}} {
			b.Run(set.name+"/"+mode.name, func(b *testing.B) {
				var nodes int64
				cpu0 := coretest.CPUTime()
				for b.Loop() {
					nodes = searchPass(b, sv, set.ks, mode.threads, mode.goroutines)
				}
				b.ReportMetric((coretest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(nodes), "nodes")
			})
		}
	}
}

// searchPass solves ks on goroutines goroutines (each taking the next
// state), each search on threads threads; it checks every answer
// (replayed, optimal, and of the published length where ks has one) and
// returns the nodes spent.
func searchPass(b *testing.B, sv *Solver, ks []instances.Instance, threads, goroutines int) int64 {
	var next, nodes atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	check := func(i int, out search.Outcome, err error) {
		k := ks[i]
		if err == nil && (!out.Optimal || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) || k.Opt > 0 && len(out.Path) != k.Opt) {
			err = fmt.Errorf("state %d: %d moves, optimum %d", i, len(out.Path), k.Opt)
		}
		if err != nil {
			mu.Lock()
			first = cmp.Or(first, err)
			mu.Unlock()
		}
		nodes.Add(out.Nodes)
	}
	take := func() (int, []uint8, bool) {
		i := int(next.Add(1) - 1)
		if i >= len(ks) {
			return 0, nil, false
		}
		return i, ks[i].Cells, true
	}
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, cells, ok := take()
				if !ok {
					return
				}
				out, err := sv.SolveParallel(cells, search.Budget{}, search.Unweighted, threads)
				check(i, out, err)
			}
		}()
	}
	wg.Wait()
	if first != nil {
		b.Fatal(first)
	}
	return nodes.Load()
}

// metaOf is the header of a table as its kind describes it (package
// tables may not import the solvers' vocabulary: results links it).
func metaOf(id search.Table) tables.Meta {
	return tables.Meta{Name: id.Name, Puzzle: id.Puzzle, Pattern: id.Pattern, Encoding: id.Encoding,
		Entries: id.Entries, Generator: id.Generator}
}

// extraSet builds in memory a partition of the rows×cols board given as
// patterns of tiles ("1,2,3,4,5,6,9,13/7,8,10,11,12,14,15" on the
// 15-puzzle), a second partition for the dual search (dualOptions.Extra).
func extraSet(b *testing.B, spec string, rows, cols int) *Set {
	var pdbs []*PDB
	for _, pat := range strings.Split(spec, "/") {
		var tiles []uint8
		for _, f := range strings.Split(pat, ",") {
			t, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			tiles = append(tiles, uint8(t))
		}
		// $PDB_EXTRA_DIR keeps the payloads between runs.
		raw := ""
		if dir := os.Getenv("PDB_EXTRA_DIR"); dir != "" {
			raw = filepath.Join(dir, fmt.Sprintf("extra-%dx%d-%s.raw", rows, cols, strings.ReplaceAll(pat, ",", "-")))
			if data, err := os.ReadFile(raw); err == nil {
				p, err := FromData(rows, cols, tiles, data)
				if err != nil {
					b.Fatal(err)
				}
				pdbs = append(pdbs, p)
				continue
			}
		}
		p, _, err := Build(context.Background(), rows, cols, tiles, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if raw != "" {
			if err := os.WriteFile(raw, p.Data(), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		pdbs = append(pdbs, p)
	}
	s, err := NewSet(pdbs...)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkDual15 solves Korf's 100 and the 1,000 random states of
// `solverd scramble --puzzle 15 --count 1000 --seed 1` ($PDB_RANDOM_N,
// $PDB_RANDOM_SEED change them) over 15-pdb-78 with reflection on one
// thread, regular (without lanes, whose node counts depend on how an
// iteration is cut) and with the dual lookups (newDualSolver), one pass of
// each in turn. Every answer is replayed; the dual search's lengths must
// equal the regular one's (and Korf's published optima). Node counts are
// exact; cpu-s/op is user and system time of the pass. $PDB_EXTRA adds a
// second partition to the dual search (see extraSet). A first pass of
// each, untimed, brings the tables' pages in unless $PDB_NO_WARM is set.
//
//	go test -run '^$' -bench Dual15 -benchtime 1x -count 4 ./internal/sliding/pdb > out.txt
//	benchstat -col /solver out.txt
func BenchmarkDual15(b *testing.B) {
	n, seed := 1000, uint64(1)
	if v := os.Getenv("PDB_RANDOM_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("PDB_RANDOM_N=%q", v)
		}
	}
	if v := os.Getenv("PDB_RANDOM_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			b.Fatalf("PDB_RANDOM_SEED=%q", v)
		}
	}
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	rng := rand.New(rand.NewPCG(seed, 0x7e55e7a)) // solverd scramble's generator
	var random []instances.Instance
	for range n {
		random = append(random, instances.Instance{Cells: puzzle.Random(spec, rng).Cells})
	}
	dir := storedDir(b)
	var pdbs []*PDB
	for i := range Partition78.Patterns {
		p := stored(b, dir, Partition78, i, os.Getenv("PDB_PRIVATE") != "")
		if p == nil {
			b.Skipf("table %s is not in %s", Partition78.TableName(i), dir)
		}
		pdbs = append(pdbs, p)
	}
	s, err := NewSet(pdbs...)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := NewSolver(s, true)
	if err != nil {
		b.Fatal(err)
	}
	reg.interleave = false
	var opt dualOptions
	if v := os.Getenv("PDB_EXTRA"); v != "" {
		opt.Extra, opt.ExtraDual = extraSet(b, v, 4, 4), os.Getenv("PDB_EXTRA_DUAL") == "1"
		opt.ExtraSteps = os.Getenv("PDB_EXTRA_STEPS") == "1"
	}
	dual, err := newDualSolver(s, true, opt)
	if err != nil {
		b.Fatal(err)
	}
	for _, set := range []struct {
		name string
		ks   []instances.Instance
	}{{"korf100", instances.Korf100()}, {"random" + strconv.Itoa(n) + "-seed" + strconv.FormatUint(seed, 10), random}} {
		lengths := make([]int, len(set.ks))
		for _, sv := range []struct {
			name string
			sv   *Solver
		}{{"regular", reg}, {"dual", dual}} {
			b.Run(set.name+"/solver="+sv.name, func(b *testing.B) {
				if os.Getenv("PDB_NO_WARM") == "" {
					for _, k := range set.ks {
						if _, err := sv.sv.Solve(k.Cells, search.Budget{}); err != nil {
							b.Fatal(err)
						}
					}
				}
				var nodes int64
				cpu0 := coretest.CPUTime()
				for b.Loop() {
					nodes = 0
					for i, k := range set.ks {
						out, err := sv.sv.Solve(k.Cells, search.Budget{})
						if err != nil {
							b.Fatal(err)
						}
						if !out.Optimal || !coretest.SlidingSolved(coretest.SlidePath(4, k.Cells, out.Path)) || k.Opt > 0 && len(out.Path) != k.Opt {
							b.Fatalf("%s state %d: %d moves, optimum %d", sv.name, i, len(out.Path), k.Opt)
						}
						if lengths[i] == 0 {
							lengths[i] = len(out.Path)
						} else if lengths[i] != len(out.Path) {
							b.Fatalf("%s state %d: %d moves, the regular search %d", sv.name, i, len(out.Path), lengths[i])
						}
						nodes += out.Nodes
					}
				}
				b.ReportMetric((coretest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(nodes), "nodes")
			})
		}
	}
}
