package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/tables/catalog"
)

type generated struct {
	State  string `json:"state"`
	Moves  string `json:"moves"`
	Length int    `json:"length"`
}

// genOut parses the JSON lines of a generation and checks each state is
// distinct, answered in exactly length moves that replay to the goal, and
// (when tb is given) exactly length from the goal by BFS.
func genOut(t *testing.T, spec puzzle.Spec, stdout string, length, count int, tb *fulltable.Table) {
	t.Helper()
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var g generated
		if err := json.Unmarshal([]byte(l), &g); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if seen[g.State] {
			t.Errorf("%s generated twice", g.State)
		}
		seen[g.State] = true
		st, err := puzzle.Parse(spec, g.State)
		if err != nil {
			t.Fatal(err)
		}
		if err := puzzle.Verify(st, g.Moves); err != nil || g.Length != length {
			t.Errorf("%s: length %d (%v)", g.State, g.Length, err)
		}
		if tb != nil {
			if d, ok := tb.Distance(st.Cells); !ok || d != length {
				t.Errorf("%s: BFS distance %d, want %d", g.State, d, length)
			}
		}
	}
	if len(seen) != count {
		t.Errorf("%d states generated, want %d", len(seen), count)
	}
}

// Generation on a small space draws from the whole-space table (and asks
// for what does not exist with a clear error); uniform sampling and walks
// work too. Every state is proved by the pipeline and checked by BFS here.
func TestGenerateTargetLength(t *testing.T) {
	url := storetest.SchemaURL(t)
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}
	tb, err := fulltable.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	// A generation backend's request: high priority, stored with the batch.
	code, stdout, stderr := runProducer(t, "--local", "-q", "--puzzle", "8", "--target-length", "25", "--count", "40", "--seed", "1", "--priority", "high", "--database-url", url)
	if code != exitOK || !strings.Contains(stderr, "(table)") {
		t.Fatalf("table: exit %d\n%s", code, stderr)
	}
	genOut(t, spec, stdout, 25, 40, tb)
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := st.Batches(context.Background(), 10)
	st.Close()
	if err != nil || len(bs) == 0 {
		t.Fatalf("batches: %v %v", bs, err)
	}
	for _, b := range bs {
		if b.Priority != "high" {
			t.Errorf("batch %d has priority %q, want high", b.ID, b.Priority)
		}
	}
	if code, _, stderr := runProducer(t, "--puzzle", "8", "--random", "3", "--priority", "urgent", "--database-url", url); code != exitUsage || !strings.Contains(stderr, "producer.priority") {
		t.Errorf("--priority urgent: exit %d %s", code, stderr)
	}

	// Uniform sampling where the length is common; the 40 of length 25
	// already stored do not count toward length 22.
	code, stdout, stderr = runProducer(t, "--local", "-q", "--puzzle", "8", "--target-length", "22", "--count", "30", "--method", "sample", "--seed", "2", "--database-url", url)
	if code != exitOK || !strings.Contains(stderr, "(sample)") {
		t.Fatalf("sample: exit %d\n%s", code, stderr)
	}
	genOut(t, spec, stdout, 22, 30, tb)

	// Walks for a short tail of the 15-puzzle (no table: proved by IDA*).
	fifteen := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	code, stdout, stderr = runProducer(t, "--local", "-q", "--puzzle", "15", "--target-length", "14", "--count", "10", "--method", "walk", "--seed", "3", "--database-url", url)
	if code != exitOK || !strings.Contains(stderr, "(walk)") {
		t.Fatalf("walk: exit %d\n%s", code, stderr)
	}
	genOut(t, fifteen, stdout, 14, 10, nil)

	// Only two 8-puzzle states are 31 moves from the goal.
	code, _, stderr = runProducer(t, "--local", "-q", "--puzzle", "8", "--target-length", "31", "--count", "3", "--database-url", url)
	if code != exitError || !strings.Contains(stderr, "only 2 distinct states") {
		t.Errorf("more than exist: exit %d %s", code, stderr)
	}
	if code, _, stderr := runProducer(t, "--puzzle", "8", "--target-length", "5", "--count", "3", "--mode", "fast", "--database-url", url); code != exitUsage {
		t.Errorf("fast mode: exit %d %s", code, stderr)
	}
}

// On a 12-cell Loopover board whose table file is built, generation draws
// from it (about a minute and 240 MB to build the table: run with
// TESSERA_BFS_BIG=1).
func TestGenerateFromTableFile(t *testing.T) {
	if os.Getenv("TESSERA_BFS_BIG") == "" || testing.Short() {
		t.Skip("set TESSERA_BFS_BIG=1 to build the 3x4 Loopover table")
	}
	dir := t.TempDir()
	if code, _, stderr := buildSet(t, dir, "loopover-3x4-bfs"); code != 0 {
		t.Fatalf("tables build: %d %s", code, stderr)
	}
	url := storetest.SchemaURL(t)
	code, stdout, stderr := runProducer(t, "--local", "-q", "--puzzle", "loopover:3x4", "--target-length", "12", "--count", "20",
		"--seed", "5", "--tables-dir", dir, "--database-url", url)
	if code != exitOK || !strings.Contains(stderr, "(table)") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	genOut(t, puzzle.Spec{Kind: puzzle.Loopover, Rows: 3, Cols: 4}, stdout, 12, 20, nil)
}

// buildSet builds a table set into dir with the catalogue.
func buildSet(t *testing.T, dir, set string) (int, string, string) {
	t.Helper()
	s, ok := catalog.LookupSet(set)
	if !ok {
		t.Fatalf("no set %s", set)
	}
	for _, tb := range s.Tables {
		if _, _, err := catalog.Build(context.Background(), dir, tb, nil); err != nil {
			return 1, "", err.Error()
		}
	}
	return 0, "", ""
}
