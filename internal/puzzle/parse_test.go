package puzzle

import (
	"bufio"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestGoal(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"15", "1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 0"},
		{"sliding:2x3", "1 2 3/4 5 0"},
		{"loopover:3x3", "1 2 3/4 5 6/7 8 9"},
		{"loopover:2x4", "1 2 3 4/5 6 7 8"},
		{"swap:4x4", "1111/1111/0000/0000"},
		{"swap:3x3", "111/100/000"},
	} {
		g := Goal(mustSpec(t, tc.spec))
		if g.String() != tc.want {
			t.Errorf("Goal(%s) = %q, want %q", tc.spec, g, tc.want)
		}
		if !g.IsGoal() || !g.Goal().Equal(g) {
			t.Errorf("Goal(%s) is not its own goal", tc.spec)
		}
	}
	sp := mustSpec(t, "swap:4x4")
	st := mustParse(t, sp, "1101/0110/0100/1010")
	if got, want := st.Goal().String(), "1111/1111/0000/0000"; got != want {
		t.Errorf("swap goal = %q, want %q", got, want)
	}
	if st.IsGoal() {
		t.Error("scrambled swap board reported as goal")
	}
	for k := 0; k <= 16; k++ {
		g := SwapGoal(sp, k)
		if countOnes(g.Cells) != k || !g.IsGoal() {
			t.Errorf("SwapGoal(%d) = %v", k, g)
		}
	}
	if countOnes(SwapGoal(sp, 99).Cells) != 16 || countOnes(SwapGoal(sp, -3).Cells) != 0 {
		t.Error("SwapGoal does not clamp")
	}
	// IsGoal on near misses.
	for _, tc := range []struct{ spec, state string }{
		{"8", "1 2 3/4 5 6/7 0 8"},
		{"loopover:2x2", "1 2/4 3"},
		{"swap:2x2", "10/10"},
	} {
		if mustParse(t, mustSpec(t, tc.spec), tc.state).IsGoal() {
			t.Errorf("%s %q reported as goal", tc.spec, tc.state)
		}
	}
	if (State{Spec: mustSpec(t, "8"), Cells: []uint8{1, 2, 3}}).IsGoal() {
		t.Error("short board reported as goal")
	}
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range []struct{ spec, in, want string }{
		{"8", "1 2 3/4 5 6/7 8 0", "1 2 3/4 5 6/7 8 0"},
		{"8", "  1,2,3 / 4, 5, 6 /7  8\t0 \n", "1 2 3/4 5 6/7 8 0"},
		{"8", "1 2 3 4 5 6 7 8 0", "1 2 3/4 5 6/7 8 0"},    // one line, row-major
		{"8", "1,2,3,4,5,6,7,8,0", "1 2 3/4 5 6/7 8 0"},    // one line, commas
		{"8", "01 2 3/4 5 6/7 8 00", "1 2 3/4 5 6/7 8 0"},  // leading zeros
		{"8", "1 2 3,/4 5 6,/7 8 0,", "1 2 3/4 5 6/7 8 0"}, // trailing commas
		{"sliding:2x3", "4 1 2/5 0 3", "4 1 2/5 0 3"},      // non-square
		{"loopover:3x3", "A B C/D E F/G H I", "1 2 3/4 5 6/7 8 9"},
		{"loopover:3x3", "abc/def/ghi", "1 2 3/4 5 6/7 8 9"},
		{"loopover:3x3", "ABCDEFGHI", "1 2 3/4 5 6/7 8 9"},
		{"loopover:3x3", "1 B 3/D 5 F/7 H 9", "1 2 3/4 5 6/7 8 9"},
		{"loopover:2x2", "2 1/3 4", "2 1/3 4"},
		{"swap:4x4", "1101/0110/0100/1010", "1101/0110/0100/1010"},
		{"swap:4x4", "1 1 0 1/0,1,1,0/0100/1 0 1 0", "1101/0110/0100/1010"},
		{"swap:4x4", "1101011001001010", "1101/0110/0100/1010"},
		{"swap:2x2", "00/00", "00/00"}, // no ones: already the goal
		{"swap:2x2", "11/11", "11/11"},
	} {
		st, err := Parse(mustSpec(t, tc.spec), tc.in)
		if err != nil {
			t.Errorf("Parse(%s, %q): %v", tc.spec, tc.in, err)
			continue
		}
		if st.String() != tc.want {
			t.Errorf("Parse(%s, %q) = %q, want %q", tc.spec, tc.in, st, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		spec, in string
		want     []string
	}{
		{"8", "", []string{"empty", "3 rows"}},
		{"8", "   \n", []string{"empty"}},
		{"8", "1 2 3/4 5 6", []string{"got 2 rows, want 3"}},
		{"8", "1 2 3/4 5 6/7 8 0/", []string{"got 4 rows, want 3"}},
		{"8", "1 2 3 4 5 6 7 8", []string{"got 1 row, want 3"}},
		{"8", "1 2 3/4 5/6 7 8 0", []string{"row 2 has 2 cells, want 3"}},
		{"15", "1 2 3 4/5 6 7/9 10 11 12/13 14 15 0", []string{"row 2 has 3 cells, want 4"}},
		{"8", "1 2 3//4 5 6 7 8 0", []string{"row 2 has 0 cells, want 3"}},
		{"8", "1 2 3/4 5 9/7 8 0", []string{"row 2, column 3", `"9" is out of range 0..8`}},
		{"8", "1 2 3/4 x 6/7 8 0", []string{"row 2, column 2", `"x" is not a number`}},
		{"8", "1 2 3/4 -5 6/7 8 0", []string{`"-5" is not a number`}},
		{"8", "1 2 3/4 5.0 6/7 8 0", []string{`"5.0" is not a number`}},
		{"8", "1 2 3/4 99999999999999999999 6/7 8 0", []string{"out of range"}},
		{"15", "1 2 3 4/5 6 7 7/9 10 11 12/13 14 15 0", []string{"tile 7 appears twice", "row 2, column 3 and row 2, column 4", "tile 8 is missing"}},
		{"8", "0 2 3/4 5 6/7 8 0", []string{"the blank (0) appears twice", "tile 1 is missing"}},
		{"8", "1 2 3/4 5 6/8 7 0", []string{"unsolvable", "even number of inversions", "has 1 inversion"}},
		{"15", "1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 0", []string{"unsolvable", "4x4 sliding needs inversions + blank row from bottom", "has 1 inversion and", "row 1 from the bottom"}},
		{"loopover:3x3", "1 2 3/4 5 6/7 8 10", []string{`"10" is out of range 1..9`}},
		{"loopover:3x3", "0 2 3/4 5 6/7 8 1", []string{`"0" is out of range 1..9`}},
		{"loopover:3x3", "A B C/D E F/G H J", []string{"letter J is out of range A..I"}},
		{"loopover:3x3", "A B C/D E F/G H AA", []string{`"AA" is not a piece number or letter`}},
		{"loopover:3x3", "AB/DEF/GHI", []string{"row 1 has 2 cells, want 3"}},
		{"loopover:3x3", "1 2 2/4 5 6/7 8 9", []string{"piece 2 appears twice", "piece 3 is missing"}},
		{"loopover:3x3", "2 1 3/4 5 6/7 8 9", []string{"unsolvable", "odd permutation"}},
		{"swap:4x4", "1101/0110/0100", []string{"got 3 rows, want 4"}},
		{"swap:4x4", "1101/011/0100/1010", []string{"row 2 has 3 cells, want 4"}},
		{"swap:4x4", "1101/01100/0100/1010", []string{"row 2 has 5 cells, want 4"}},
		{"swap:4x4", "1101/0120/0100/1010", []string{"row 2, column 3", `"2" is out of range 0..1`}},
		{"swap:4x4", "1101/01x0/0100/1010", []string{"row 2, column 3", `"x" is not 0 or 1`}},
		{"swap:4x4", "1101/01x00/0100/1010", []string{"row 2 has 1 cell, want 4"}},
		{"swap:4x4", "1101/0 1 x 0/0100/1010", []string{"row 2, column 3", `"x" is not 0 or 1`}},
		{"swap:4x4", "1101/11 01/0100/1010", []string{"row 2 has 2 cells, want 4"}},
		{"sliding:9x9", "1", []string{"between 2 and 8"}},
		{"8", "1 2 3/4 5\u00a06/7 8 0", []string{"row 2 has 2 cells, want 3"}},
		{"8", "1 2 3/4 5 6/7 8 \u00a00", []string{`"\u00a00" is not a number`}},
	} {
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			sp = Spec{Kind: Sliding, Rows: 9, Cols: 9}
		}
		_, err = Parse(sp, tc.in)
		if err == nil {
			t.Errorf("Parse(%s, %q) accepted", tc.spec, tc.in)
			continue
		}
		unsolvable := strings.Contains(tc.want[0], "unsolvable")
		if unsolvable != errors.Is(err, ErrUnsolvable) || unsolvable == errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%s, %q) = %v: wrong sentinel", tc.spec, tc.in, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Parse(%s, %q) = %q, want it to mention %q", tc.spec, tc.in, err, w)
			}
		}
	}
}

func TestParseUncheckedKeepsUnsolvable(t *testing.T) {
	sp := mustSpec(t, "8")
	st, err := ParseUnchecked(sp, "1 2 3/4 5 6/8 7 0")
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(Solvable(st), ErrUnsolvable) {
		t.Error("expected unsolvable")
	}
	if _, err := ParseUnchecked(sp, "1 2 3/4 5 6/8 8 0"); !errors.Is(err, ErrMalformed) {
		t.Errorf("ParseUnchecked duplicate: %v", err)
	}
}

// randomBoard is any well-formed board, solvable or not.
func randomBoard(sp Spec, rng *rand.Rand) State {
	s := Goal(sp)
	if sp.Kind == Swap {
		for i := range s.Cells {
			s.Cells[i] = uint8(rng.IntN(2))
		}
		return s
	}
	rng.Shuffle(len(s.Cells), func(i, j int) { s.Cells[i], s.Cells[j] = s.Cells[j], s.Cells[i] })
	return s
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var specs []Spec
	for _, k := range []Kind{Sliding, Loopover, Swap} {
		for r := 2; r <= 8; r++ {
			for c := 2; c <= 8; c++ {
				specs = append(specs, Spec{k, r, c})
			}
		}
	}
	specs = append(specs, Spec{Swap, 12, 12}, Spec{Swap, 37, 5}, Spec{Swap, 5, 37}, Spec{Swap, 300, 200})
	for _, sp := range specs {
		for i := 0; i < 5; i++ {
			st := randomBoard(sp, rng)
			text := st.String()
			back, err := ParseUnchecked(sp, text)
			if err != nil {
				t.Fatalf("ParseUnchecked(%s, %q): %v", sp, text, err)
			}
			if !back.Equal(st) {
				t.Fatalf("%s: round trip of %q gave %q", sp, text, back)
			}
			// Solvable states also pass Parse; unsolvable ones fail it with ErrUnsolvable.
			_, perr := Parse(sp, text)
			if serr := Solvable(st); (serr == nil) != (perr == nil) || (serr != nil && !errors.Is(perr, ErrUnsolvable)) {
				t.Fatalf("%s %q: Solvable %v, Parse %v", sp, text, serr, perr)
			}
			// The comma and one-line forms read the same board.
			alt := strings.ReplaceAll(text, " ", ",")
			if sp.Kind != Swap {
				if b2, err := ParseUnchecked(sp, alt); err != nil || !b2.Equal(st) {
					t.Fatalf("%s comma form %q: %v", sp, alt, err)
				}
				flat := strings.ReplaceAll(text, "/", " ")
				if b3, err := ParseUnchecked(sp, flat); err != nil || !b3.Equal(st) {
					t.Fatalf("%s flat form %q: %v", sp, flat, err)
				}
			}
		}
		r := Random(sp, rng)
		if back, err := Parse(sp, r.String()); err != nil || !back.Equal(r) {
			t.Fatalf("%s: Random %q does not round-trip: %v", sp, r, err)
		}
	}
}

func TestStringOfBadState(t *testing.T) {
	s := State{Spec: Spec{Sliding, 3, 3}, Cells: []uint8{1, 2}}
	if got := s.String(); !strings.Contains(got, "2 cells") {
		t.Errorf("String of short board = %q", got)
	}
	_ = State{}.String()
}

// Korf's 100 and Korf & Felner's 50 are all solvable instances.
func TestReferenceInstancesSolvable(t *testing.T) {
	for _, tc := range []struct {
		file, spec string
		count      int
	}{
		{"../../../shared/data/korf100.tsv", "15", 100},
		{"../../../shared/data/korf-felner-24.tsv", "24", 50},
	} {
		f, err := os.Open(tc.file)
		if err != nil {
			t.Skipf("reference data missing: %v", err)
		}
		sp := mustSpec(t, tc.spec)
		sc := bufio.NewScanner(f)
		n := 0
		for sc.Scan() {
			line := sc.Text()
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			fields := strings.Split(line, "\t")
			if len(fields) != 3 {
				t.Fatalf("%s: bad line %q", tc.file, line)
			}
			if _, err := strconv.Atoi(fields[1]); err != nil {
				t.Fatalf("%s: bad length in %q", tc.file, line)
			}
			st, err := Parse(sp, fields[2])
			if err != nil {
				t.Errorf("%s instance %s: %v", tc.file, fields[0], err)
				continue
			}
			if st.String() != strings.TrimSpace(fields[2]) {
				t.Errorf("%s instance %s: canonical text %q differs from %q", tc.file, fields[0], st, fields[2])
			}
			n++
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if n != tc.count {
			t.Errorf("%s: %d instances, want %d", tc.file, n, tc.count)
		}
	}
}
