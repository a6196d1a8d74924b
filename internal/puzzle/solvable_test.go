package puzzle

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestSolvableMatchesBFS is the oracle for the parity rules: on small
// boards a state is solvable exactly when BFS from the goal reaches it.
func TestSolvableMatchesBFS(t *testing.T) {
	for _, name := range []string{
		"sliding:2x2", "sliding:2x3", "sliding:3x2", "sliding:2x4", "sliding:4x2", "sliding:3x3",
		"loopover:2x2", "loopover:2x3", "loopover:3x2", "loopover:3x3",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sp := mustSpec(t, name)
			if testing.Short() && sp.Cells() > 8 {
				t.Skip("9! states: skipped in -short")
			}
			dist, _ := bfs(t, Goal(sp))
			n := sp.Cells()
			want := factorial(n)
			half := sp.Kind == Sliding || (sp.Rows%2 == 1 && sp.Cols%2 == 1)
			if half {
				want /= 2
			}
			if len(dist) != want {
				t.Fatalf("BFS reached %d states, want %d", len(dist), want)
			}
			cells := slices.Clone(Goal(sp).Cells)
			solvable, bad := 0, 0
			permutations(cells, func(c []uint8) {
				st := State{Spec: sp, Cells: c}
				err := Solvable(st)
				_, reached := dist[key(c)]
				if err != nil && !errors.Is(err, ErrUnsolvable) {
					t.Fatalf("%v: %v", st, err)
				}
				if (err == nil) != reached {
					bad++
					if bad <= 5 {
						t.Errorf("%v: Solvable = %v, BFS reachable = %v", st, err, reached)
					}
				}
				if err == nil {
					solvable++
				}
			})
			if solvable != want {
				t.Errorf("%d states judged solvable, want %d", solvable, want)
			}
		})
	}
}

// The distance distributions of the sliding boards are published (OEIS,
// /work/shared/data/sliding-distributions.md): they pin the goal and the
// move semantics of Apply.
func TestSlidingDistributions(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []int
	}{
		{"sliding:2x3", []int{1, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18, 12, 6, 1}},
		{"sliding:2x4", []int{1, 2, 3, 6, 10, 14, 19, 28, 42, 61, 85, 119, 161, 215, 293, 396, 506, 632, 788, 985, 1194, 1414, 1664, 1884, 1999, 1958, 1770, 1463, 1076, 667, 361, 190, 88, 39, 19, 7, 1}},
		{"sliding:3x3", []int{1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2}},
	} {
		sp := mustSpec(t, tc.spec)
		if testing.Short() && sp.Cells() > 8 {
			continue
		}
		_, counts := bfs(t, Goal(sp))
		if !slices.Equal(counts, tc.want) {
			t.Errorf("%s: BFS depth counts\n got %v\nwant %v", tc.spec, counts, tc.want)
		}
	}
}

func TestSolvableMessages(t *testing.T) {
	for _, tc := range []struct {
		spec, state string
		want        []string // substrings; nil = solvable
	}{
		{"sliding:3x3", "1 2 3/4 5 6/7 8 0", nil},
		{"sliding:3x3", "2 1 3/4 5 6/7 8 0", []string{"3x3 sliding", "even number of inversions", "this state has 1 inversion"}},
		{"sliding:3x3", "8 1 2/0 4 3/7 6 5", []string{"has 11 inversions"}},
		{"sliding:3x3", "1 8 2/0 4 3/7 6 5", nil},
		{"sliding:4x4", "1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 0", []string{"4x4 sliding needs inversions + blank row from bottom", "to be odd", "has 1 inversion and", "blank on row 1 from the bottom"}},
		// Moving the blank up one row from the goal: 3 inversions, row 2.
		{"sliding:4x4", "1 2 3 4/5 6 7 8/9 10 11 0/13 14 15 12", nil},
		{"sliding:4x4", "1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15", nil},
		{"sliding:4x4", "1 2 3 4/5 6 7 8/9 10 11 12/0 13 14 15", nil},
		{"sliding:4x4", "1 2 3 4/5 6 7 8/9 10 11 12/0 13 15 14", []string{"has 1 inversion and", "row 1 from the bottom"}},
		{"sliding:4x4", "1 2 3 4/5 6 7 8/9 10 11 0/13 14 12 15", []string{"2 inversions", "row 2 from the bottom"}},
		{"loopover:3x3", "2 1 3/4 5 6/7 8 9", []string{"3x3 loopover", "odd permutation", "(1 inversion)"}},
		{"loopover:4x4", "2 1 3 4/5 6 7 8/9 10 11 12/13 14 15 16", nil},
		{"loopover:3x4", "2 1 3 4/5 6 7 8/9 10 11 12", nil},
		{"swap:3x3", "111/000/101", nil},
	} {
		sp := mustSpec(t, tc.spec)
		st, err := ParseUnchecked(sp, tc.state)
		if err != nil {
			t.Fatalf("ParseUnchecked(%q): %v", tc.state, err)
		}
		err = Solvable(st)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s %q: %v", tc.spec, tc.state, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnsolvable) {
			t.Errorf("%s %q: err = %v, want ErrUnsolvable", tc.spec, tc.state, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %q: %q does not mention %q", tc.spec, tc.state, err, w)
			}
		}
		if _, perr := Parse(sp, tc.state); perr == nil || perr.Error() != err.Error() {
			t.Errorf("Parse(%q) = %v, want the Solvable error", tc.state, perr)
		}
	}
}

func TestSolvableMalformed(t *testing.T) {
	sp := mustSpec(t, "8")
	for _, c := range [][]uint8{nil, {1, 2, 3}, {1, 1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		if err := Solvable(State{Spec: sp, Cells: c}); !errors.Is(err, ErrMalformed) {
			t.Errorf("Solvable(%v) = %v, want ErrMalformed", c, err)
		}
	}
}

func TestInversionsAndBlank(t *testing.T) {
	sp := mustSpec(t, "8")
	st := mustParse(t, sp, "1 3 4/7 0 2/5 8 6") // the seed text's example: 6 inversions
	if got := SlidingInversions(st); got != 6 {
		t.Errorf("SlidingInversions = %d, want 6", got)
	}
	if got := BlankIndex(st); got != 4 {
		t.Errorf("BlankIndex = %d, want 4", got)
	}
	if got := BlankIndex(Goal(mustSpec(t, "loopover:3x3"))); got != -1 {
		t.Errorf("BlankIndex(loopover) = %d, want -1", got)
	}
}
