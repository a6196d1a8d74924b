// Package archtest holds repository-wide architecture checks: the seams of
// docs/ARCHITECTURE.md, enforced rather than hoped for.
package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/tessera-solver/tessera/"

// core is the solving core and the vocabulary it shares: pure computation,
// tested and benchmarked without servers or files.
var core = []string{
	"internal/puzzle", "internal/result", "internal/job", "internal/search", "internal/perm",
	"internal/sliding", "internal/sliding/pdb", "internal/loopover", "internal/loopover/twophase",
	"internal/loopover/construct", "internal/swap", "internal/fulltable", "internal/nibble", "internal/bfs", "internal/instances",
}

// solvers are the packages that hold solving algorithms or their tables.
var solvers = []string{
	"internal/search", "internal/perm", "internal/sliding", "internal/sliding/pdb", "internal/loopover",
	"internal/loopover/twophase", "internal/loopover/construct", "internal/swap", "internal/fulltable",
	"internal/solve", "tables/catalog",
}

// imports lists each package of the module with its direct imports and its
// transitive dependencies.
func imports(t *testing.T) map[string]struct{ direct, deps []string } {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string]struct{ direct, deps []string }{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list line %q", line)
		}
		m[strings.TrimPrefix(f[0], mod)] = struct{ direct, deps []string }{strings.Fields(f[1]), strings.Fields(f[2])}
	}
	return m
}

func existing(t *testing.T, all map[string]struct{ direct, deps []string }, pkgs []string) []string {
	var out []string
	for _, p := range pkgs {
		if _, ok := all[p]; ok {
			out = append(out, p)
		} else {
			t.Errorf("architecture list names %s, which does not exist: update the list", p)
		}
	}
	return out
}

// The core does no I/O of its own: no files, processes, network, logging,
// table files, servers or third-party code, and it imports only the core.
// (Its dependencies may do I/O: fmt links os.)
func TestCoreDoesNoIO(t *testing.T) {
	all := imports(t)
	for _, p := range existing(t, all, core) {
		for _, imp := range all[p].direct {
			switch {
			case strings.HasPrefix(imp, mod):
				if !slices.Contains(core, strings.TrimPrefix(imp, mod)) {
					t.Errorf("%s imports %s: the core imports only the core", p, imp)
				}
			case imp == "os", imp == "os/exec", imp == "syscall", imp == "io/fs", imp == "net", strings.HasPrefix(imp, "net/"),
				imp == "log", imp == "log/slog", imp == "database/sql", strings.Contains(imp, "."):
				t.Errorf("%s imports %s: the core does no I/O", p, imp)
			}
		}
	}
}

// Nothing that solves depends on transport, storage or configuration.
func TestSolversIndependentOfServers(t *testing.T) {
	all := imports(t)
	for _, p := range append(existing(t, all, solvers), "tables") {
		for _, dep := range all[p].deps {
			if dep == "net" || strings.HasPrefix(dep, "net/") || strings.HasPrefix(dep, "database/sql") ||
				strings.HasPrefix(dep, "github.com/nats-io/") || strings.HasPrefix(dep, "github.com/jackc/") ||
				strings.HasPrefix(dep, "github.com/spf13/viper") {
				t.Errorf("%s depends on %s: solvers must not import NATS, pgx, viper, net or database/sql", p, dep)
			}
		}
	}
}

// The stored and wire vocabulary is a leaf, and the results side (the
// writer, the store, the HTTP API and the results binary) links no solver.
func TestResultsSideLinksNoSolver(t *testing.T) {
	all := imports(t)
	for _, imp := range all["internal/result"].direct {
		if strings.HasPrefix(imp, mod) {
			t.Errorf("internal/result imports %s: it must stay a leaf", imp)
		}
	}
	for _, p := range []string{"internal/job", "internal/store", "internal/ingest", "internal/httpapi", "internal/metrics", "results"} {
		for _, dep := range all[p].deps {
			if slices.Contains(solvers, strings.TrimPrefix(dep, mod)) {
				t.Errorf("%s links the solver package %s", p, dep)
			}
		}
	}
}

// Each adapter is the only importer of what it wraps: viper in config/,
// pgx in the store, the NATS client in the queue adapter (and the mains
// and test servers that start NATS).
func TestAdaptersOwnTheirLibraries(t *testing.T) {
	all := imports(t)
	owners := []struct {
		lib     string
		allowed []string
	}{
		{"github.com/spf13/viper", []string{"config"}},
		{"github.com/jackc/", []string{"internal/store", "internal/store/storetest", "migrations"}},
		{"github.com/prometheus/", []string{"internal/metrics", "internal/httpapi"}},
		{"github.com/nats-io/", []string{"internal/queue", "internal/tablestore", "internal/worker", "internal/natstest",
			"producer", "solverd", "results"}},
	}
	for p, im := range all {
		for _, imp := range im.direct {
			for _, o := range owners {
				if strings.HasPrefix(imp, o.lib) && !slices.Contains(o.allowed, p) {
					t.Errorf("%s imports %s: only %v may", p, imp, o.allowed)
				}
			}
		}
	}
}
