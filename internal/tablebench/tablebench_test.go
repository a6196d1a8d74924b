package tablebench

import (
	"context"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
)

// korf and optimal24 are the loops of the 15- and 24-puzzle rows; an 8-puzzle set stands in
// for the 24-puzzle tables. A row already measured is reused, not solved
// again, and its time counts against the list's budget; an instance out
// of budget is reported with its proved bound, not dropped.
func TestOptimal24(t *testing.T) {
	pdbs, _, err := pdb.BuildPartition(context.Background(), pdb.Partition{Rows: 3, Cols: 3, Patterns: [][]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}}}, pdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := pdb.NewSet(pdbs...)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := pdb.NewSolver(set, true)
	if err != nil {
		t.Fatal(err)
	}
	var ins []instances.Instance
	for i, cells := range [][]uint8{
		{8, 6, 7, 2, 5, 4, 3, 0, 1},
		{6, 4, 7, 8, 5, 0, 3, 2, 1},
		{1, 2, 3, 4, 5, 6, 0, 7, 8},
	} {
		out, err := sv.Solve(cells, search.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, instances.Instance{ID: i + 1, Opt: len(out.Path), Cells: cells})
	}
	// Korf passes on one and on two goroutines search the same trees.
	one, err := korf(sv, ins, 1)
	if err != nil {
		t.Fatal(err)
	}
	two, err := korf(sv, ins, 2)
	if err != nil || two.nodes != one.nodes || one.nodes == 0 {
		t.Fatalf("korf passes: one goroutine %+v, two %+v, %v", one, two, err)
	}
	bad := append([]instances.Instance(nil), ins...)
	bad[1].Opt++
	if _, err := korf(sv, bad, 2); err == nil {
		t.Fatal("a wrong published optimum passed")
	}
	logf := func(string, ...any) {}
	done := map[int]optRow{}
	first, err := optimal24(context.Background(), sv, ins[:2], time.Minute, 2, done, logf)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range first {
		if r.again || r.found != ins[i].Opt || r.nodes == 0 {
			t.Fatalf("first list, row %d: %+v", i, r)
		}
	}
	// The second list shares #2 with the first; #3 gets what is left of a
	// budget that #2's recorded time has already used up.
	done[2] = optRow{in: ins[1], found: ins[1].Opt, nodes: 7, el: time.Hour}
	second, err := optimal24(context.Background(), sv, ins[1:], time.Hour+time.Nanosecond, 2, done, logf)
	if err != nil {
		t.Fatal(err)
	}
	if r := second[0]; !r.again || r.nodes != 7 {
		t.Fatalf("#2 solved again: %+v", r)
	}
	if r := second[1]; r.found != 0 || r.lower < 1 || r.lower > ins[2].Opt {
		t.Fatalf("#3 past its budget: %+v", r)
	}
	if r, ok := done[3]; !ok || r.found != 0 {
		t.Fatalf("#3 not recorded: %+v", r)
	}
}
