package main

import (
	"strings"
	"testing"
)

// Issue 29: no command had an Examples: section, and no binary a
// --version. Every command's --help (found by walking "Available
// Commands:") now shows examples.
func TestEveryCommandHasExamples(t *testing.T) {
	var walk func(args []string)
	seen := 0
	walk = func(args []string) {
		_, out, _ := runProducer(t, args...)
		seen++
		if !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help has no Examples:", strings.Join(args[:len(args)-1], " "))
		}
		_, rest, ok := strings.Cut(out, "Available Commands:\n")
		if !ok {
			return
		}
		for _, line := range strings.Split(rest, "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				break
			}
			if f[0] != "help" && f[0] != "completion" {
				walk(append(append([]string{}, args[:len(args)-1]...), f[0], "--help"))
			}
		}
	}
	walk([]string{"--help"})
	if seen < 2 {
		t.Errorf("walked %d commands", seen)
	}
}

func TestVersion(t *testing.T) {
	args := []string{"--version"}
	_, out, _ := runProducer(t, args...)
	for _, want := range []string{"producer ", "revision", "go1.", "tables     format "} {
		if !strings.Contains(out, want) {
			t.Errorf("--version lacks %q:\n%s", want, out)
		}
	}
}
