package solve

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// Loaded is the table sets chosen for a process: their registry entries
// (each set is mapped on the first request it serves) and what to tell the
// operator.
type Loaded struct {
	Sets []string // sets in use, e.g. "15-pdb-78"
	// Notices name, per puzzle, the best set when it is missing, with the
	// command that builds it: for the operator, not errors.
	Notices []Notice
	entries []Entry

	mu      sync.Mutex
	closers []func() error
}

// Notice is advice about one puzzle's tables.
type Notice struct {
	Puzzle string // canonical spec
	Text   string
}

// Tables chooses table sets in dir. want is a comma-separated list: "auto"
// takes the best complete set of each puzzle and mode (catalog.Set.Roles) and notes the better ones
// that are missing; "none" takes nothing; a set name takes that set. The
// headers of every chosen table are checked now, so a missing or damaged
// file is an error at start naming the command that builds it; the
// payloads are mapped only when a request needs them. private copies the
// pattern databases into the process's own huge-page memory instead of
// sharing the mapped files (see tables.Table.Private).
func Tables(dir, want string, private bool) (*Loaded, error) {
	l := &Loaded{}
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
	served := map[string]bool{}
	for _, set := range sets {
		fresh := false
		for _, r := range set.Roles() {
			fresh = fresh || !served[r]
			served[r] = true
		}
		if !fresh {
			continue // earlier (better or explicitly named) sets serve this puzzle in its modes
		}
		if err := set.Check(dir); err != nil {
			return nil, err
		}
		for _, t := range set.Tables {
			if t.Optional && !t.Present(dir) {
				l.Notices = append(l.Notices, Notice{set.Puzzle, fmt.Sprintf("table %s (%s) is not in %s: the first request computes it in memory; build it with `solverd tables build %s`",
					t.Meta.Name, set.Name, dir, t.Meta.Name)})
			}
		}
		l.Sets = append(l.Sets, set.Name)
		l.entries = append(l.entries, Entry{Name: "table set " + set.Name, Serves: set.Serves,
			New: func(puzzle.Spec) (search.Algorithm, error) { return l.open(dir, set, private) }})
	}
	return l, nil
}

// open maps set once per shape it serves; a Loopover table serving both
// orientations is mapped twice, which shares the same page cache.
func (l *Loaded) open(dir string, set catalog.Set, private bool) (search.Algorithm, error) {
	alg, closer, err := set.Open(dir, private)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.closers = append(l.closers, closer)
	l.mu.Unlock()
	return alg, nil
}

// Registry is the standard registry of a process: the chosen sets first
// (in the order named; the best first under "auto"), then Builtin.
func (l *Loaded) Registry() *Registry {
	return NewRegistry(append(append([]Entry(nil), l.entries...), Builtin()...)...)
}

// Close unmaps every table mapped so far. No solve may be running on them,
// nor start after.
func (l *Loaded) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, c := range l.closers {
		errs = append(errs, c())
	}
	l.closers = nil
	return errors.Join(errs...)
}

// missingBetter notes each puzzle whose best set is not complete in dir.
func missingBetter(dir string) []Notice {
	var out []Notice
	seen := map[string]bool{}
	for _, set := range catalog.Sets() {
		fresh := false
		for _, r := range set.Roles() {
			fresh = fresh || !seen[r]
			seen[r] = true
		}
		if fresh && !set.Complete(dir) && !set.Optional {
			out = append(out, Notice{set.Puzzle, fmt.Sprintf("table set %s (%s) is not in %s: build it with `%s`",
				set.Name, set.Puzzle, dir, set.BuildCommand())})
		}
	}
	return out
}
