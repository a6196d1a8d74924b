package catalog

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/ida44"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/tables"
)

func TestResolve(t *testing.T) {
	ts, err := Resolve([]string{"15-pdb-555", "15-pdb-555-b", "15-pdb-78-a"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range ts {
		names = append(names, tb.Meta.Name)
	}
	if got := strings.Join(names, " "); got != "15-pdb-555-a 15-pdb-555-b 15-pdb-555-c 15-pdb-78-a" {
		t.Fatalf("resolved %s", got)
	}
	if _, err := Resolve([]string{"15-pdb-99"}); err == nil || !strings.Contains(err.Error(), "15-pdb-78") {
		t.Fatalf("unknown name: %v", err)
	}
	// A file name is one table: sets may share a table (the phase-2
	// bounds of both 5×5 phase-1 sets), never give one name to two.
	seen := map[string]tables.Meta{}
	for _, s := range Sets() {
		for _, tb := range s.Tables {
			if m, ok := seen[tb.Meta.FileName()]; ok && !reflect.DeepEqual(m, tb.Meta) {
				t.Errorf("two tables named %s: %+v and %+v", tb.Meta.FileName(), m, tb.Meta)
			}
			seen[tb.Meta.FileName()] = tb.Meta
		}
	}
	if ts, err := Resolve([]string{"loopover-5x5-p7", "loopover-5x5-p1"}); err != nil || len(ts) != 4 {
		t.Fatalf("both phase-1 sets resolve to %d tables (%v), want 4", len(ts), err)
	}
}

// TestBuildOpenSolve builds the small 15-puzzle set, finds it preferred
// over the missing larger ones and solves a Korf instance with it.
func TestBuildOpenSolve(t *testing.T) {
	dir := t.TempDir()
	set, _ := LookupSet("15-pdb-555")
	if set.Complete(dir) || len(Preferred(dir)) != 0 {
		t.Fatal("empty dir has tables")
	}
	if _, _, err := OpenSliding(dir, set, false); err == nil || !strings.Contains(err.Error(), "solverd tables build 15-pdb-555") {
		t.Fatalf("open missing: %v", err)
	}
	var last, total uint64
	for _, tb := range set.Tables {
		path, m, err := Build(context.Background(), dir, tb, func(done, all uint64) { last, total = done, all })
		if err != nil {
			t.Fatal(err)
		}
		if last != total || total != tb.Meta.Entries {
			t.Errorf("%s: progress ended at %d of %d", tb.Meta.Name, last, total)
		}
		if _, err := tables.Open(path, m, true); err != nil {
			t.Fatal(err)
		}
	}
	pref := Preferred(dir)
	if len(pref) != 1 || pref[0].Name != "15-pdb-555" {
		t.Fatalf("preferred %v", pref)
	}
	// Shared mapping and private huge-page copy search alike.
	for _, private := range []bool{false, true} {
		sv, closer, err := OpenSliding(dir, set, private)
		if err != nil {
			t.Fatal(err)
		}
		// Korf #1, optimal length 57 (internal/instances/testdata/korf100.tsv).
		cells := []uint8{13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2}
		out, err := sv.Solve(cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Optimal || len(out.Path) != 57 {
			t.Fatalf("private %v: outcome %+v", private, out)
		}
		if err := closer(); err != nil {
			t.Fatal(err)
		}
	}
}

// A full distance table goes through the same file machinery as the
// pattern databases: built, refused with its build command while missing,
// opened in place, and equal to the table built in memory.
func TestFullTable(t *testing.T) {
	sp := puzzle.Spec{Kind: puzzle.Loopover, Rows: 3, Cols: 3} // the catalogue's 3x4 takes a minute
	set := fullSet(sp, "test", "instant")
	if _, full := set.kind.(fulltable.Kind); !full || !set.Optional || set.Name != "loopover-3x3-bfs" {
		t.Fatalf("set %+v", set)
	}
	dir := t.TempDir()
	if _, _, err := set.Open(dir, false); err == nil || !strings.Contains(err.Error(), "solverd tables build loopover-3x3-bfs") {
		t.Fatalf("open missing: %v", err)
	}
	if _, m, err := Build(context.Background(), dir, set.Tables[0], nil); err != nil || len(m.Counts) == 0 {
		t.Fatalf("build: %+v %v", m, err)
	}
	if _, closer, err := set.Open(dir, false); err != nil {
		t.Fatal(err)
	} else {
		closer()
	}
	// The table Open serves from: the mapped payload handed to the kind.
	payloads, counts, closer, err := set.mapTables(dir, false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	ft, err := set.kind.(fulltable.Kind).Table(payloads[0], counts[0])
	if err != nil {
		t.Fatal(err)
	}
	mem, err := fulltable.Build(sp)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ft.Counts, mem.Counts) || !slices.Equal(ft.Packed, mem.Packed) {
		t.Fatal("the file's table differs from the one built in memory")
	}
	if _, _, err := OpenSliding(dir, set, false); err == nil {
		t.Error("a full table opened as pattern databases")
	}
	for _, name := range []string{"loopover-3x4-bfs", "loopover-2x6-bfs"} {
		s, ok := LookupSet(name)
		_, full := s.kind.(fulltable.Kind)
		if !ok || !full || s.Tables[0].Meta.Entries != 479001600 {
			t.Errorf("%s: %+v", name, s)
		}
	}
}

// Pattern databases go through the tables file format: written atomically,
// mapped back with the same entries, refused under another identity.
func TestPDBWriteOpen(t *testing.T) {
	dir := t.TempDir()
	pt := pdb.Partition{Name: "t", Prefix: "8-pdb", Rows: 3, Cols: 3, Patterns: [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}}}
	set := slidingSet(pt, "test", "instant")
	var paths []string
	for _, tb := range set.Tables {
		path, _, err := Build(context.Background(), dir, tb, nil)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	if len(paths) != 2 || filepath.Base(paths[0]) != "8-pdb-t-a.g1.tbl" {
		t.Fatalf("paths %v", paths)
	}
	built, _, err := pdb.BuildPartition(context.Background(), pt, pdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opened, closer, err := OpenPartition(dir, pt, true, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range opened {
		if string(opened[i].Data()) != string(built[i].Data()) {
			t.Errorf("table %d: mapped entries differ from a fresh build", i)
		}
		m, err := tables.ReadMeta(paths[i])
		if err != nil || m.Pattern != pdb.PatternString(pt.Patterns[i]) || m.Puzzle != "sliding:3x3" || m.Encoding != "u8" || m.Entries != 3024 {
			t.Errorf("header %+v %v", m, err)
		}
	}
	s, err := pdb.NewSet(opened...)
	if err != nil {
		t.Fatal(err)
	}
	if h := s.Heuristic([]uint8{8, 7, 6, 5, 4, 3, 2, 1, 0}); h == 0 {
		t.Error("mapped set gives 0 on a scrambled board")
	}
	if err := closer(); err != nil {
		t.Error(err)
	}
	// Another pattern under the same name is refused, naming the rebuild.
	foreign := pdb.Partition{Name: "t", Prefix: "8-pdb", Rows: 3, Cols: 3, Patterns: [][]uint8{{1, 2, 3, 5}}}
	_, _, err = OpenPartition(dir, foreign, false, false)
	if !errors.Is(err, tables.ErrBadTable) || !strings.Contains(err.Error(), "solverd tables build 8-pdb-t-a") {
		t.Errorf("foreign pattern: %v", err)
	}
	missing := pdb.Partition{Name: "missing", Prefix: "8-pdb", Rows: 3, Cols: 3, Patterns: [][]uint8{{1}}}
	_, _, err = OpenPartition(dir, missing, false, false)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "solverd tables build 8-pdb-missing-a") {
		t.Errorf("missing table: %v", err)
	}
}

// The 4×4 Loopover tables go through the file format and answer as the
// solver that builds the six-piece table in memory does, state for state:
// the same nodes with the six-piece file, the same lengths with the
// seven- and eight-piece ones (built only with TESSERA_BFS_BIG=1: about 8
// and 90 s of CPU).
func TestLoopover44Table(t *testing.T) {
	mem, err := ida44.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"loopover-4x4-pdb6", "loopover-4x4-pdb7", "loopover-4x4-pdb8"} {
		t.Run(name, func(t *testing.T) {
			big := name != "loopover-4x4-pdb6"
			if big && (os.Getenv("TESSERA_BFS_BIG") == "" || testing.Short()) {
				t.Skip("set TESSERA_BFS_BIG=1 to build " + name)
			}
			dir := t.TempDir()
			set, ok := LookupSet(name)
			if !ok {
				t.Fatalf("no %s set", name)
			}
			if _, m, err := Build(context.Background(), dir, set.Tables[0], nil); err != nil || len(m.Counts) == 0 {
				t.Fatalf("build: %+v %v", m, err)
			}
			alg, closer, err := set.Open(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			defer closer()
			spec := puzzle.Spec{Kind: puzzle.Loopover, Rows: 4, Cols: 4}
			rng := rand.New(rand.NewPCG(44, 4))
			for i := range 20 {
				st := puzzle.RandomWalk(spec, rng, 12)
				a, err := alg.Answer(search.Request{State: st, Goal: st.Goal(), Mode: result.ModeOptimal})
				if err != nil {
					t.Fatal(err)
				}
				out, err := mem.Solve(st.Cells, search.Budget{})
				if err != nil || len(a.Moves) != len(out.Path) || !a.Optimal || (!big && a.Nodes != out.Nodes) {
					t.Fatalf("state %d %s: table answer %d moves %d nodes, in memory %d moves %d nodes (%v)", i, st, len(a.Moves), a.Nodes, len(out.Path), out.Nodes, err)
				}
			}
		})
	}
}

// The two-phase set is complete with its phase-1 table alone, as in
// directories built before the phase-2 file existed: the solver then
// builds the phase-2 bounds in memory. Once the phase-2 file is built it
// is mapped instead, with the same answers node for node; a damaged one
// is refused at start with the command that rebuilds it.
func TestTwoPhaseOptionalTable(t *testing.T) {
	dir := t.TempDir()
	set, ok := LookupSet("loopover-5x5-p1")
	if !ok || len(set.Tables) != 3 || !set.Tables[1].Optional || !set.Tables[2].Optional {
		t.Fatalf("set %+v", set)
	}
	// An all-zero phase-1 table stands in for the real one (seconds and
	// 128 MB to build): admissible, but so weak that only short walks
	// (below) are solved quickly.
	if _, _, err := tables.Write(dir, set.Tables[0].Meta, make([]byte, (set.Tables[0].Meta.Entries+1)/2)); err != nil {
		t.Fatal(err)
	}
	if !set.Complete(dir) || set.Check(dir) != nil {
		t.Fatalf("phase-1 alone: complete %v, check %v", set.Complete(dir), set.Check(dir))
	}
	if got := Preferred(dir); len(got) != 1 || got[0].Name != set.Name {
		t.Fatalf("preferred %v", got)
	}
	spec := puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
	states := []puzzle.State{}
	rng := rand.New(rand.NewPCG(55, 5))
	for range 3 {
		states = append(states, puzzle.RandomWalk(spec, rng, 4))
	}
	answers := func() (out []search.Answer) {
		alg, closer, err := set.Open(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		defer closer()
		for _, st := range states {
			a, err := alg.Answer(search.Request{State: st, Goal: st.Goal(), Mode: result.ModeFast,
				Budget: search.Budget{MaxNodes: 20000, Origin: search.OriginChosen}})
			if err != nil {
				t.Fatal(err)
			}
			if err := puzzle.VerifyMoves(st, a.Moves, st.Goal()); err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
		return out
	}
	inMemory := answers()
	if _, _, err := Build(context.Background(), dir, set.Tables[1], nil); err != nil {
		t.Fatal(err)
	}
	mapped := answers()
	for i := range states {
		a, b := inMemory[i], mapped[i]
		if len(a.Moves) != len(b.Moves) || a.Nodes != b.Nodes || a.LowerBound != b.LowerBound {
			t.Fatalf("state %d: in memory %d moves %d nodes, mapped %d moves %d nodes", i, len(a.Moves), a.Nodes, len(b.Moves), b.Nodes)
		}
	}
	// A phase-2 file of another layout is refused, naming the rebuild.
	bad := set.Tables[1].Meta
	bad.Pattern = "arm only"
	if err := os.Remove(set.Tables[1].Path(dir)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tables.Write(dir, bad, make([]byte, set.Tables[1].Meta.Entries)); err != nil {
		t.Fatal(err)
	}
	if err := set.Check(dir); !errors.Is(err, tables.ErrBadTable) || !strings.Contains(err.Error(), "solverd tables build loopover-5x5-p2") {
		t.Fatalf("foreign phase-2 table: %v", err)
	}
	// A right header over a wrong payload is refused when mapped, naming
	// the phase-2 file and the forced build that replaces it.
	if err := os.Remove(filepath.Join(dir, bad.FileName())); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tables.Write(dir, set.Tables[1].Meta, bytes.Repeat([]byte{3}, int(set.Tables[1].Meta.Entries))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := set.Open(dir, false); !errors.Is(err, puzzle.ErrMalformed) || !strings.Contains(err.Error(), "solverd tables build --force loopover-5x5-p2") {
		t.Fatalf("bad phase-2 payload: %v", err)
	}
	// So is a bad eight-piece phase-2 payload, naming that file.
	if err := os.Remove(set.Tables[1].Path(dir)); err != nil {
		t.Fatal(err)
	}
	a8 := set.Tables[2].Meta
	if _, _, err := tables.Write(dir, a8, bytes.Repeat([]byte{0x33}, int(a8.Entries+1)/2)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := set.Open(dir, false); !errors.Is(err, puzzle.ErrMalformed) || !strings.Contains(err.Error(), "solverd tables build --force loopover-5x5-arm8") {
		t.Fatalf("bad eight-piece payload: %v", err)
	}
}

// Sets of one puzzle that serve different modes are each preferred: the
// 5×5 Loopover two-phase tables answer fast mode and its walking distance
// optimal mode, while a second 15-puzzle set adds nothing to the first.
func TestPreferredByRole(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"loopover-5x5-p1", "loopover-5x5-p7", "loopover-5x5-wd", "15-pdb-78", "15-pdb-663"} {
		set, _ := LookupSet(name)
		for _, tb := range set.Tables {
			if err := os.WriteFile(tb.Path(dir), nil, 0o644); err != nil { // presence is all Preferred reads
				t.Fatal(err)
			}
		}
	}
	var got []string
	for _, s := range Preferred(dir) {
		got = append(got, s.Name)
	}
	// The seven-piece phase-1 set serves the same role as the six-piece
	// one and comes first: where both are built, it is the one opened.
	if want := []string{"15-pdb-78", "loopover-5x5-p7", "loopover-5x5-wd"}; !slices.Equal(got, want) {
		t.Fatalf("preferred %v, want %v", got, want)
	}
	wd, _ := LookupSet("loopover-5x5-wd")
	p1, _ := LookupSet("loopover-5x5-p1")
	sl, _ := LookupSet("15-pdb-78")
	if !slices.Equal(wd.Roles(), []string{"loopover:5x5 optimal"}) || !slices.Equal(p1.Roles(), []string{"loopover:5x5 fast"}) ||
		!slices.Equal(sl.Roles(), []string{"sliding:4x4 optimal", "sliding:4x4 fast"}) {
		t.Fatalf("roles %v %v %v", wd.Roles(), p1.Roles(), sl.Roles())
	}
}

// The 5×5 walking-distance set answers optimal-mode 5×5 Loopover requests
// from its mapped table. A table of 1 everywhere but 0 at the goal stands
// in for the real one (minutes to build; TestWD55Table builds it): weak
// but admissible, so short walks come back optimal.
func TestWD55Wiring(t *testing.T) {
	dir := t.TempDir()
	set, _ := LookupSet("loopover-5x5-wd")
	m := set.Tables[0].Meta
	weak := bytes.Repeat([]byte{1}, int(m.Entries))
	weak[loopover.WDGoalIndex(5, 5)] = 0
	if _, _, err := tables.Write(dir, m, weak); err != nil {
		t.Fatal(err)
	}
	spec := puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
	if !set.Serves(spec, result.ModeOptimal) || set.Serves(spec, result.ModeFast) {
		t.Fatal("the set should serve 5x5 optimal mode only")
	}
	compareWD55(t, dir, set, 4, 20)
}

// TestWD55Table builds the real table (about 2 minutes on 2 cores, 380 MB:
// run with TESSERA_BFS_BIG=1) and checks its answers against the EMD
// search's on random walks.
func TestWD55Table(t *testing.T) {
	if os.Getenv("TESSERA_BFS_BIG") == "" || testing.Short() {
		t.Skip("set TESSERA_BFS_BIG=1 to build the 5x5 walking-distance table")
	}
	dir := t.TempDir()
	set, _ := LookupSet("loopover-5x5-wd")
	if _, _, err := Build(context.Background(), dir, set.Tables[0], nil); err != nil {
		t.Fatal(err)
	}
	compareWD55(t, dir, set, 12, 20)
}

// compareWD55 solves n random walks of the given length with the set's
// solver and with the EMD search: same optimal lengths, replay-verified.
func compareWD55(t *testing.T, dir string, set Set, walk, n int) {
	alg, closer, err := set.Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	emd, err := loopover.NewEMDSolver(5, 5)
	if err != nil {
		t.Fatal(err)
	}
	spec := puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
	rng := rand.New(rand.NewPCG(5, uint64(walk)))
	for i := range n {
		st := puzzle.RandomWalk(spec, rng, walk)
		a, err := alg.Answer(search.Request{State: st, Goal: st.Goal(), Mode: result.ModeOptimal})
		if err != nil {
			t.Fatal(err)
		}
		if err := puzzle.VerifyMoves(st, a.Moves, st.Goal()); err != nil {
			t.Fatal(err)
		}
		out, err := emd.Solve(st.Cells, search.Budget{})
		if err != nil || !a.Optimal || len(a.Moves) != len(out.Path) || a.Solver != "ida*(loopover-wd)" {
			t.Fatalf("walk %d: %d moves (optimal %v, %s), EMD %d (%v)", i, len(a.Moves), a.Optimal, a.Solver, len(out.Path), err)
		}
	}
}

// Preferred is, for each role with a set, the best set complete in dir.
// Sets are in catalogue order.
func Preferred(dir string) []Set {
	out, _ := PerRole(Sets(), func(_ int, s Set) (bool, error) { return s.Complete(dir), nil })
	return out
}

// OpenPartition maps every table of pt from dir (with verify, checking
// each payload's checksum: a full read) and returns the pattern databases
// over them and the closer that unmaps them. A missing, foreign or corrupt
// file is refused with the command that rebuilds it. With private the
// tables are copied into the process's own huge-page memory
// (tables.Table.Private): faster search, no sharing.
func OpenPartition(dir string, pt pdb.Partition, verify, private bool) ([]*pdb.PDB, func() error, error) {
	s := slidingSet(pt, "", "")
	payloads, _, closer, err := s.mapTables(dir, verify, private)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*pdb.PDB, len(payloads))
	for i, data := range payloads {
		if out[i], err = pdb.FromData(pt.Rows, pt.Cols, pt.Patterns[i], data); err != nil {
			closer()
			return nil, nil, err
		}
	}
	return out, closer, nil
}
