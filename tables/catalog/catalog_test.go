package catalog

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
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
