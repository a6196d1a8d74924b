// Package catalog names every precomputed table this version of tessera
// can build, groups them into the sets a solver loads together, and
// builds and opens them by name. It is what `solverd tables build NAME`
// and the solver's start-up read; the builders themselves live beside
// their puzzles (internal/sliding/pdb for sliding pattern databases).
package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/tables"
)

// Table is one buildable table.
type Table struct {
	Meta tables.Meta // identity; Bytes, SHA256 and BuildMS are unknown until built
	Set  string      // the set it belongs to
	// Cost is a rough figure for the operator before a long build.
	Cost string

	// Optional tables only spare the solver work it can do in memory:
	// a set is complete without them, and uses them when present.
	Optional bool

	kind  kind
	index int // the table's place in its set
}

// Set is a group of tables loaded together: the disjoint patterns of one
// additive heuristic, or a single table.
type Set struct {
	Name   string // e.g. "15-pdb-78"
	Puzzle string // canonical spec, e.g. "sliding:4x4"
	Tables []Table
	// About is one line for `tables list --all`.
	About string
	// Optional sets only speed up a puzzle that solves well without
	// them: no start-up notice when they are missing.
	Optional bool

	kind kind
}

// kind is what the catalogue needs of a family of tables: how to build one
// table's payload, what the builder holds, which solves a loaded set
// serves and how to open it into a solver. Each family implements it once
// (pdbKind, fullKind, twoPhaseKind), so nothing else branches on families.
type kind interface {
	// build computes table i of the set: its payload and, for tables whose
	// header carries one, the depth histogram.
	build(ctx context.Context, i int, progress Progress) (payload []byte, counts []int64, err error)
	// buildMemory is the memory the builder of table i holds (bytes).
	buildMemory(i int, m tables.Meta) uint64
	// serves reports whether the loaded set answers spec in mode.
	serves(spec puzzle.Spec, mode result.Mode) bool
	// open maps the set's tables from dir and returns the solver over them
	// and the closer that unmaps them.
	open(dir string, s Set, private bool) (search.Algorithm, func() error, error)
}

// Sets is every known set, best first within each puzzle: the first one
// whose files are all present is the one a solver picks by default.
func Sets() []Set {
	return []Set{
		slidingSet(pdb.Partition78, "7-8 additive PDB + reflection: the fastest optimal 15-puzzle heuristic", "≈1.5 min on 2 cores, 1.7 GB while building"),
		slidingSet(pdb.Partition663, "6-6-3 additive PDB + reflection: low memory (12 MB)", "≈8 s"),
		slidingSet(pdb.Partition555, "5-5-5 additive PDB + reflection: smallest (1.6 MB)", "≈1 s"),
		slidingSet(pdb.Partition6666, "6-6-6-6 additive PDB + reflection for the 24-puzzle", "≈45 s per table on 2 cores, 0.75 GB while building"),
		fullSet(puzzle.Spec{Kind: puzzle.Loopover, Rows: 3, Cols: 4}, "every 3x4 (and, transposed, 4x3) Loopover distance: optimal answers by descent", "≈1 min on 2 cores, 240 MB"),
		fullSet(puzzle.Spec{Kind: puzzle.Loopover, Rows: 2, Cols: 6}, "every 2x6 (and, transposed, 6x2) Loopover distance: optimal answers by descent", "≈1 min on 2 cores, 240 MB"),
		loopover44Set(8, "4x4 Loopover eight-piece PDB (rows 1-2): 30 times fewer nodes than the six-piece one, 260 MB", "≈4 min, 2.7 GB while building"),
		loopover44Set(7, "4x4 Loopover seven-piece PDB: five times fewer nodes than the six-piece one, 29 MB", "≈25 s, 0.6 GB while building"),
		loopover44Set(6, "4x4 Loopover six-piece PDB: the first 4x4 state of a process is answered without building it", "≈1 s, 43 MB while building"),
		twoPhaseSet(7),
		twoPhaseSet(6),
		wd55Set(),
	}
}

// wd55Set is the walking-distance table of the 5×5 Loopover optimal
// search (252 MB: 126^4 indices, 22 M patterns). Without it that search
// uses the enhanced Manhattan distance, which prunes about 0.75 moves less
// per axis.
func wd55Set() Set {
	const name = "loopover-5x5-wd"
	spec := puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
	m := tables.Meta{Name: name, Puzzle: spec.String(), Pattern: "walking distance", Encoding: "u8",
		Entries: loopover.WD55Entries, Generator: loopover.WD55Generator}
	k := wd55Kind{}
	return Set{Name: name, Puzzle: spec.String(), Optional: true, kind: k,
		About:  "5x5 Loopover walking distance: optimal 5x5 search with about 10x fewer nodes than without it",
		Tables: []Table{{Meta: m, Set: name, Cost: "≈2 min on 2 cores, 380 MB while building", kind: k}}}
}

// loopover44Set is a pattern database of the 4×4 Loopover solver over
// its first k pieces: six (2.9 MB), with which a process's first 4×4
// state is answered without building the table (about a second), or seven
// (29 MB) or eight (two rows, 260 MB), which the solver never builds
// itself.
func loopover44Set(k int, about, cost string) Set {
	name := fmt.Sprintf("loopover-4x4-pdb%d", k)
	spec := puzzle.Spec{Kind: puzzle.Loopover, Rows: 4, Cols: 4}
	entries := uint64(loopover.PDB44Entries)
	switch k {
	case 7:
		entries = loopover.PDB447Entries
	case 8:
		entries = loopover.PDB448Entries
	}
	m := tables.Meta{Name: name, Puzzle: spec.String(), Pattern: fmt.Sprintf("pieces 1-%d", k), Encoding: "u4",
		Entries: entries, Generator: loopover.PDB44Generator}
	kd := loopover44Kind{k}
	return Set{Name: name, Puzzle: spec.String(), Optional: true, kind: kd, About: about,
		Tables: []Table{{Meta: m, Set: name, Cost: cost, kind: kd}}}
}

// twoPhaseSet is the tables of the 5×5 Loopover two-phase solver: a
// phase-1 pattern database and, optional so that a directory holding only
// that one stays complete, the phase-2 bounds (13 MB), which the solver
// otherwise builds at its first request. k = 6 is the seed text's
// six-piece table (64 MB); k = 7 adds the block's bottom-left piece
// (1.2 GB), listed first so that it is preferred where both are built.
// Without either the solver uses small in-memory bounds and answers about
// 2.6 moves longer.
func twoPhaseSet(k int) Set {
	spec := puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
	name, cost := "loopover-5x5-p1", "≈1 min on 2 cores, 64 MB"
	p1 := tables.Meta{Name: name, Puzzle: spec.String(), Pattern: twophase.Phase1Pattern, Encoding: twophase.Phase1Encoding,
		Entries: twophase.Phase1Entries, Generator: twophase.Phase1Generator}
	about := "5x5 Loopover two-phase: six-piece phase-1 PDB (27.0 instead of 29.6 moves per random state in 300 ms) and the phase-2 bounds"
	if k == 7 {
		name, cost = "loopover-5x5-p7", "≈5 min on 2 cores, 1.2 GB"
		p1 = tables.Meta{Name: name, Puzzle: spec.String(), Pattern: twophase.Phase7Pattern, Encoding: twophase.Phase1Encoding,
			Entries: twophase.Phase7Entries, Generator: twophase.Phase7Generator}
		about = "5x5 Loopover two-phase: seven-piece phase-1 PDB (about half a move shorter than the six-piece one in 300 ms; 1.2 GB) and the phase-2 bounds"
	}
	p2 := tables.Meta{Name: "loopover-5x5-p2", Puzzle: spec.String(), Pattern: twophase.Phase2Pattern, Encoding: twophase.Phase2Encoding,
		Entries: twophase.Phase2Entries, Generator: twophase.Phase2Generator}
	kd := twoPhaseKind{k}
	return Set{Name: name, Puzzle: spec.String(), Optional: true, kind: kd, About: about,
		Tables: []Table{
			{Meta: p1, Set: name, Cost: cost, kind: kd},
			{Meta: p2, Set: name, Cost: "≈1 s, 13 MB", kind: kd, index: 1, Optional: true},
		}}
}

// fullSet is the one-table set of a distance table over every state of a
// board, named like "loopover-3x4-bfs".
func fullSet(spec puzzle.Spec, about, cost string) Set {
	name := fmt.Sprintf("%s-%dx%d-bfs", spec.Kind, spec.Rows, spec.Cols)
	entries, err := fulltable.States(spec)
	if err != nil {
		panic(err) // the catalogue lists supported boards only
	}
	m := tables.Meta{Name: name, Puzzle: spec.String(), Pattern: "all", Encoding: "u4", Entries: entries, Generator: fullGenerator}
	k := fullKind{spec}
	return Set{Name: name, Puzzle: spec.String(), About: about, Optional: true, kind: k,
		Tables: []Table{{Meta: m, Set: name, Cost: cost, kind: k}}}
}

// fullGenerator versions the full-table builder (internal/fulltable): bump
// it when the index or the entries change meaning.
const fullGenerator = 1

func slidingSet(pt pdb.Partition, about, cost string) Set {
	k := pdbKind{pt}
	s := Set{Name: pt.Prefix + "-" + pt.Name, About: about, kind: k}
	for i, tiles := range pt.Patterns {
		m := pdbMeta(pt.TableName(i), pt.Rows, pt.Cols, tiles)
		s.Puzzle = m.Puzzle
		s.Tables = append(s.Tables, Table{Meta: m, Set: s.Name, Cost: cost, kind: k, index: i})
	}
	return s
}

// Resolve turns table or set names into tables, in catalogue order and
// without repeats. An unknown name is an error that lists the known ones.
func Resolve(names []string) ([]Table, error) {
	var out []Table
	seen := map[string]bool{}
	add := func(t Table) {
		if !seen[t.Meta.Name] {
			seen[t.Meta.Name] = true
			out = append(out, t)
		}
	}
	for _, name := range names {
		found := false
		for _, s := range Sets() {
			if s.Name == name {
				found = true
				for _, t := range s.Tables {
					add(t)
				}
				continue
			}
			for _, t := range s.Tables {
				if t.Meta.Name == name {
					found = true
					add(t)
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown table %q; known sets: %s", name, strings.Join(SetNames(), ", "))
		}
	}
	return out, nil
}

// SetNames lists the known set names.
func SetNames() []string {
	var names []string
	for _, s := range Sets() {
		names = append(names, s.Name)
	}
	return names
}

// LookupSet finds a set by name.
func LookupSet(name string) (Set, bool) {
	for _, s := range Sets() {
		if s.Name == name {
			return s, true
		}
	}
	return Set{}, false
}

// Path is where t lives in dir.
func (t Table) Path(dir string) string { return filepath.Join(dir, t.Meta.FileName()) }

// Present reports whether t's file exists in dir (it is not opened).
func (t Table) Present(dir string) bool {
	_, err := os.Stat(t.Path(dir))
	return err == nil
}

// Progress reports a build: done of total units (placements valued).
type Progress func(done, total uint64)

// Build builds t and writes it into dir atomically, returning the path and
// the stored header.
func Build(ctx context.Context, dir string, t Table, progress Progress) (string, tables.Meta, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", tables.Meta{}, fmt.Errorf("build %s: %w", t.Meta.Name, err)
	}
	t0 := time.Now()
	payload, counts, err := t.kind.build(ctx, t.index, progress)
	if err != nil {
		return "", tables.Meta{}, fmt.Errorf("build %s: %w", t.Meta.Name, err)
	}
	m := t.Meta
	m.BuildMS, m.Counts = time.Since(t0).Milliseconds(), counts
	path, m, err := tables.Write(dir, m, payload)
	if err != nil {
		return "", m, fmt.Errorf("build %s: %w", t.Meta.Name, err)
	}
	if progress != nil {
		progress(m.Entries, m.Entries)
	}
	return path, m, nil
}

// Complete reports whether every table of s but the optional ones is
// present in dir.
func (s Set) Complete(dir string) bool {
	for _, t := range s.Tables {
		if !t.Optional && !t.Present(dir) {
			return false
		}
	}
	return true
}

// BuildCommand is what an operator runs to build s.
func (s Set) BuildCommand() string { return "solverd tables build " + s.Name }

// Check reads the headers of s's tables in dir (not their payloads) and
// refuses a missing, foreign or damaged file with the command that
// builds it: what a solver checks at start before it maps the tables on
// first use. An optional table may be missing, not damaged.
func (s Set) Check(dir string) error {
	for _, t := range s.Tables {
		if t.Optional && !t.Present(dir) {
			continue
		}
		if err := tables.Check(t.Path(dir), t.Meta); err != nil {
			return fmt.Errorf("table set %s: %w", s.Name, err)
		}
	}
	return nil
}

// Serves reports whether s, loaded, answers puzzle spec in mode.
func (s Set) Serves(spec puzzle.Spec, mode result.Mode) bool { return s.kind.serves(spec, mode) }

// Open maps the tables of s from dir (checking their headers, not their
// checksums: `tables verify` does that) and returns the solver over them.
// A missing or mismatching file is refused with the command that builds
// it. With private the tables are copied into the process's own huge-page
// memory (tables.Table.Private): faster search, no sharing. Call the
// returned closer when the solver is no longer used.
func (s Set) Open(dir string, private bool) (search.Algorithm, func() error, error) {
	return s.kind.open(dir, s, private)
}

// OpenSliding is Open of a pattern-database set, typed for the benchmarks
// that drive the search directly.
func OpenSliding(dir string, s Set, private bool) (*pdb.Solver, func() error, error) {
	k, ok := s.kind.(pdbKind)
	if !ok {
		return nil, nil, fmt.Errorf("table set %s is not a sliding-puzzle set", s.Name)
	}
	return k.openSolver(dir, s, private)
}

// Roles are what s answers: its puzzle in each mode it serves, e.g.
// "loopover:5x5 fast". Sets of one puzzle may serve different modes (the
// 5×5 Loopover two-phase tables and its walking distance); the best set of
// a role is the first in catalogue order.
func (s Set) Roles() []string {
	spec, err := puzzle.ParseSpec(s.Puzzle)
	if err != nil {
		panic(err) // the catalogue names canonical specs
	}
	var out []string
	for _, mode := range []result.Mode{result.ModeOptimal, result.ModeFast} {
		if s.Serves(spec, mode) {
			out = append(out, s.Puzzle+" "+string(mode))
		}
	}
	return out
}

// Preferred is, for each role with a set, the best set complete in dir.
// Sets are in catalogue order.
func Preferred(dir string) []Set {
	var out []Set
	done := map[string]bool{}
	for _, s := range Sets() {
		if !s.Complete(dir) {
			continue
		}
		fresh := false
		for _, r := range s.Roles() {
			fresh = fresh || !done[r]
			done[r] = true
		}
		if fresh {
			out = append(out, s)
		}
	}
	return out
}

// BuildMemory is the memory the builder of t holds (bytes).
func (t Table) BuildMemory() uint64 { return t.kind.buildMemory(t.index, t.Meta) }
