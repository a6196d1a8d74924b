// Package migrations holds tessera's PostgreSQL schema as numbered SQL
// files embedded in the binary: NNN_name.up.sql applies version NNN and
// NNN_name.down.sql (optional) reverts it. internal/store applies them with
// jackc/tern under tern's advisory lock; this package only reads the files,
// so it imports no database driver.
package migrations

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS

// Migration is one schema version.
type Migration struct {
	Version int    // 1, 2, ...: the NNN of the file names
	Name    string // e.g. "001_init"
	Up      string // SQL applying this version
	Down    string // SQL reverting it; empty when irreversible
}

// ErrLayout is wrapped by Load's errors about file names and numbering.
var ErrLayout = errors.New("bad migration files")

var fileName = regexp.MustCompile(`\A(\d+)_([a-z0-9_]+)\.(up|down)\.sql\z`)

// Load reads the migrations of fsys's top directory, in version order.
// Versions must run 1, 2, ... without gaps, each with an up file.
func Load(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	byVersion := map[int]*Migration{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration file %s: want NNN_name.up.sql or NNN_name.down.sql: %w", e.Name(), ErrLayout)
		}
		v, err := strconv.Atoi(m[1])
		if err != nil || v < 1 {
			return nil, fmt.Errorf("migration file %s: version must be a positive number: %w", e.Name(), ErrLayout)
		}
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		name := m[1] + "_" + m[2]
		mig := byVersion[v]
		if mig == nil {
			mig = &Migration{Version: v, Name: name}
			byVersion[v] = mig
		} else if mig.Name != name {
			return nil, fmt.Errorf("migration version %d: two names, %s and %s: %w", v, mig.Name, name, ErrLayout)
		}
		sql := strings.TrimSpace(string(body))
		if m[3] == "up" {
			mig.Up = sql
		} else {
			mig.Down = sql
		}
	}
	out := make([]Migration, 0, len(byVersion))
	for _, m := range byVersion {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration version %d missing (next is %s): %w", i+1, m.Name, ErrLayout)
		}
		if m.Up == "" {
			return nil, fmt.Errorf("migration %s has no up file (or it is empty): %w", m.Name, ErrLayout)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no migration files: %w", ErrLayout)
	}
	return out, nil
}

// All returns the embedded migrations.
func All() ([]Migration, error) { return Load(FS) }
