// Package version is what a binary says about itself for --version: the
// module version and VCS revision the Go toolchain stamped into it, the
// Go version, and the table file format it reads, so that a report or a
// table that will not load can be matched to a build.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/tessera-solver/tessera/tables"
)

// revision is the VCS revision when the toolchain could not stamp one
// (a build outside the repository, a Docker context without .git): `make
// build` and the Dockerfile set it with -ldflags "-X
// github.com/tessera-solver/tessera/internal/version.revision=…".
var revision string

// String is the --version text of the binary called name, e.g.
//
//	solverd (devel)
//	  revision   a7ebc78f… (2026-11-26T02:00:00Z, modified)
//	  go         go1.26.0
//	  tables     format 1
func String(name string) string {
	bi, ok := debug.ReadBuildInfo()
	return format(name, bi, ok)
}

func format(name string, bi *debug.BuildInfo, ok bool) string {
	mod, rev, when, dirty, goVersion := "(unknown)", "unknown (built without VCS information)", "", false, runtime.Version()
	if revision != "" {
		rev = revision
	}
	if ok {
		mod = bi.Main.Version
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	var notes []string
	if when != "" {
		notes = append(notes, when)
	}
	if dirty {
		notes = append(notes, "modified")
	}
	if len(notes) > 0 {
		rev += " (" + strings.Join(notes, ", ") + ")"
	}
	return fmt.Sprintf("%s %s\n  revision   %s\n  go         %s\n  tables     format %d\n", name, mod, rev, goVersion, tables.FormatVersion)
}

// Short is the version on one line, for the registry of workers: the
// module version and the first 12 digits of the revision, "+dirty" when
// the tree was modified (e.g. "(devel) a7ebc78f01b2+dirty").
func Short() string {
	bi, ok := debug.ReadBuildInfo()
	return short(bi, ok)
}

func short(bi *debug.BuildInfo, ok bool) string {
	mod, rev, dirty := "(unknown)", revision, false
	if ok {
		mod = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	out := mod
	if rev != "" {
		out += " " + rev
	}
	if dirty {
		out += "+dirty"
	}
	return out
}
