// Package archtest holds repository-wide architecture checks.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// The pure core must stay free of transport and storage so that it can be
// tested, benchmarked and reused without servers.
var pure = []string{
	"github.com/tessera-solver/tessera/internal/puzzle/...",
	"github.com/tessera-solver/tessera/internal/heuristic/...",
	"github.com/tessera-solver/tessera/internal/search/...",
	"github.com/tessera-solver/tessera/internal/solve/...",
	"github.com/tessera-solver/tessera/internal/transpose/...",
	"github.com/tessera-solver/tessera/internal/loopover/...",
	"github.com/tessera-solver/tessera/internal/perm/...",
	"github.com/tessera-solver/tessera/tables/...",
}

func forbidden(dep string) bool {
	switch {
	case dep == "net", strings.HasPrefix(dep, "net/"),
		dep == "database/sql", strings.HasPrefix(dep, "database/sql/"),
		strings.HasPrefix(dep, "github.com/nats-io/"),
		strings.HasPrefix(dep, "github.com/jackc/"),
		strings.HasPrefix(dep, "github.com/spf13/viper"):
		return true
	}
	return false
}

func TestPureCoreImports(t *testing.T) {
	for _, pkg := range pure {
		out, err := exec.Command("go", "list", "-e", "-deps", "-f", "{{.ImportPath}}", pkg).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "matched no packages") {
				continue
			}
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if forbidden(dep) {
				t.Errorf("%s depends on %s: the pure core must not import NATS, pgx, viper, net or database/sql", pkg, dep)
			}
		}
	}
}

// Only config/ may import viper.
func TestViperOnlyInConfig(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/tessera-solver/tessera/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "github.com/tessera-solver/tessera/config" {
			continue
		}
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, "github.com/spf13/viper") {
				t.Errorf("%s imports viper: only config/ may", f[0])
			}
		}
	}
}
