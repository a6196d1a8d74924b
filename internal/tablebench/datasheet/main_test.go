package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplaceSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "B.md")
	os.WriteFile(path, []byte("# Benchmarks\n\nold text\n"), 0o644)
	if err := replaceSection(path, begin+"\none\n"+end); err != nil {
		t.Fatal(err)
	}
	if err := replaceSection(path, begin+"\ntwo\n"+end); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	s := string(b)
	if !strings.Contains(s, "old text") || strings.Contains(s, "one") || strings.Count(s, "two") != 1 || strings.Count(s, begin) != 1 {
		t.Fatalf("document:\n%s", s)
	}
}
