package cmdkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/internal/version"
)

// Exit codes of the command-line contract, the same in every main.
const (
	ExitOK     = 0 // everything done
	ExitFailed = 1 // something failed or was rejected
	ExitUsage  = 2 // a bad flag, argument or setting
)

// UsageError marks an error of the call itself (exit 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef is a formatted UsageError.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// Execute runs root with args under ctx and returns the exit code. It
// gives root the streams, --version (the build, Go and the table format),
// silent usage and errors, and flag errors as usage errors. An error is
// printed on stderr as "name: error", unless it is one of quiet: those
// exit 1 after the command has printed its own report.
func Execute(ctx context.Context, root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer, quiet ...error) int {
	name := root.Name()
	root.Version = version.String(name)
	root.SetVersionTemplate("{{.Version}}")
	root.SilenceUsage, root.SilenceErrors = true, true
	root.SetArgs(args)
	if stdin != nil {
		root.SetIn(stdin)
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UsageError{err} })
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	for _, q := range quiet {
		if errors.Is(err, q) {
			return ExitFailed
		}
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	var u UsageError
	if errors.As(err, &u) || strings.HasPrefix(err.Error(), "unknown command") {
		return ExitUsage
	}
	return ExitFailed
}

// SetExamples gives every command below root its entry of examples, by
// command path (a command's own Example wins); cobra's help and
// completion have none.
func SetExamples(root *cobra.Command, examples map[string]string) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if e, ok := examples[c.CommandPath()]; ok && c.Example == "" {
			c.Example = e
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
