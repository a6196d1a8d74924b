// Package catalog names every precomputed table this version of tessera
// can build, groups them into the sets a solver loads together, and
// builds and opens them by name. It is what `solverd tables build NAME`
// and the solver's start-up read. It keeps only the list, one open for
// every kind and the one "best set per role" rule (PerRole): each kind
// (search.TableKind: identity, build, serve) is described next to its
// solver, in the core, which does no I/O.
package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover/ida44"
	"github.com/tessera-solver/tessera/internal/loopover/ida55"
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

	kind        search.TableKind
	index       int // the table's place in its set
	buildMemory uint64
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

	kind search.TableKind
}

// Sets is every known set, best first within each puzzle and mode: the
// first one whose files are all present is the one a solver picks by
// default (PerRole). Each kind is described next to its solver
// (search.TableKind); the catalogue adds only names, costs and advice.
func Sets() []Set {
	return []Set{
		slidingSet(pdb.Partition78, "7-8 additive PDB + reflection: the fastest optimal 15-puzzle heuristic", "≈1.5 min on 2 cores, 1.7 GB while building"),
		slidingSet(pdb.Partition663, "6-6-3 additive PDB + reflection: low memory (12 MB)", "≈8 s"),
		slidingSet(pdb.Partition555, "5-5-5 additive PDB + reflection: smallest (1.6 MB)", "≈1 s"),
		slidingSet(pdb.Partition6666, "6-6-6-6 additive PDB + reflection for the 24-puzzle", "≈45 s per table on 2 cores, 0.75 GB while building"),
		fullSet(puzzle.Spec{Kind: puzzle.Loopover, Rows: 3, Cols: 4}, "every 3x4 (and, transposed, 4x3) Loopover distance: optimal answers by descent", "≈1 min on 2 cores, 240 MB"),
		fullSet(puzzle.Spec{Kind: puzzle.Loopover, Rows: 2, Cols: 6}, "every 2x6 (and, transposed, 6x2) Loopover distance: optimal answers by descent", "≈1 min on 2 cores, 240 MB"),
		newSet(ida44.Kind{Pieces: 8}, "", true, "4x4 Loopover eight-piece PDB (rows 1-2): 30 times fewer nodes than the six-piece one, 260 MB", "≈1 min on 2 cores, 260 MB while building"),
		newSet(ida44.Kind{Pieces: 7}, "", true, "4x4 Loopover seven-piece PDB: five times fewer nodes than the six-piece one, 29 MB", "≈5 s on 2 cores, 29 MB while building"),
		newSet(ida44.Kind{Pieces: 6}, "", true, "4x4 Loopover six-piece PDB: the first 4x4 state of a process is answered without building it", "under a second, 3 MB while building"),
		// The seven-piece phase-1 table is listed first, so that it is
		// preferred where both are built. Without either the solver uses
		// small in-memory bounds and answers about 2.6 moves longer.
		newSet(twophase.Kind{Pieces: 7}, "", true, "5x5 Loopover two-phase: seven-piece phase-1 PDB (about half a move shorter than the six-piece one in 300 ms; 1.2 GB) and the phase-2 bounds (the eight-piece one about 0.3 moves shorter again)",
			"≈5 min on 2 cores, 1.2 GB", "≈1 s, 13 MB", "≈20 s on 2 cores, 260 MB (270 MB while building)"),
		newSet(twophase.Kind{Pieces: 6}, "", true, "5x5 Loopover two-phase: six-piece phase-1 PDB (27.0 instead of 29.6 moves per random state in 300 ms) and the phase-2 bounds",
			"≈1 min on 2 cores, 64 MB", "≈1 s, 13 MB", "≈20 s on 2 cores, 260 MB (270 MB while building)"),
		// Without it the 5×5 optimal search uses the enhanced Manhattan
		// distance, which prunes about 0.75 moves less per axis.
		// Its second table is the two-phase set's seven-piece one: where
		// that is built, the optimal search reads it too.
		newSet(ida55.Kind{Side: 5}, "", true, "5x5 Loopover walking distance: optimal 5x5 search with about 10x fewer nodes than without it (and, with the seven-piece table loopover-5x5-p7, fewer again)",
			"≈2 min on 2 cores, 380 MB while building", "≈5 min on 2 cores, 1.2 GB"),
	}
}

// newSet lists kind's tables under name (its first table's name when
// empty). costs are per table; the last one stands for the rest.
func newSet(kind search.TableKind, name string, optional bool, about string, costs ...string) Set {
	ids := kind.Tables()
	if name == "" {
		name = ids[0].Name
	}
	s := Set{Name: name, Puzzle: ids[0].Puzzle, About: about, Optional: optional, kind: kind}
	for i, id := range ids {
		s.Tables = append(s.Tables, Table{Meta: metaOf(id), Set: name, Cost: costs[min(i, len(costs)-1)],
			Optional: id.Optional, buildMemory: id.BuildMemory, kind: kind, index: i})
	}
	return s
}

// metaOf is the header identity of a table as its kind describes it.
func metaOf(id search.Table) tables.Meta {
	return tables.Meta{Name: id.Name, Puzzle: id.Puzzle, Pattern: id.Pattern, Encoding: id.Encoding,
		Entries: id.Entries, Generator: id.Generator}
}

// fullSet is the one-table set of a distance table over every state of a
// board, named like "loopover-3x4-bfs".
func fullSet(spec puzzle.Spec, about, cost string) Set {
	return newSet(fulltable.Kind{Spec: spec}, "", true, about, cost)
}

func slidingSet(pt pdb.Partition, about, cost string) Set {
	return newSet(pdb.Kind{Partition: pt}, pt.Prefix+"-"+pt.Name, false, about, cost)
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
	payload, counts, err := t.kind.Build(ctx, t.index, progress)
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
func (s Set) Serves(spec puzzle.Spec, mode result.Mode) bool { return s.kind.Serves(spec, mode) }

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

// PerRole is the one rule that picks the best set of each role: walking
// sets in order (best first), it keeps each set that serves a role no
// kept set serves yet and that keep accepts. keep, when not nil, is asked
// only about such sets: false passes one over, leaving its roles to the
// next; an error ends the walk.
func PerRole(sets []Set, keep func(i int, s Set) (bool, error)) ([]Set, error) {
	var out []Set
	served := map[string]bool{}
	for i, s := range sets {
		roles := s.Roles()
		if !slices.ContainsFunc(roles, func(r string) bool { return !served[r] }) {
			continue
		}
		if keep != nil {
			ok, err := keep(i, s)
			if err != nil {
				return out, err
			}
			if !ok {
				continue
			}
		}
		for _, r := range roles {
			served[r] = true
		}
		out = append(out, s)
	}
	return out, nil
}

// Serving is every set that answers spec in mode, best first.
func Serving(spec puzzle.Spec, mode result.Mode) []Set {
	var out []Set
	for _, s := range Sets() {
		if s.Serves(spec, mode) {
			out = append(out, s)
		}
	}
	return out
}

// BuildMemory is the memory the builder of t holds (bytes).
func (t Table) BuildMemory() uint64 { return t.buildMemory }
