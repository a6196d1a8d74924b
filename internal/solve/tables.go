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
	// Roles maps each puzzle and mode a set serves (catalog.Set.Roles,
	// e.g. "sliding:4x4 optimal") to the set serving it.
	Roles map[string]string
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
	return Choose(dir, want, private, nil)
}

// Choose is Tables for a process already running, which must keep serving
// whatever it finds: a set that "auto" would take but that fails its
// header check or usable (the caller's further check, e.g. the payload
// checksum of a table that arrived while running) is passed over for the
// next complete set of its puzzle and mode instead of failing the choice.
// A set named in want that fails either is still an error. With usable nil
// it is Tables.
func Choose(dir, want string, private bool, usable func(catalog.Set) error) (*Loaded, error) {
	l := &Loaded{Roles: map[string]string{}}
	type candidate struct {
		set  catalog.Set
		auto bool
	}
	var sets []candidate
	for _, name := range strings.Split(want, ",") {
		switch name = strings.TrimSpace(name); name {
		case "", "none":
		case "auto":
			// Every complete set, best first: the rule below keeps the
			// best of each role, and a refused one leaves its roles to
			// the next.
			for _, set := range catalog.Sets() {
				if set.Complete(dir) {
					sets = append(sets, candidate{set, true})
				}
			}
			l.Notices = append(l.Notices, missingBetter(dir)...)
		default:
			set, ok := catalog.LookupSet(name)
			if !ok {
				return nil, fmt.Errorf("solver.tables: unknown table set %q; known: %s", name, strings.Join(catalog.SetNames(), ", "))
			}
			sets = append(sets, candidate{set, false})
		}
	}
	// The catalogue's one rule picks the set of each role; a refused
	// "auto" set of a running process leaves its roles to the next.
	cands := make([]catalog.Set, len(sets))
	for i, c := range sets {
		cands[i] = c.set
	}
	chosen, err := catalog.PerRole(cands, func(i int, set catalog.Set) (bool, error) {
		var err error
		if usable != nil {
			err = usable(set) // first, so that it sees (and can report) every refusal
		}
		if err == nil {
			err = set.Check(dir)
		}
		if err != nil && sets[i].auto && usable != nil {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return nil, err
	}
	for _, set := range chosen {
		for _, r := range set.Roles() {
			if l.Roles[r] == "" {
				l.Roles[r] = set.Name
			}
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
	best, _ := catalog.PerRole(catalog.Sets(), nil)
	for _, set := range best {
		if !set.Complete(dir) && !set.Optional {
			out = append(out, Notice{set.Puzzle, fmt.Sprintf("table set %s (%s) is not in %s: build it with `%s`",
				set.Name, set.Puzzle, dir, set.BuildCommand())})
		}
	}
	return out
}
