package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/testenv"
)

// helperEnv makes the test binary run solverd with its arguments instead
// of the tests: a real process that a test can kill.
const helperEnv = "TESSERA_TEST_SOLVERD_ARGS"

// TestMain hides the host's tables (see testenv.MainWithoutTables).
func TestMain(m *testing.M) {
	if args := os.Getenv(helperEnv); args != "" {
		os.Exit(runContext(context.Background(), strings.Fields(args), os.Stdin, os.Stdout, os.Stderr))
	}
	testenv.MainWithoutTables(m)
}
