package pdb

import (
	"context"
	"errors"
	"testing"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
)

// A batch answers every state as Solve does, node for node, whatever the
// number of lanes; budgets end each state on its own.
func TestSolveBatchMatchesSolve(t *testing.T) {
	var pdbs []*PDB
	for _, tiles := range Partition555.Patterns {
		p, _, err := Build(context.Background(), 4, 4, tiles, Options{})
		if err != nil {
			t.Fatal(err)
		}
		pdbs = append(pdbs, p)
	}
	sv := reflectingSolver(t, pdbs...)
	var states [][]uint8
	for _, k := range instances.Korf100() {
		if map[int]bool{1: true, 2: true, 5: true, 6: true, 9: true, 61: true, 65: true}[k.ID] {
			states = append(states, k.Cells)
		}
	}
	goal := make([]uint8, 16)
	for i := range 15 {
		goal[i] = uint8(i + 1)
	}
	states = append(states, goal, []uint8{1, 2, 3}) // the goal itself; not a board
	b := search.Budget{}
	for _, lanes := range []int{1, 3, 16} {
		outs, errs := sv.SolveBatch(states, b, lanes)
		for i, st := range states {
			want, werr := sv.Solve(st, b)
			if (werr == nil) != (errs[i] == nil) || werr != nil && !errors.Is(errs[i], werr) && errs[i].Error() != werr.Error() {
				t.Fatalf("lanes %d, state %d: error %v, Solve: %v", lanes, i, errs[i], werr)
			}
			if string(outs[i].Path) != string(want.Path) || outs[i].Nodes != want.Nodes || outs[i].LowerBound != want.LowerBound || outs[i].Optimal != want.Optimal {
				t.Fatalf("lanes %d, state %d: %+v, Solve: %+v", lanes, i, outs[i], want)
			}
		}
	}
	// A node budget stops a state with the bound it proved, as Solve does.
	b = search.Budget{MaxNodes: 5000}
	outs, errs := sv.SolveBatch(states[:len(states)-2], b, 4)
	for i, st := range states[:len(states)-2] {
		want, werr := sv.Solve(st, b)
		if !errors.Is(errs[i], werr) && (errs[i] != nil || werr != nil) || outs[i].LowerBound != want.LowerBound || outs[i].Nodes != want.Nodes {
			t.Fatalf("budget, state %d: %+v %v, Solve: %+v %v", i, outs[i], errs[i], want, werr)
		}
	}
}
