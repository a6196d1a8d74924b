package puzzle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The table of families is indexed by Kind: a family filed under the wrong
// kind would answer another family's rules.
func TestFamiliesAreIndexedByTheirKind(t *testing.T) {
	names := map[string]bool{}
	for k := Kind(0); int(k) < len(builtin)+2; k++ {
		f := k.Family()
		if k == 0 || int(k) >= len(builtin) {
			if f != nil {
				t.Errorf("Kind(%d).Family() = %s, want none", k, f.Name())
			}
			continue
		}
		if f == nil {
			t.Fatalf("Kind(%d) has no family", k)
		}
		if f.Kind() != k {
			t.Errorf("builtin[%d] is the family of %v", k, f.Kind())
		}
		if names[f.Name()] {
			t.Errorf("two families named %q", f.Name())
		}
		names[f.Name()] = true
		sp, err := ParseSpec(f.Name() + ":3x3")
		if err != nil || sp.Kind != k || sp.String() != f.Name()+":3x3" {
			t.Errorf("ParseSpec(%s:3x3) = %v, %v; want kind %v", f.Name(), sp, err, k)
		}
	}
}

// The unknown-kind error lists the families, in the words users saw before
// the list was built from the table.
func TestUnknownKindNamesEveryFamily(t *testing.T) {
	_, err := ParseSpec("cube:3x3")
	if err == nil || !strings.Contains(err.Error(), `unknown kind "cube" (want sliding, loopover or swap)`) {
		t.Errorf("ParseSpec(cube:3x3) = %v", err)
	}
}

// Every family keeps the contracts the rest of the code relies on, so a
// new family's file is checked without a test of its own: a random board
// is solvable and reads back from its text; a walk's moves format, parse
// and, inverted, replay to the goal; every legal move applies; the goal
// is a goal; the pipeline's defaults are usable.
func TestFamilyContracts(t *testing.T) {
	for _, f := range allFamilies() {
		if f == nil {
			continue
		}
		for _, shape := range [][2]int{{3, 3}, {2, 4}, {4, 4}} {
			sp := Spec{Kind: f.Kind(), Rows: shape[0], Cols: shape[1]}
			rng := rand.New(rand.NewPCG(uint64(sp.Kind), uint64(sp.Cells())))
			if g := Goal(sp); !g.IsGoal() || CheckGoal(g, g) != nil || Solvable(g) != nil {
				t.Errorf("%s: Goal %s is not a solvable goal", sp, g)
			}
			for range 20 {
				st := Random(sp, rng)
				if err := Solvable(st); err != nil {
					t.Fatalf("%s: Random gave %s: %v", sp, st, err)
				}
				back, err := Parse(sp, st.String())
				if err != nil || !back.Equal(st) {
					t.Fatalf("%s: %q reads back as %v, %v", sp, st.String(), back, err)
				}
				for _, m := range LegalMoves(st) {
					c := st.Clone()
					if err := c.Apply(m); err != nil {
						t.Fatalf("%s %s: legal move %s: %v", sp, st, FormatMoves(sp, []Move{m}), err)
					}
				}
				walked, ms := RandomWalkMoves(sp, rng, 15)
				text := FormatMoves(sp, InvertMoves(sp, ms))
				parsed, err := ParseMoves(sp, text)
				if err != nil || FormatMoves(sp, parsed) != text {
					t.Fatalf("%s: moves %q read back as %v, %v", sp, text, parsed, err)
				}
				if err := Verify(walked, text); err != nil {
					t.Fatalf("%s: %s does not undo the walk to %s: %v", sp, text, walked, err)
				}
			}
			if f.Arrangements(sp).Sign() <= 0 {
				t.Errorf("%s: %v arrangements", sp, f.Arrangements(sp))
			}
		}
	}
}

// The one-pass count of inversions equals the pairwise one on permutations
// of every size up to 64 cells, with and without a blank skipped, and
// boards with repeated values or values of 64 and more take the pairwise
// count.
func TestInversionsOnePass(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 2000 {
		n := 1 + rng.IntN(64)
		c := make([]uint8, n)
		for i := range c {
			c[i] = uint8(i)
		}
		rng.Shuffle(n, func(i, j int) { c[i], c[j] = c[j], c[i] })
		switch rng.IntN(4) {
		case 0: // repeats (a swap board's zeros and ones)
			for i := range c {
				c[i] = uint8(rng.IntN(3))
			}
		case 1: // values past the mask
			c[rng.IntN(n)] = uint8(64 + rng.IntN(100))
		}
		for _, skip := range []bool{false, true} {
			if got, want := inversions(c, skip), inversionsPairwise(c, skip); got != want {
				t.Fatalf("inversions(%v, %v) = %d, pairwise %d", c, skip, got, want)
			}
		}
	}
}

// The sliding family's applyMoves, which follows the blank, does what
// slidingApply does move by move: the same cells, and on a move it cannot
// make the same index and error, on random boards and random moves
// (illegal ones and unknown directions among them).
func TestSlidingApplyMovesFollowsBlank(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, name := range []string{"sliding:3x3", "sliding:4x4", "sliding:2x5", "sliding:5x2"} {
		sp, err := ParseSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		for range 3000 {
			a := Random(sp, rng)
			b := a.Clone()
			ms := make([]Move, rng.IntN(30))
			for i := range ms {
				ms[i] = Move{Dir: Dir(rng.IntN(5))}
			}
			gi, gerr := slidingRules.ApplyAll(sp, a.Cells, ms)
			wi, werr := 0, error(nil)
			for i, m := range ms {
				if werr = slidingApply(sp, b.Cells, m); werr != nil {
					wi = i
					break
				}
			}
			if gi != wi || fmt.Sprint(gerr) != fmt.Sprint(werr) || !slices.Equal(a.Cells, b.Cells) {
				t.Fatalf("%s %v: applyMoves %d %v %v; move by move %d %v %v", name, ms, gi, gerr, a.Cells, wi, werr, b.Cells)
			}
		}
	}
}

// Spec.String's table of names says what building the name says.
func TestSpecNamesTable(t *testing.T) {
	for k := range Swap + 2 {
		for r := -1; r <= 10; r++ {
			for c := -1; c <= 10; c++ {
				sp := Spec{Kind: k, Rows: r, Cols: c}
				if got, want := sp.String(), specName(sp); got != want {
					t.Fatalf("%#v: %q, want %q", sp, got, want)
				}
			}
		}
	}
}
