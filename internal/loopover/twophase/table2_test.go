package twophase

import (
	"errors"
	"slices"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// TestPhase2Table checks that a solver reading the phase-2 table file's
// payload answers exactly as one that built the same bounds in memory,
// node for node, and that it builds nothing it was given.
func TestPhase2Table(t *testing.T) {
	payload := BuildPhase2()
	if len(payload) != phase2Entries {
		t.Fatalf("payload %d bytes, want %d", len(payload), phase2Entries)
	}
	mapped, err := NewWith(nil, payload)
	if err != nil {
		t.Fatal(err)
	}
	if &mapped.arm.dist[0] != &payload[0] || &mapped.wd2.dist[0] != &payload[n3*n3] {
		t.Fatal("the solver copied or rebuilt the tables it was given")
	}
	built := fallback(t)
	for _, st := range randomStates(4) {
		bud := search.Budget{MaxNodes: 20000}
		m1, l1, err1 := mapped.Solve(st.Cells, bud)
		m2, l2, err2 := built.Solve(st.Cells, bud)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !slices.Equal(m1, m2) || l1 != l2 {
			t.Fatalf("from the table: %d moves, bound %d; built: %d moves, bound %d", len(m1), l1, len(m2), l2)
		}
		coretest.Replay(t, st, m1)
	}
}

// TestPhase2TableRefused checks that a payload of the wrong size, or one
// whose goal entries are not 0, is refused as malformed.
func TestPhase2TableRefused(t *testing.T) {
	good := BuildPhase2()
	short := good[:len(good)-1]
	badArm, badWD := slices.Clone(good), slices.Clone(good)
	for i := range badArm[:n3*n3] {
		badArm[i] = 3
	}
	for i := range badWD[n3*n3:] {
		badWD[n3*n3+i] = 3
	}
	for name, p := range map[string][]byte{"short": short, "arm goal": badArm, "walking-distance goal": badWD} {
		if _, err := NewWith(nil, p); !errors.Is(err, puzzle.ErrMalformed) {
			t.Errorf("%s: got %v, want ErrMalformed", name, err)
		}
	}
}
