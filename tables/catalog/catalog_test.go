package catalog

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover"
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
	seen := map[string]bool{}
	for _, s := range Sets() {
		for _, tb := range s.Tables {
			if seen[tb.Meta.FileName()] {
				t.Errorf("two tables named %s", tb.Meta.FileName())
			}
			seen[tb.Meta.FileName()] = true
		}
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
	if _, full := set.kind.(fullKind); !full || !set.Optional || set.Name != "loopover-3x3-bfs" {
		t.Fatalf("set %+v", set)
	}
	dir := t.TempDir()
	if _, _, err := set.Open(dir, false); err == nil || !strings.Contains(err.Error(), "solverd tables build loopover-3x3-bfs") {
		t.Fatalf("open missing: %v", err)
	}
	if _, m, err := Build(context.Background(), dir, set.Tables[0], nil); err != nil || len(m.Counts) == 0 {
		t.Fatalf("build: %+v %v", m, err)
	}
	alg, closer, err := set.Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	ft := alg.(transposingTable).t
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
		_, full := s.kind.(fullKind)
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
// seven- and eight-piece ones (built only with TESSERA_BFS_BIG=1: about 25
// s and 0.5 GB, 4 min and 2.7 GB).
func TestLoopover44Table(t *testing.T) {
	mem, err := loopover.NewSolver44()
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
