package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/tables"
)

func TestTablesListVerify(t *testing.T) {
	dir := t.TempDir()
	m := tables.Meta{Name: "demo", Puzzle: "sliding:3x3", Pattern: "1-4", Encoding: "u8", Entries: 4, Generator: 1, BuildMS: 1500}
	path, _, err := tables.Write(dir, m, []byte{0, 1, 2, 5})
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := solverd(t, "", "tables", "list", "--tables-dir", dir)
	if code != exitOK || !strings.Contains(stdout, "demo") || !strings.Contains(stdout, "2.000") || !strings.Contains(stdout, "1.5s") {
		t.Fatalf("list: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := solverd(t, "", "tables", "verify", "--tables-dir", dir); code != exitOK || !strings.Contains(stdout, "1 tables, 0 bad") {
		t.Fatalf("verify: exit %d %s", code, stdout)
	}
	// Corrupt the payload: verify names the file and the rebuild command.
	b, _ := os.ReadFile(path)
	b[len(b)-1] ^= 0xff
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = solverd(t, "", "tables", "verify", "--tables-dir", dir)
	if code != exitRejected || !strings.Contains(stderr, "checksum") || !strings.Contains(stderr, "solverd tables build demo") {
		t.Errorf("verify corrupt: exit %d %s", code, stderr)
	}
	// An empty directory is not an error.
	if code, _, stderr := solverd(t, "", "tables", "list", "--tables-dir", filepath.Join(dir, "none")); code != exitOK || !strings.Contains(stderr, "no tables") {
		t.Errorf("empty: exit %d %s", code, stderr)
	}
}
