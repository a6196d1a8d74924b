package version

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/tables"
)

func TestFormat(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "a7ebc78f00"}, {Key: "vcs.time", Value: "2026-11-26T02:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	want := "solverd v1.2.3\n  revision   a7ebc78f00 (2026-11-26T02:00:00Z, modified)\n  go         go1.26.0\n  tables     format " + fmt.Sprint(tables.FormatVersion) + "\n"
	if got := format("solverd", bi, true); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := format("results", nil, false); !strings.Contains(got, "built without VCS information") || !strings.HasPrefix(got, "results (unknown)\n") {
		t.Errorf("no build info: %q", got)
	}
}

func TestShort(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "a7ebc78f00112233"}, {Key: "vcs.modified", Value: "true"},
	}}
	if got, want := short(bi, true), "v1.2.3 a7ebc78f0011+dirty"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := short(nil, false); got != "(unknown)" {
		t.Errorf("no build info: %q", got)
	}
}
