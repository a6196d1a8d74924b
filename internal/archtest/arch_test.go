// Package archtest holds repository-wide architecture checks: the seams of
// docs/ARCHITECTURE.md, enforced rather than hoped for.
package archtest

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/tessera-solver/tessera/"

// layers classifies every package of the module, bottom first. A package
// imports only packages of its own layer or below (TestImportsPointDown),
// and a package missing here fails TestEveryPackageIsClassified, so a new
// package cannot escape the rules. docs/ARCHITECTURE.md draws this map.
var layers = []struct {
	name string
	pkgs []string
}{
	{"vocabulary", []string{"internal/puzzle", "internal/result", "internal/job"}},
	// How each family's boards are treated (routes, budgets, chunks, lanes).
	{"policy", []string{"internal/policy"}},
	{"shared core", []string{"internal/search", "internal/perm", "internal/nibble", "internal/prefetch", "internal/bfs", "internal/instances"}},
	{"core", []string{"internal/sliding", "internal/sliding/pdb", "internal/loopover", "internal/loopover/ida44",
		"internal/loopover/ida55", "internal/loopover/optimal", "internal/loopover/twophase",
		"internal/loopover/construct", "internal/swap", "internal/fulltable"}},
	// Small helpers of the edges and the table files; never of the core.
	{"support", []string{"internal/backoff", "internal/atomicfile", "internal/redact", "internal/httpauth",
		"internal/metrics", "internal/progress", "internal/plot"}},
	{"tables", []string{"tables", "tables/catalog"}},
	{"facade", []string{"internal/solve"}},
	{"adapters", []string{"internal/queue", "internal/store", "config", "internal/tablestore", "migrations", "internal/parquetfile"}},
	// The split search: its record's rules over search's IDA* state and
	// budget, and its coordinator over the split buckets.
	{"split search", []string{"internal/split"}},
	// The mains' shared pieces; --version reads the table format of tables.
	{"edges", []string{"internal/worker", "internal/ingest", "internal/httpapi", "internal/cmdkit", "internal/cmdkit/solverkit", "internal/steer", "internal/tableservice",
		"internal/version"}},
	// splitplan: the split search's makespan model, a test-gated tool.
	{"tools", []string{"internal/tablebench", "internal/tablebench/datasheet", "scripts/testsummary", "internal/splitplan"}},
	{"mains", []string{"producer", "solverd", "results"}},
	// Imported by tests only: above every layer, so no other code can.
	{"tests only", []string{"internal/coretest", "internal/testenv", "internal/natstest", "internal/testcert",
		"internal/store/storetest", "internal/queue/queuetest", "tables/catalog/catalogtest", "internal/faults", "internal/archtest", "deploy",
		"internal/familytest"}},
}

// rank is the position of each classified package's layer, bottom = 0.
func rank() map[string]int {
	r := map[string]int{}
	for i, l := range layers {
		for _, p := range l.pkgs {
			r[p] = i
		}
	}
	return r
}

// layer lists the packages of the named layers.
func layer(names ...string) []string {
	var out []string
	for _, l := range layers {
		if slices.Contains(names, l.name) {
			out = append(out, l.pkgs...)
		}
	}
	return out
}

// core is the solving core and the vocabulary it shares: pure computation,
// tested and benchmarked without servers or files.
var core = layer("vocabulary", "policy", "shared core", "core")

// solvers are the packages that hold solving algorithms or their tables.
var solvers = append(layer("shared core", "core", "facade"), "tables/catalog")

// testOnly are the packages only tests import.
var testOnly = layer("tests only")

// imports lists each package of the module with its direct imports, its
// transitive dependencies and the imports of its tests.
func imports(t *testing.T) map[string]struct{ direct, deps, tests []string } {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}`, mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string]struct{ direct, deps, tests []string }{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 4 {
			t.Fatalf("go list line %q", line)
		}
		m[strings.TrimPrefix(f[0], mod)] = struct{ direct, deps, tests []string }{strings.Fields(f[1]), strings.Fields(f[2]), strings.Fields(f[3])}
	}
	return m
}

// named returns pkgs, failing t for any that is in no layer: a rule naming
// a package that was renamed or removed would silently check nothing.
func named(t *testing.T, pkgs ...string) []string {
	t.Helper()
	r := rank()
	for _, p := range pkgs {
		if _, ok := r[p]; !ok {
			t.Errorf("a rule names %s, which is in no layer: update the rule", p)
		}
	}
	return pkgs
}

// unclassified compares the module's packages with the classification:
// the packages it does not know, and the ones it names that do not exist.
func unclassified(pkgs []string, known map[string]int) (unknown, gone []string) {
	for _, p := range pkgs {
		if _, ok := known[p]; !ok {
			unknown = append(unknown, p)
		}
	}
	for p := range known {
		if !slices.Contains(pkgs, p) {
			gone = append(gone, p)
		}
	}
	slices.Sort(gone)
	return unknown, gone
}

// Every package of the module has a layer, so every rule applies to it.
func TestEveryPackageIsClassified(t *testing.T) {
	all := imports(t)
	var pkgs []string
	for p := range all {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	unknown, gone := unclassified(pkgs, rank())
	for _, p := range unknown {
		t.Errorf("%s is in no layer: add it to layers in internal/archtest and to docs/ARCHITECTURE.md", p)
	}
	for _, p := range gone {
		t.Errorf("layers name %s, which does not exist: update the list", p)
	}
}

// The check above can fail: a package added beside the known ones is
// named, and so is one that was removed.
func TestUnclassifiedNamesNewAndGonePackages(t *testing.T) {
	known := map[string]int{"internal/puzzle": 0, "internal/gone": 1}
	unknown, gone := unclassified([]string{"internal/puzzle", "internal/newfamily"}, known)
	if !slices.Equal(unknown, []string{"internal/newfamily"}) || !slices.Equal(gone, []string{"internal/gone"}) {
		t.Errorf("unclassified = %v, %v; want [internal/newfamily], [internal/gone]", unknown, gone)
	}
}

// upward lists the imports that run up the layers: from a package to one
// of a higher layer.
func upward(direct map[string][]string, known map[string]int) []string {
	var out []string
	for p, imps := range direct {
		rp, ok := known[p]
		if !ok {
			continue // TestEveryPackageIsClassified names it
		}
		for _, imp := range imps {
			if ri, ok := known[strings.TrimPrefix(imp, mod)]; ok && strings.HasPrefix(imp, mod) && ri > rp {
				out = append(out, fmt.Sprintf("%s (%s) imports %s (%s)", p, layers[rp].name, strings.TrimPrefix(imp, mod), layers[ri].name))
			}
		}
	}
	slices.Sort(out)
	return out
}

// Arrows point down only: a package imports its own layer or lower ones.
func TestImportsPointDown(t *testing.T) {
	direct := map[string][]string{}
	for p, im := range imports(t) {
		direct[p] = im.direct
	}
	for _, e := range upward(direct, rank()) {
		t.Errorf("%s: imports point down only", e)
	}
}

func TestUpwardNamesAnImportRunningUp(t *testing.T) {
	known := rank()
	direct := map[string][]string{
		"internal/puzzle": {"fmt", mod + "internal/solve"},
		"internal/solve":  {mod + "internal/puzzle", mod + "tables/catalog"},
	}
	got := upward(direct, known)
	if len(got) != 1 || !strings.HasPrefix(got[0], "internal/puzzle (vocabulary) imports internal/solve (facade)") {
		t.Errorf("upward = %q, want only puzzle's import of solve", got)
	}
}

// The core does no I/O of its own: no files, processes, network, logging,
// table files, servers or third-party code, and it imports only the core.
// (Its dependencies may do I/O: fmt links os.)
func TestCoreDoesNoIO(t *testing.T) {
	all := imports(t)
	for _, p := range core {
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
	for _, p := range append(solvers, "tables") {
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
	for _, p := range named(t, "internal/job", "internal/store", "internal/ingest", "internal/httpapi", "internal/steer", "internal/metrics", "results") {
		for _, dep := range all[p].deps {
			if slices.Contains(solvers, strings.TrimPrefix(dep, mod)) {
				t.Errorf("%s links the solver package %s", p, dep)
			}
		}
	}
}

// Each adapter is the only importer of what it wraps: viper in config/,
// pgx in the store, the Parquet library (and the zstd of its codec) in
// internal/parquetfile, the NATS
// client in the queue adapter (and the mains and test servers that start
// NATS).
func TestAdaptersOwnTheirLibraries(t *testing.T) {
	all := imports(t)
	owners := []struct {
		lib     string
		allowed []string
	}{
		{"github.com/spf13/viper", []string{"config"}},
		{"github.com/jackc/", []string{"internal/store", "internal/store/storetest", "migrations"}},
		{"github.com/prometheus/", []string{"internal/metrics", "internal/httpapi"}},
		{"github.com/parquet-go/", []string{"internal/parquetfile"}},
		{"github.com/klauspost/compress/", []string{"internal/parquetfile"}}, // its zstd codec
		{"github.com/nats-io/", []string{"internal/queue", "internal/tablestore", "internal/worker", "internal/natstest", "internal/queue/queuetest", "internal/cmdkit",
			"producer", "solverd", "results"}},
	}
	for _, o := range owners {
		named(t, o.allowed...)
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

// The Prometheus server module (its PromQL parser and rule loader) checks
// the deployment's alert rules and dashboards in deploy's tests; no
// package links it, so no binary carries it.
func TestPrometheusServerIsTestOnly(t *testing.T) {
	const lib = "github.com/prometheus/prometheus/"
	all := imports(t)
	for p, im := range all {
		for _, dep := range im.deps {
			if strings.HasPrefix(dep, lib) {
				t.Errorf("%s links %s: the Prometheus server module is for deploy's tests only", p, dep)
				break
			}
		}
	}
	if !slices.ContainsFunc(all["deploy"].tests, func(imp string) bool { return strings.HasPrefix(imp, lib) }) {
		t.Errorf("deploy's tests import no %s...: this rule checks nothing", lib)
	}
}

// The core's tests share helpers through internal/coretest alone: the other
// test kits start servers, write files or hold secrets, and coretest itself
// imports only the core and the standard library (syscall for CPU time, no
// files, network or logging), so no test of the core drags them in.
func TestCoreTestsStayLight(t *testing.T) {
	all := imports(t)
	for _, imp := range all["internal/coretest"].direct {
		switch {
		case strings.HasPrefix(imp, mod):
			if !slices.Contains(core, strings.TrimPrefix(imp, mod)) {
				t.Errorf("internal/coretest imports %s: it may import only the core", imp)
			}
		case imp == "os", imp == "os/exec", imp == "io/fs", imp == "net", strings.HasPrefix(imp, "net/"),
			imp == "log", imp == "log/slog", imp == "database/sql", strings.Contains(imp, "."):
			t.Errorf("internal/coretest imports %s: the core's test kit does no I/O", imp)
		}
	}
	for _, p := range core {
		for _, imp := range all[p].tests {
			if q := strings.TrimPrefix(imp, mod); slices.Contains(testOnly, q) && q != "internal/coretest" {
				t.Errorf("%s's tests import %s: the core's tests use internal/coretest", p, q)
			}
		}
	}
}

// docMap reads the package map of docs/ARCHITECTURE.md (the fenced block
// under "Packages and dependency direction"): each layer's name, from the
// line that starts it, and the package paths named on its lines.
func docMap(text string) map[string][]string {
	_, rest, _ := strings.Cut(text, "## Packages and dependency direction")
	_, rest, _ = strings.Cut(rest, "```\n")
	block, _, _ := strings.Cut(rest, "```")
	names := map[string]bool{}
	for _, l := range layers {
		names[l.name] = true
	}
	pkg := regexp.MustCompile(`^(internal|tables|config|migrations|producer|solverd|results|deploy|scripts)(/[a-z0-9]+)*/?$`)
	out := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(block, "\n") {
		if head := strings.TrimRight(line[:min(len(line), 13)], " "); head != "" {
			cur = head
			if !names[cur] {
				out[cur] = nil // a layer the code does not have: reported
			}
		}
		for _, f := range strings.Fields(line[min(len(line), 13):]) {
			if pkg.MatchString(f) {
				out[cur] = append(out[cur], strings.TrimSuffix(f, "/"))
			}
		}
	}
	return out
}

// docs/ARCHITECTURE.md's map is the classification: the same layers, in
// each the same packages.
func TestArchitectureMapMatches(t *testing.T) {
	text, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := docMap(string(text))
	for _, l := range layers {
		got, want := slices.Sorted(slices.Values(doc[l.name])), slices.Sorted(slices.Values(l.pkgs))
		if !slices.Equal(got, want) {
			t.Errorf("layer %q: docs/ARCHITECTURE.md names %v, internal/archtest %v", l.name, got, want)
		}
		delete(doc, l.name)
	}
	for name := range doc {
		t.Errorf("docs/ARCHITECTURE.md's map has a layer %q that internal/archtest does not", name)
	}
}

// The map check can fail: a package missing from the doc's layer is seen.
func TestDocMapReadsLayers(t *testing.T) {
	doc := docMap("## Packages and dependency direction\n\n```\nmains        producer/  solverd/  results/   commands\nedges        internal/worker (the loop)\n             internal/steer\n```\n")
	if !slices.Equal(doc["mains"], []string{"producer", "solverd", "results"}) || !slices.Equal(doc["edges"], []string{"internal/worker", "internal/steer"}) {
		t.Errorf("docMap = %v", doc)
	}
}
