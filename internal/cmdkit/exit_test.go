package cmdkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The exit-code contract of every main: 0 done, 1 failed (printed, or
// quiet when the command printed its own report), 2 a usage error.
func TestExecuteExitCodes(t *testing.T) {
	quiet := errors.New("some input was not solved")
	for _, tc := range []struct {
		name       string
		args       []string
		ret        error
		code       int
		wantStderr string
	}{
		{"ok", nil, nil, ExitOK, ""},
		{"failed", nil, errors.New("boom"), ExitFailed, "tool: boom\n"},
		{"usage", nil, Usagef("--n must be %d", 1), ExitUsage, "tool: --n must be 1\n"},
		{"wrapped usage", nil, fmt.Errorf("load: %w", UsageError{errors.New("bad key")}), ExitUsage, "tool: load: bad key\n"},
		{"quiet", nil, fmt.Errorf("3 lines: %w", quiet), ExitFailed, ""},
		{"bad flag", []string{"--nope"}, nil, ExitUsage, "tool: unknown flag: --nope\n"},
		{"unknown command", []string{"sub", "nope"}, nil, ExitUsage, "tool: unknown command \"nope\" for \"tool sub\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := &cobra.Command{Use: "tool --flag", RunE: func(*cobra.Command, []string) error { return tc.ret }}
			root.AddCommand(&cobra.Command{Use: "sub", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }})
			var out, errb bytes.Buffer
			code := Execute(context.Background(), root, tc.args, nil, &out, &errb, quiet)
			if code != tc.code || errb.String() != tc.wantStderr {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, errb.String(), tc.code, tc.wantStderr)
			}
		})
	}
}

// --version names the command and the build, from the root's name.
func TestExecuteVersion(t *testing.T) {
	var out, errb bytes.Buffer
	code := Execute(context.Background(), &cobra.Command{Use: "tool", Run: func(*cobra.Command, []string) {}}, []string{"--version"}, nil, &out, &errb)
	if code != ExitOK || !strings.HasPrefix(out.String(), "tool ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// The command runs under the context given: a main's signal context
// reaches its RunE.
func TestExecuteContext(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "sig")
	var got any
	root := &cobra.Command{Use: "tool", RunE: func(c *cobra.Command, _ []string) error { got = c.Context().Value(key{}); return nil }}
	if code := Execute(ctx, root, nil, nil, &bytes.Buffer{}, &bytes.Buffer{}); code != ExitOK || got != "sig" {
		t.Errorf("exit %d, context value %v", code, got)
	}
}
