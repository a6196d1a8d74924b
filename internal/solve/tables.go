package solve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// Default is the process-wide Solver behind SolveText: load tables into it
// at start.
func Default() *Solver { return defaultSolver }

// Loaded reports what LoadTables did.
type Loaded struct {
	Sets []string // sets now in use, e.g. "15-pdb-78"
	// Notices name, per puzzle, the best set when it is missing, with the
	// command that builds it: for the operator, not errors.
	Notices []Notice
	closers []func() error
	solver  *Solver
	used    map[puzzle.Spec]*pdb.Solver
	full    map[puzzle.Spec]*fulltable.Table
	tp      *twophase.Solver
}

// Notice is advice about one puzzle's tables.
type Notice struct {
	Puzzle string // canonical spec
	Text   string
}

// Close stops the Solver using the loaded tables and unmaps them. No solve
// may be running on them.
func (l *Loaded) Close() error {
	l.solver.mu.Lock()
	for spec, sv := range l.used {
		if l.solver.pdbs[spec] == sv {
			delete(l.solver.pdbs, spec)
		}
	}
	for spec, t := range l.full {
		if l.solver.full[spec] == t {
			delete(l.solver.full, spec)
		}
	}
	if l.tp != nil && l.solver.tp == l.tp {
		l.solver.tp = nil
	}
	l.used, l.full, l.tp = nil, nil, nil
	l.solver.mu.Unlock()
	var errs []error
	for _, c := range l.closers {
		errs = append(errs, c())
	}
	l.closers = nil
	return errors.Join(errs...)
}

// LoadTables maps table sets from dir and makes s use them. want is a
// comma-separated list: "auto" loads the best complete set of each puzzle
// and notes the better ones that are missing; "none" loads nothing; a set
// name loads that set, and a missing or damaged one is an error naming
// the command that builds it. private copies the pattern databases into
// the process's own huge-page memory instead of sharing the mapped files
// (faster search on large tables; see tables.Table.Private).
func (s *Solver) LoadTables(dir, want string, private bool) (*Loaded, error) {
	l := &Loaded{solver: s, used: map[puzzle.Spec]*pdb.Solver{}, full: map[puzzle.Spec]*fulltable.Table{}}
	var sets []catalog.Set
	for _, name := range strings.Split(want, ",") {
		switch name = strings.TrimSpace(name); name {
		case "", "none":
		case "auto":
			sets = append(sets, catalog.Preferred(dir)...)
			l.Notices = append(l.Notices, missingBetter(dir)...)
		default:
			set, ok := catalog.LookupSet(name)
			if !ok {
				return nil, fmt.Errorf("solver.tables: unknown table set %q; known: %s", name, strings.Join(catalog.SetNames(), ", "))
			}
			sets = append(sets, set)
		}
	}
	for _, set := range sets {
		spec, err := puzzle.ParseSpec(set.Puzzle)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("table set %s: %w", set.Name, err)
		}
		if l.used[spec] != nil || l.full[spec] != nil || set.TwoPhase() && l.tp != nil {
			continue // an earlier (better or explicitly named) set serves this puzzle
		}
		if set.TwoPhase() {
			tp, closer, err := catalog.OpenTwoPhase(dir, set)
			if err != nil {
				l.Close()
				return nil, err
			}
			s.UseTwoPhase(tp)
			l.tp = tp
			l.Sets = append(l.Sets, set.Name)
			l.closers = append(l.closers, closer)
			continue
		}
		if set.Full() {
			t, closer, err := catalog.OpenFull(dir, set)
			if err != nil {
				l.Close()
				return nil, err
			}
			s.UseFull(spec, t)
			l.full[spec] = t
			l.Sets = append(l.Sets, set.Name)
			l.closers = append(l.closers, closer)
			continue
		}
		sv, closer, err := catalog.OpenSliding(dir, set, private)
		if err != nil {
			l.Close()
			return nil, err
		}
		s.UsePDB(spec, sv)
		l.used[spec] = sv
		l.Sets = append(l.Sets, set.Name)
		l.closers = append(l.closers, closer)
	}
	return l, nil
}

// missingBetter notes each puzzle whose best set is not complete in dir.
func missingBetter(dir string) []Notice {
	var out []Notice
	seen := map[string]bool{}
	for _, set := range catalog.Sets() {
		if seen[set.Puzzle] {
			continue
		}
		seen[set.Puzzle] = true
		if !set.Complete(dir) && !set.Optional {
			out = append(out, Notice{set.Puzzle, fmt.Sprintf("table set %s (%s) is not in %s: build it with `%s`",
				set.Name, set.Puzzle, dir, set.BuildCommand())})
		}
	}
	return out
}
