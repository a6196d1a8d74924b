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
	"slices"
	"strings"
	"time"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/tables"
)

// Table is one buildable table.
type Table struct {
	Meta tables.Meta // identity; Bytes, SHA256 and BuildMS are unknown until built
	Set  string      // the set it belongs to
	// Cost is a rough figure for the operator before a long build.
	Cost string

	partition pdb.Partition
	index     int
	full      puzzle.Spec // a distance table over every state of this board (Kind 0: a PDB)
	twoPhase  bool        // the 5×5 Loopover two-phase solver's phase-1 table
}

// Set is a group of tables loaded together: the disjoint patterns of one
// additive heuristic.
type Set struct {
	Name   string // e.g. "15-pdb-78"
	Puzzle string // canonical spec, e.g. "sliding:4x4"
	Tables []Table
	// About is one line for `tables list --all`.
	About string
	// Optional sets only speed up a puzzle that solves well without
	// them: no start-up notice when they are missing.
	Optional bool

	partition pdb.Partition
	full      puzzle.Spec
	twoPhase  bool
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
		twoPhaseSet(),
	}
}

// twoPhaseSet is the phase-1 table of the 5×5 Loopover two-phase solver:
// the six-piece pattern database of the seed text (64 MB). Without it the
// solver uses small in-memory bounds and answers about 2.6 moves longer.
func twoPhaseSet() Set {
	const name = "loopover-5x5-p1"
	spec := puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
	m := tables.Meta{Name: name, Puzzle: spec.String(), Pattern: twophase.Phase1Pattern, Encoding: twophase.Phase1Encoding,
		Entries: twophase.Phase1Entries, Generator: twophase.Phase1Generator}
	return Set{Name: name, Puzzle: spec.String(), Optional: true, twoPhase: true,
		About:  "5x5 Loopover two-phase, phase 1: six-piece PDB (27.5 instead of 30.1 moves per random state in 300 ms)",
		Tables: []Table{{Meta: m, Set: name, Cost: "≈1 min on 2 cores, 130 MB", twoPhase: true}}}
}

// fullSet is the one-table set of a distance table over every state of a
// board, named like "loopover-3x4-bfs".
func fullSet(spec puzzle.Spec, about, cost string) Set {
	name := fmt.Sprintf("%s-%dx%d-bfs", spec.Kind, spec.Rows, spec.Cols)
	entries, err := fulltable.States(spec)
	if err != nil {
		panic(err) // the catalogue lists supported boards only
	}
	m := tables.Meta{Name: name, Puzzle: spec.String(), Pattern: "all", Encoding: "u4", Entries: entries, Generator: bfsGenerator}
	return Set{Name: name, Puzzle: spec.String(), About: about, Optional: true, full: spec,
		Tables: []Table{{Meta: m, Set: name, Cost: cost, full: spec}}}
}

// bfsGenerator versions the full-table builder (internal/fulltable): bump
// it when the index or the entries change meaning.
const bfsGenerator = 1

func slidingSet(pt pdb.Partition, about, cost string) Set {
	s := Set{Name: pt.Prefix + "-" + pt.Name, About: about, partition: pt}
	for i, tiles := range pt.Patterns {
		m := pdb.MetaFor(pt.TableName(i), pt.Rows, pt.Cols, tiles)
		s.Puzzle = m.Puzzle
		s.Tables = append(s.Tables, Table{Meta: m, Set: s.Name, Cost: cost, partition: pt, index: i})
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
	if t.twoPhase {
		payload, counts, err := twophase.BuildPhase1(ctx, progress)
		if err != nil {
			return "", tables.Meta{}, fmt.Errorf("build %s: %w", t.Meta.Name, err)
		}
		m := t.Meta
		m.BuildMS, m.Counts = time.Since(t0).Milliseconds(), counts
		path, m, err := tables.Write(dir, m, payload)
		if err != nil {
			return "", m, fmt.Errorf("build %s: %w", t.Meta.Name, err)
		}
		return path, m, nil
	}
	if t.full.Kind != 0 {
		tb, err := fulltable.BuildContext(ctx, t.full)
		if err != nil {
			return "", tables.Meta{}, fmt.Errorf("build %s: %w", t.Meta.Name, err)
		}
		m := t.Meta
		m.BuildMS, m.Counts = time.Since(t0).Milliseconds(), tb.Counts
		path, m, err := tables.Write(dir, m, tb.Payload())
		if err != nil {
			return "", m, fmt.Errorf("build %s: %w", t.Meta.Name, err)
		}
		if progress != nil {
			progress(m.Entries, m.Entries)
		}
		return path, m, nil
	}
	opt := pdb.Options{}
	if progress != nil {
		opt.Progress = func(_ int, placed, entries uint64) { progress(placed, entries) }
	}
	pt := t.partition
	p, _, err := pdb.Build(ctx, pt.Rows, pt.Cols, pt.Patterns[t.index], opt)
	if err != nil {
		return "", tables.Meta{}, fmt.Errorf("build %s: %w", t.Meta.Name, err)
	}
	path, m, err := p.Write(dir, t.Meta.Name, time.Since(t0).Milliseconds())
	if err != nil {
		return "", m, fmt.Errorf("build %s: %w", t.Meta.Name, err)
	}
	return path, m, nil
}

// Complete reports whether every table of s is present in dir.
func (s Set) Complete(dir string) bool {
	for _, t := range s.Tables {
		if !t.Present(dir) {
			return false
		}
	}
	return true
}

// BuildCommand is what an operator runs to build s.
func (s Set) BuildCommand() string { return "solverd tables build " + s.Name }

// OpenSliding maps the tables of a sliding set from dir (checking their
// headers, not their checksums: `tables verify` does that) and returns
// the IDA* solver over them. A missing or mismatching file is refused with
// the command that builds it. With private the tables are copied into
// the process's own huge-page memory (tables.Table.Private): faster
// search, no sharing. Close the returned closer when done.
func OpenSliding(dir string, s Set, private bool) (*pdb.Solver, func() error, error) {
	if s.partition.Rows == 0 {
		return nil, nil, fmt.Errorf("table set %s is not a sliding-puzzle set", s.Name)
	}
	pdbs, err := pdb.OpenPartition(dir, s.partition, false)
	if err != nil {
		return nil, nil, fmt.Errorf("table set %s: %w (build it with: %s)", s.Name, err, s.BuildCommand())
	}
	closeAll := func() error {
		var first error
		for _, p := range pdbs {
			if err := p.Close(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	if private {
		for _, p := range pdbs {
			if err := p.Private(); err != nil {
				closeAll()
				return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
			}
		}
	}
	set, err := pdb.NewSet(pdbs...)
	if err == nil {
		var sv *pdb.Solver
		if sv, err = pdb.NewSolver(set, true); err == nil {
			return sv, closeAll, nil
		}
	}
	closeAll()
	return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
}

// OpenFull maps the distance table of a full set from dir. A missing or
// mismatching file is refused with the command that builds it. Close the
// returned closer when the table is no longer used.
func OpenFull(dir string, s Set) (*fulltable.Table, func() error, error) {
	if s.full.Kind == 0 {
		return nil, nil, fmt.Errorf("table set %s is not a full distance table", s.Name)
	}
	want := s.Tables[0].Meta
	f, err := tables.Open(s.Tables[0].Path(dir), want, false)
	if err != nil {
		return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
	}
	t, err := fulltable.FromPayload(s.full, f.Data, f.Meta.Counts)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("table set %s: %w (rebuild it with: %s)", s.Name, err, s.BuildCommand())
	}
	return t, f.Close, nil
}

// OpenTwoPhase maps the phase-1 table of the 5×5 Loopover two-phase
// solver from dir and returns the solver over it. A missing or mismatching
// file is refused with the command that builds it. Close the returned
// closer when the solver is no longer used.
func OpenTwoPhase(dir string, s Set) (*twophase.Solver, func() error, error) {
	if !s.twoPhase {
		return nil, nil, fmt.Errorf("table set %s is not a two-phase table", s.Name)
	}
	f, err := tables.Open(s.Tables[0].Path(dir), s.Tables[0].Meta, false)
	if err != nil {
		return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
	}
	sv, err := twophase.New(f.Data)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("table set %s: %w (rebuild it with: %s)", s.Name, err, s.BuildCommand())
	}
	return sv, f.Close, nil
}

// TwoPhase reports whether s is the 5×5 Loopover two-phase table (open it
// with OpenTwoPhase).
func (s Set) TwoPhase() bool { return s.twoPhase }

// Full reports whether s is a distance table over a whole state space
// (open it with OpenFull) rather than pattern databases (OpenSliding).
func (s Set) Full() bool { return s.full.Kind != 0 }

// Preferred is, for each puzzle with a set, the best set complete in dir
// (nil entries are left out). Puzzles are in catalogue order.
func Preferred(dir string) []Set {
	var out []Set
	var done []string
	for _, s := range Sets() {
		if slices.Contains(done, s.Puzzle) || !s.Complete(dir) {
			continue
		}
		done = append(done, s.Puzzle)
		out = append(out, s)
	}
	return out
}

// BuildMemory is the memory the builder of t holds (bytes).
func (t Table) BuildMemory() uint64 {
	if t.full.Kind != 0 {
		return (t.Meta.Entries + 1) / 2 // the nibble table is all the builder holds
	}
	if t.twoPhase {
		return t.Meta.Entries // the packed table and the payload copy, 4 bits each
	}
	pt := t.partition
	return pdb.BuildMemory(pt.Rows, pt.Cols, len(pt.Patterns[t.index]))
}
