package catalog

import (
	"errors"
	"fmt"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/tables"
)

// Open maps the tables of s from dir (checking their headers, not their
// checksums: `tables verify` does that) and returns the solver over them.
// A missing or mismatching file is refused with the command that builds
// it. With private the tables are copied into the process's own huge-page
// memory (tables.Table.Private): faster search, no sharing. Call the
// returned closer when the solver is no longer used.
//
// It is the one open of every kind: header check, map (shared or private),
// then the payloads go to the kind's Serve.
func (s Set) Open(dir string, private bool) (search.Algorithm, func() error, error) {
	payloads, counts, closer, err := s.mapTables(dir, false, private)
	if err != nil {
		return nil, nil, err
	}
	alg, err := s.kind.Serve(payloads, counts)
	if err != nil {
		closer()
		return nil, nil, s.refused(err)
	}
	return alg, closer, nil
}

// mapTables maps s's tables in dir, each checked against its identity
// (and, with verify, its checksum) and with private copied into the
// process's own memory. An optional table that is not there is a nil
// payload; any other missing file is refused with the set's build command.
func (s Set) mapTables(dir string, verify, private bool) (payloads [][]byte, counts [][]int64, closer func() error, err error) {
	var paths []string
	var want []tables.Meta
	var at []int // the table index of each opened file
	for i, t := range s.Tables {
		if t.Optional && !t.Present(dir) {
			continue
		}
		paths, want, at = append(paths, t.Path(dir)), append(want, t.Meta), append(at, i)
	}
	files, closer, err := tables.OpenAll(paths, want, verify, private)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("table set %s: %w (build it with: %s)", s.Name, err, s.BuildCommand())
	}
	payloads, counts = make([][]byte, len(s.Tables)), make([][]int64, len(s.Tables))
	for j, f := range files {
		payloads[at[j]], counts[at[j]] = f.Data, f.Meta.Counts
	}
	return payloads, counts, closer, nil
}

// refused names the table whose payload a kind refused: its header
// matched, so the file is there and only a forced build replaces it.
func (s Set) refused(err error) error {
	var bad *search.BadPayloadError
	if errors.As(err, &bad) && bad.Index < len(s.Tables) {
		return fmt.Errorf("table set %s: %w (rebuild it with: solverd tables build --force %s)", s.Name, bad.Err, s.Tables[bad.Index].Meta.Name)
	}
	return fmt.Errorf("table set %s: %w", s.Name, err)
}

// OpenSliding is Open of a pattern-database set, typed for the benchmarks
// that drive the search directly.
func OpenSliding(dir string, s Set, private bool) (*pdb.Solver, func() error, error) {
	k, ok := s.kind.(pdb.Kind)
	if !ok {
		return nil, nil, fmt.Errorf("table set %s is not a sliding-puzzle set", s.Name)
	}
	payloads, _, closer, err := s.mapTables(dir, false, private)
	if err != nil {
		return nil, nil, err
	}
	sv, err := k.Solver(payloads)
	if err != nil {
		closer()
		return nil, nil, s.refused(err)
	}
	return sv, closer, nil
}

// OpenFullTable maps the whole-space distance table of spec from dir, when
// the catalogue has a set of one and it is built there: what generation
// draws states of an exact depth from. ok is false when there is none.
func OpenFullTable(dir string, spec puzzle.Spec) (t *fulltable.Table, closer func() error, ok bool, err error) {
	for _, s := range Sets() {
		k, isFull := s.kind.(fulltable.Kind)
		if !isFull || k.Spec != spec || !s.Complete(dir) {
			continue
		}
		payloads, counts, closer, err := s.mapTables(dir, false, false)
		if err != nil {
			return nil, nil, false, err
		}
		if t, err = k.Table(payloads[0], counts[0]); err != nil {
			closer()
			return nil, nil, false, s.refused(err)
		}
		return t, closer, true, nil
	}
	return nil, nil, false, nil
}
