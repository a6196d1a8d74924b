package main

import (
	"testing"

	"github.com/tessera-solver/tessera/internal/testenv"
)

// Every command's --help (found by walking "Available Commands:") shows
// examples.
func TestEveryCommandHasExamples(t *testing.T) {
	testenv.EveryCommandHasExamples(t, func(args ...string) string {
		_, out, _ := runProducer(t, args...)
		return out
	})
}

func TestVersion(t *testing.T) {
	_, out, _ := runProducer(t, "--version")
	testenv.VersionNames(t, "producer", out)
}
