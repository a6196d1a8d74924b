package catalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/loopover/ida44"
	"github.com/tessera-solver/tessera/internal/loopover/ida55"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/tables"
)

// stand-ins for the sets too big to build in a test: the same kind (the
// same identity, build, serve and open code) over a smaller board or
// fewer pieces, or the same tables with a capped BFS. A set not listed
// runs as it is; TestConformance fails on a set it has no row for, so a
// new set cannot skip the suite.
var standIns = map[string]struct {
	set func() Set
	why string
}{
	"15-pdb-78":   {eightPDB, "1.7 GB and 1.5 min to build: the same pdb.Kind over the 8-puzzle"},
	"15-pdb-663":  {eightPDB, "8 s to build: the same pdb.Kind over the 8-puzzle"},
	"24-pdb-6666": {eightPDB, "3 min and 0.75 GB a table: the same pdb.Kind over the 8-puzzle"},
	"loopover-3x4-bfs": {func() Set { return fullSet(puzzle.Spec{Kind: puzzle.Loopover, Rows: 2, Cols: 4}, "", "") },
		"a minute to build: the same fulltable.Kind over 2x4 (and, transposed, 4x2)"},
	"loopover-2x6-bfs": {func() Set { return fullSet(puzzle.Spec{Kind: puzzle.Loopover, Rows: 2, Cols: 4}, "", "") },
		"a minute to build: the same fulltable.Kind over 2x4 (and, transposed, 4x2)"},
	"loopover-4x4-pdb8": {func() Set { return newSet(ida44.Kind{Pieces: 6}, "", true, "", "") },
		"1.5 min of CPU to build: the same ida44.Kind with six pieces"},
	"loopover-4x4-pdb7": {func() Set { return newSet(ida44.Kind{Pieces: 6}, "", true, "", "") },
		"8 s of CPU to build: the same ida44.Kind with six pieces"},
	"loopover-5x5-p7": {capped6, "1.2 GB even capped: the same twophase.Kind, six pieces, BFS capped at 4 levels"},
	"loopover-5x5-p1": {capped6, "a minute to build: the same tables, BFS capped at 4 levels"},
	"loopover-5x5-wd": {func() Set { return newSet(ida55.Kind{Side: 4}, "", true, "", "") },
		"2 min and 380 MB to build: the same ida55.Kind over 4x4"},
}

func eightPDB() Set {
	return slidingSet(pdb.Partition{Name: "conf", Prefix: "8-pdb", Rows: 3, Cols: 3,
		Patterns: [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}}}, "", "")
}

func capped6() Set {
	return newSet(twophase.Kind{Pieces: 6, Levels: 4}, "", true, "", "", "")
}

// TestConformance runs every set of the catalogue (or its stand-in)
// through build → write → check → open (shared, then a private copy) →
// serve → replay: the one contract every table kind keeps (Litestream's
// replica-client suite, River's driver suite).
func TestConformance(t *testing.T) {
	passed := map[string]bool{} // stand-ins shared by several sets run once
	for _, s := range Sets() {
		t.Run(s.Name, func(t *testing.T) {
			run := s
			if in, ok := standIns[s.Name]; ok {
				run = in.set()
				t.Logf("stand-in %s: %s", run.Name, in.why)
			} else if len(s.Tables) > 0 && s.Tables[0].Meta.Entries > 8<<20 {
				t.Fatalf("%s has %d entries and no stand-in: add one to standIns", s.Name, s.Tables[0].Meta.Entries)
			}
			if !passed[run.Name] {
				conform(t, run)
				passed[run.Name] = !t.Failed()
			}
		})
	}
}

// TestIdentitiesPinned pins every table's header identity (name,
// puzzle, pattern, encoding, entries, generator, file name), its
// optionality and build memory, and each set's roles: a kind whose
// described identity drifts would refuse every file already built, or
// worse, accept one of another layout.
func TestIdentitiesPinned(t *testing.T) {
	var b strings.Builder
	for _, s := range Sets() {
		fmt.Fprintf(&b, "set %s puzzle=%s optional=%v roles=%s\n", s.Name, s.Puzzle, s.Optional, strings.Join(s.Roles(), ","))
		for _, tb := range s.Tables {
			m := tb.Meta
			fmt.Fprintf(&b, "  %s puzzle=%s pattern=%q encoding=%s entries=%d generator=%d optional=%v buildmem=%d\n",
				m.FileName(), m.Puzzle, m.Pattern, m.Encoding, m.Entries, m.Generator, tb.Optional, tb.BuildMemory())
		}
	}
	want, err := os.ReadFile("testdata/identities.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Fatalf("table identities drifted from testdata/identities.txt:\n%s", got)
	}
}

func conform(t *testing.T, s Set) {
	dir := t.TempDir()
	ctx := context.Background()
	// Missing: refused at the check and the open, naming the build.
	if err := s.Check(dir); err == nil || !strings.Contains(err.Error(), "solverd tables build") {
		t.Fatalf("check of a missing set: %v", err)
	}
	if _, _, err := s.Open(dir, false); err == nil || !strings.Contains(err.Error(), s.BuildCommand()) {
		t.Fatalf("open of a missing set: %v", err)
	}
	// Build and write every table, optional ones too; the file carries
	// the identity the kind describes, and its checksum holds.
	var paths []string
	for _, tb := range s.Tables {
		path, m, err := Build(ctx, dir, tb, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tables.ReadMeta(path)
		if err != nil {
			t.Fatal(err)
		}
		if id := metaOf(s.kind.Tables()[tb.index]); got.Name != id.Name || got.Puzzle != id.Puzzle || got.Pattern != id.Pattern ||
			got.Encoding != id.Encoding || got.Entries != id.Entries || got.Generator != id.Generator || path != tb.Path(dir) {
			t.Fatalf("%s: header %+v, kind describes %+v", path, got, id)
		}
		f, err := tables.Open(path, m, true)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		paths = append(paths, path)
	}
	if !s.Complete(dir) {
		t.Fatal("built set is not complete")
	}
	if err := s.Check(dir); err != nil {
		t.Fatal(err)
	}
	// Shared: the files stay mapped while the solver lives. Private: the
	// open honours the option for every kind, so no file stays mapped.
	var shared []search.Answer
	for _, private := range []bool{false, true} {
		alg, closer, err := s.Open(dir, private)
		if err != nil {
			t.Fatal(err)
		}
		mapped := mappedFiles(t)
		for _, p := range paths {
			if mapped[p] == private {
				t.Fatalf("private %v: %s mapped %v", private, p, mapped[p])
			}
		}
		answers := serve(t, s, alg)
		if err := closer(); err != nil {
			t.Fatal(err)
		}
		if !private {
			shared = answers
			continue
		}
		for i := range answers {
			if a, b := shared[i], answers[i]; len(a.Moves) != len(b.Moves) || a.Nodes != b.Nodes {
				t.Fatalf("state %d: shared %d moves %d nodes, private %d moves %d nodes", i, len(a.Moves), a.Nodes, len(b.Moves), b.Nodes)
			}
		}
	}
}

// serve answers short random walks of every board and mode the set
// serves (a Loopover full table serves the transposed board too) and
// replays each answer to the goal.
func serve(t *testing.T, s Set, alg search.Algorithm) []search.Answer {
	spec, err := puzzle.ParseSpec(s.Puzzle)
	if err != nil {
		t.Fatal(err)
	}
	specs := []puzzle.Spec{spec}
	if tr := (puzzle.Spec{Kind: spec.Kind, Rows: spec.Cols, Cols: spec.Rows}); tr != spec {
		specs = append(specs, tr)
	}
	var out []search.Answer
	served := 0
	for _, sp := range specs {
		for _, mode := range []result.Mode{result.ModeOptimal, result.ModeFast} {
			if !s.Serves(sp, mode) {
				continue
			}
			served++
			rng := rand.New(rand.NewPCG(uint64(sp.Rows), uint64(sp.Cols)))
			for range 3 {
				st := puzzle.RandomWalk(sp, rng, 5)
				// A node budget, not the fast window's clock, ends a fast
				// search: the shared and private answers must be equal.
				req := search.Request{State: st, Goal: st.Goal(), Mode: mode}
				if mode == result.ModeFast {
					req.Budget = search.Budget{MaxNodes: 20000, Origin: search.OriginChosen}
				}
				a, err := alg.Answer(req)
				if err != nil {
					t.Fatalf("%s %s %s: %v", sp, mode, st, err)
				}
				if err := puzzle.VerifyMoves(st, a.Moves, st.Goal()); err != nil {
					t.Fatalf("%s %s %s: answer %v does not replay: %v", sp, mode, st, a.Moves, err)
				}
				if mode == result.ModeOptimal && (!a.Optimal || len(a.Moves) > 5) {
					t.Fatalf("%s %s: %d moves for a 5-move walk, optimal %v", sp, st, len(a.Moves), a.Optimal)
				}
				out = append(out, a)
			}
		}
	}
	if served == 0 || !slices.ContainsFunc(s.Roles(), func(r string) bool { return strings.HasPrefix(r, spec.String()+" ") }) {
		t.Fatalf("set %s serves no role of its puzzle", s.Name)
	}
	return out
}

// mappedFiles is the set of files this process maps (/proc/self/maps).
func mappedFiles(t *testing.T) map[string]bool {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatalf("the private-copy check reads /proc/self/maps: %v", err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 6 {
			out[f[5]] = true
		}
	}
	return out
}

// The stand-ins keep the code under test: each is the same kind type as
// the set it replaces.
func TestStandInsAreTheSameKind(t *testing.T) {
	for name, in := range standIns {
		s, ok := LookupSet(name)
		if !ok {
			t.Fatalf("stand-in for unknown set %s", name)
		}
		if got, want := fmt.Sprintf("%T", in.set().kind), fmt.Sprintf("%T", s.kind); got != want {
			t.Errorf("%s: stand-in kind %s, want %s", name, got, want)
		}
	}
}
