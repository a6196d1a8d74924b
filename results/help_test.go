package main

import (
	"context"
	"testing"

	"github.com/tessera-solver/tessera/internal/testenv"
)

// Every command's --help (found by walking "Available Commands:") shows
// examples.
func TestEveryCommandHasExamples(t *testing.T) {
	testenv.EveryCommandHasExamples(t, func(args ...string) string {
		_, out, _ := cli(t, context.Background(), args...)
		return out
	})
}

func TestVersion(t *testing.T) {
	_, out, _ := cli(t, context.Background(), "--version")
	testenv.VersionNames(t, "results", out)
}
