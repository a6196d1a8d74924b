package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// A split batch (producer --split) through the whole pipeline, NATS and
// PostgreSQL, stores the rows an unsplit batch stores: same status,
// moves, length, optimal and lower bound for every state; the solver
// names the split search, and its nodes count its walks too.
func TestLocalSplitRowsEqualUnsplit(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := buildSet(t, dir, "15-pdb-555"); code != 0 {
		t.Fatalf("tables build: %d %s", code, stderr)
	}
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	var lines []string
	for _, k := range instances.Korf100()[:6] {
		lines = append(lines, puzzle.State{Spec: spec, Cells: k.Cells}.String())
	}
	file := filepath.Join(t.TempDir(), "korf.txt")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := func(split bool) []store.Solution {
		url := storetest.SchemaURL(t)
		args := []string{"--local", "-q", "--puzzle", "15", "--file", file, "--tables-dir", dir, "--database-url", url}
		if split {
			args = append(args, "--split")
		}
		code, stdout, stderr := runProducer(t, args...)
		if code != exitOK {
			t.Fatalf("split %v: exit %d: %s", split, code, stderr)
		}
		batch, _ := output(t, stdout)
		rs, err := openStore(t, url).BatchRows(context.Background(), batch, nil, -1, 100)
		if err != nil || len(rs) != len(lines) {
			t.Fatalf("split %v: %d rows, %v", split, len(rs), err)
		}
		return rs
	}
	whole, split := rows(false), rows(true)
	for i := range whole {
		w, s := whole[i], split[i]
		if w.Status != "solved" || s.Status != w.Status || *s.Moves != *w.Moves || *s.Length != *w.Length || !s.Optimal || !w.Optimal ||
			s.LowerBound != w.LowerBound || s.State != w.State || !strings.HasSuffix(s.Solver, " split") || s.Nodes < w.Nodes {
			t.Errorf("seq %d: split %+v\nunsplit %+v", w.Seq, s, w)
		}
	}
}
