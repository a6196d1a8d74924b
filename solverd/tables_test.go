package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/tableservice"
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

// TestTablesBuildAndSolve: build a set by name, see the second build skip
// it, and solve with it; a solve without it says which command builds the
// best set.
func TestTablesBuildAndSolve(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := solverd(t, "", "tables", "build", "--tables-dir", dir); code != exitUsage || !strings.Contains(stderr, "15-pdb-78") {
		t.Fatalf("build without names: exit %d %s", code, stderr)
	}
	if code, _, stderr := solverd(t, "", "tables", "build", "15-pdb-nope", "--tables-dir", dir); code != exitUsage || !strings.Contains(stderr, "unknown table") {
		t.Fatalf("unknown name: exit %d %s", code, stderr)
	}
	code, stdout, stderr := solverd(t, "", "tables", "build", "15-pdb-555", "--tables-dir", dir)
	if code != exitOK || strings.Count(stdout, "built 15-pdb-555-") != 3 || strings.Contains(stderr, "\r") {
		t.Fatalf("build: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := solverd(t, "", "tables", "build", "15-pdb-555-b", "--tables-dir", dir); code != exitOK || !strings.Contains(stdout, "have 15-pdb-555-b") {
		t.Fatalf("rebuild: exit %d %s", code, stdout)
	}
	korf1 := "13 6 8 12/15 14 0 10/11 7 4 5/9 1 3 2"
	code, stdout, stderr = solverd(t, "", "solve", "--puzzle", "sliding:4x4", "--tables-dir", dir, korf1)
	if code != exitOK || !strings.Contains(stdout, `"length":57`) || !strings.Contains(stdout, "pdb-5-5-5+reflect") {
		t.Fatalf("solve with tables: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "solverd tables build 15-pdb-78") {
		t.Errorf("no advice about the better set: %s", stderr)
	}
	code, _, stderr = solverd(t, "", "solve", "--puzzle", "sliding:4x4", "--tables-dir", dir, "--tables", "15-pdb-663", korf1)
	if code == exitOK || !strings.Contains(stderr, "solverd tables build 15-pdb-663") {
		t.Fatalf("missing named set: exit %d %s", code, stderr)
	}
}

// TestTablesPushPull: a host pushes its tables; a fresh host pulls them
// byte for byte, and a second pull has nothing to do.
func TestTablesPushPull(t *testing.T) {
	url, _ := natstest.Server(t)
	a, b := t.TempDir(), t.TempDir()
	if code, _, stderr := solverd(t, "", "tables", "build", "15-pdb-555-a", "--tables-dir", a); code != exitOK {
		t.Fatalf("build: %s", stderr)
	}
	code, stdout, stderr := solverd(t, "", "tables", "push", "--tables-dir", a, "--nats-url", url)
	if code != exitOK || !strings.Contains(stdout, "pushed 15-pdb-555-a.g1.tbl") {
		t.Fatalf("push: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := solverd(t, "", "tables", "push", "--tables-dir", a, "--nats-url", url); code != exitOK || !strings.Contains(stdout, "bucket has 15-pdb-555-a") {
		t.Fatalf("second push: exit %d %s", code, stdout)
	}
	code, stdout, stderr = solverd(t, "", "tables", "pull", "15-pdb-555-a", "--tables-dir", b, "--nats-url", url)
	if code != exitOK || !strings.Contains(stdout, "pulled") {
		t.Fatalf("pull: exit %d\n%s%s", code, stdout, stderr)
	}
	x, _ := os.ReadFile(filepath.Join(a, "15-pdb-555-a.g1.tbl"))
	y, _ := os.ReadFile(filepath.Join(b, "15-pdb-555-a.g1.tbl"))
	if len(x) == 0 || string(x) != string(y) {
		t.Fatal("pulled table differs")
	}
	if code, _, stderr := solverd(t, "", "tables", "pull", "--tables-dir", b, "--nats-url", url); code != exitOK || !strings.Contains(stderr, "nothing to pull") {
		t.Fatalf("second pull: exit %d %s", code, stderr)
	}
	if code, _, stderr := solverd(t, "", "tables", "pull", "15-pdb-555-b", "--tables-dir", b, "--nats-url", url); code == exitOK || !strings.Contains(stderr, "not in the bucket") {
		t.Fatalf("pull of a table the bucket lacks: exit %d %s", code, stderr)
	}
}

// An optional table named only through its set is not required of a
// bucket (one filled before the table existed still serves the set); named
// itself, it is.
func TestFileNamesOptional(t *testing.T) {
	set, err := tableservice.FileNames([]string{"loopover-5x5-p1"})
	if err != nil || len(set) != 3 || !set["loopover-5x5-p1.g1.tbl"] || set["loopover-5x5-p2.g1.tbl"] || set["loopover-5x5-arm8.g1.tbl"] {
		t.Fatalf("by set: %v %v", set, err)
	}
	if _, listed := set["loopover-5x5-p2.g1.tbl"]; !listed {
		t.Fatal("the optional table is not pulled with its set")
	}
	own, err := tableservice.FileNames([]string{"loopover-5x5-p2"})
	if err != nil || len(own) != 1 || !own["loopover-5x5-p2.g1.tbl"] {
		t.Fatalf("by name: %v %v", own, err)
	}
}
