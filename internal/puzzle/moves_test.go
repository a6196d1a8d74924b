package puzzle

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseMoves(t *testing.T) {
	for _, tc := range []struct{ spec, in, want string }{
		{"8", "", ""},
		{"8", "   \n\t ", ""},
		{"8", "U D L R", "U D L R"},
		{"8", "R3 D", "R R R D"},
		{"8", "  u\tl\n", "U L"},
		{"8", "RRD", "R R D"},
		{"8", "R2D L", "R R D L"},
		{"loopover:4x4", "2L3 1R 4D 3U", "2L 2L 2L 1R 4D 3U"},
		{"loopover:3x5", "3R 5D 1u2", "3R 5D 1U 1U"},
		{"swap:4x4", "1,2R2 3,4D", "1,2R 1,2R 3,4D"},
		{"swap:37x5", "37,4R 36,5d", "37,4R 36,5D"},
	} {
		sp := mustSpec(t, tc.spec)
		ms, err := ParseMoves(sp, tc.in)
		if err != nil {
			t.Errorf("ParseMoves(%s, %q): %v", tc.spec, tc.in, err)
			continue
		}
		if got := FormatMoves(sp, ms); got != tc.want {
			t.Errorf("ParseMoves(%s, %q) formats as %q, want %q", tc.spec, tc.in, got, tc.want)
		}
	}
}

func TestParseMovesErrors(t *testing.T) {
	for _, tc := range []struct {
		spec, in string
		want     []string
	}{
		{"8", "U X", []string{`token 2 "X"`, "want U, D, L or R"}},
		{"8", "U R0", []string{`token 2 "R0"`, "repeat count must be 1..9999"}},
		{"8", "R10000", []string{"repeat count"}},
		{"8", "1R", []string{`token 1 "1R"`}},
		{"8", "R,", []string{`token 1 "R,"`}},
		{"loopover:4x4", "1R 5R", []string{`token 2 "5R"`, "row 5 is off the board (1..4)"}},
		{"loopover:3x4", "4D 4R", []string{`token 2 "4R"`, "row 4 is off the board (1..3)"}},
		{"loopover:3x4", "5D", []string{"column 5 is off the board (1..4)"}},
		{"loopover:3x4", "0D", []string{"column 0 is off the board"}},
		{"loopover:4x4", "R", []string{`token 1 "R"`, "want <n>R"}},
		{"loopover:4x4", "R1", []string{`token 1 "R1"`, "want <n>R"}},
		{"loopover:4x4", "2", []string{`token 1 "2"`}},
		{"loopover:4x4", "2X", []string{`token 1 "2X"`}},
		{"loopover:4x4", "2R3x", []string{`token 1 "2R3x"`}},
		{"swap:4x4", "1,4R", []string{"cell (1,4) is in the last column"}},
		{"swap:4x4", "4,1D", []string{"cell (4,1) is in the last row"}},
		{"swap:4x4", "0,1R", []string{"cell (0,1) is off the 4x4 board"}},
		{"swap:4x4", "1,5D", []string{"off the 4x4 board"}},
		{"swap:4x4", "1,2L", []string{"want <row>,<col>R"}},
		{"swap:4x4", "1;2R", []string{`token 1 "1;2R"`}},
		{"swap:4x4", "1,R", []string{`token 1 "1,R"`}},
		{"swap:4x4", "1,2", []string{`token 1 "1,2"`}},
		{"swap:4x4", "1,2R 1,2R0", []string{`token 2`, "repeat count"}},
	} {
		sp := mustSpec(t, tc.spec)
		_, err := ParseMoves(sp, tc.in)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseMoves(%s, %q) = %v, want ErrMalformed", tc.spec, tc.in, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseMoves(%s, %q) = %q, want it to mention %q", tc.spec, tc.in, err, w)
			}
		}
	}
}

func TestApplySemantics(t *testing.T) {
	for _, tc := range []struct{ spec, from, moves, want string }{
		// Sliding: the letter is the direction the tile moves.
		{"8", "1 2 3/4 5 6/7 8 0", "R", "1 2 3/4 5 6/7 0 8"},
		{"8", "1 2 3/4 5 6/7 8 0", "D", "1 2 3/4 5 0/7 8 6"},
		{"8", "1 2 3/4 5 6/7 0 8", "L", "1 2 3/4 5 6/7 8 0"},
		{"8", "1 2 3/4 5 0/7 8 6", "U", "1 2 3/4 5 6/7 8 0"},
		{"8", "1 2 3/4 5 6/7 8 0", "R R D L", "1 2 3/5 0 6/4 7 8"},
		// Loopover: rows from the top, columns from the left, cyclic.
		{"loopover:3x3", "1 2 3/4 5 6/7 8 9", "1R", "3 1 2/4 5 6/7 8 9"},
		{"loopover:3x3", "1 2 3/4 5 6/7 8 9", "1L", "2 3 1/4 5 6/7 8 9"},
		{"loopover:3x3", "1 2 3/4 5 6/7 8 9", "3R", "1 2 3/4 5 6/9 7 8"},
		{"loopover:3x3", "1 2 3/4 5 6/7 8 9", "1D", "7 2 3/1 5 6/4 8 9"},
		{"loopover:3x3", "1 2 3/4 5 6/7 8 9", "1U", "4 2 3/7 5 6/1 8 9"},
		{"loopover:3x3", "1 2 3/4 5 6/7 8 9", "3D", "1 2 9/4 5 3/7 8 6"},
		{"loopover:2x3", "1 2 3/4 5 6", "2R3", "1 2 3/4 5 6"},
		// Swap: (row, column) with its right or lower neighbour.
		{"swap:2x3", "110/000", "1,2R", "101/000"},
		{"swap:2x3", "110/000", "1,1D", "010/100"},
		{"swap:2x3", "110/000", "1,1R", "110/000"},
	} {
		sp := mustSpec(t, tc.spec)
		st, err := ParseUnchecked(sp, tc.from)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := ParseMoves(sp, tc.moves)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.ApplyMoves(ms); err != nil {
			t.Errorf("%s %q + %q: %v", tc.spec, tc.from, tc.moves, err)
			continue
		}
		if st.String() != tc.want {
			t.Errorf("%s %q + %q = %q, want %q", tc.spec, tc.from, tc.moves, st, tc.want)
		}
	}
}

func TestApplyIllegal(t *testing.T) {
	goal8 := Goal(mustSpec(t, "8"))
	lo := Goal(mustSpec(t, "loopover:3x4"))
	sw := Goal(mustSpec(t, "swap:3x4"))
	for _, tc := range []struct {
		s    State
		m    Move
		want string
	}{
		{goal8, Move{Dir: Up}, "no tile below the blank"},
		{goal8, Move{Dir: Left}, "no tile right of the blank"},
		{goal8, Move{Dir: 7}, "unknown direction"},
		{lo, Move{Dir: Right, Line: 3}, "row 4 is off the board (1..3)"},
		{lo, Move{Dir: Down, Line: 4}, "column 5 is off the board (1..4)"},
		{lo, Move{Dir: Up, Line: -1}, "column 0 is off the board"},
		{sw, Move{Dir: Right, Line: 0, Col: 3}, "no right neighbour"},
		{sw, Move{Dir: Down, Line: 2, Col: 0}, "no neighbour below"},
		{sw, Move{Dir: Left, Line: 0, Col: 1}, "R or D"},
		{sw, Move{Dir: Right, Line: 5, Col: 0}, "off the 3x4 board"},
	} {
		c := tc.s.Clone()
		err := c.Apply(tc.m)
		if !errors.Is(err, ErrIllegalMove) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s Apply(%+v) = %v, want ErrIllegalMove mentioning %q", tc.s.Spec, tc.m, err, tc.want)
		}
		if !c.Equal(tc.s) {
			t.Errorf("%s Apply(%+v) changed the board", tc.s.Spec, tc.m)
		}
	}
	bad := State{Spec: mustSpec(t, "8"), Cells: []uint8{1, 2}}
	if err := bad.Apply(Move{Dir: Up}); !errors.Is(err, ErrMalformed) {
		t.Errorf("Apply on short board = %v", err)
	}
	noBlank := State{Spec: mustSpec(t, "sliding:2x2"), Cells: []uint8{1, 2, 3, 3}}
	if err := noBlank.Apply(Move{Dir: Up}); !errors.Is(err, ErrMalformed) {
		t.Errorf("Apply without blank = %v", err)
	}
	s := goal8.Clone()
	err := s.ApplyMoves([]Move{{Dir: Right}, {Dir: Left}, {Dir: Up}})
	if !errors.Is(err, ErrIllegalMove) || !strings.Contains(err.Error(), "move 3 (U)") {
		t.Errorf("ApplyMoves = %v, want move 3 (U) illegal", err)
	}
	if !s.Equal(goal8) {
		t.Errorf("after a failed ApplyMoves the board is %v, want the position before move 3", s)
	}
}

func TestVerify(t *testing.T) {
	sp := mustSpec(t, "8")
	for _, tc := range []struct {
		state, moves string
		sentinel     error
		want         string
	}{
		{"1 2 3/4 5 6/7 0 8", "L", nil, ""},
		{"1 2 3/4 5 6/7 8 0", "", nil, ""},
		{"1 2 3/4 5 6/7 8 0", "R L", nil, ""},
		{"1 2 3/5 0 6/4 7 8", "R U L L", nil, ""},
		{"1 2 3/4 5 6/7 0 8", "R", ErrNotSolved, "after 1 move the board is \"1 2 3/4 5 6/0 7 8\" with 3 cells out of place, not the goal \"1 2 3/4 5 6/7 8 0\""},
		{"1 2 3/4 5 6/7 0 8", "", ErrNotSolved, "after 0 moves the board is"},
		{"1 2 3/4 5 6/7 0 8", "L U", ErrIllegalMove, "move 2 (U): no tile below the blank"},
		{"1 2 3/4 5 6/7 0 8", "L Q", ErrMalformed, `token 2 "Q"`},
		// Unsolvable boards (ParseUnchecked) never verify.
		{"1 2 3/4 5 6/8 7 0", "", ErrNotSolved, ""},
	} {
		st, err := ParseUnchecked(sp, tc.state)
		if err != nil {
			t.Fatal(err)
		}
		err = Verify(st, tc.moves)
		if tc.sentinel == nil {
			if err != nil {
				t.Errorf("Verify(%q, %q) = %v", tc.state, tc.moves, err)
			}
			continue
		}
		if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Verify(%q, %q) = %v, want %v mentioning %q", tc.state, tc.moves, err, tc.sentinel, tc.want)
		}
	}
	// Loopover and swap.
	lo := mustSpec(t, "loopover:3x3")
	if err := Verify(mustParse(t, lo, "3 1 2/4 5 6/7 8 9"), "1L"); err != nil {
		t.Error(err)
	}
	if err := Verify(mustParse(t, lo, "3 1 2/4 5 6/7 8 9"), "1R2"); err != nil {
		t.Error(err)
	}
	sw := mustSpec(t, "swap:2x3")
	if err := Verify(mustParse(t, sw, "010/101"), "1,1D"); !errors.Is(err, ErrNotSolved) {
		t.Errorf("swap non-solution: %v", err)
	}
	if err := Verify(mustParse(t, sw, "010/101"), "1,1D 1,3D"); err != nil {
		t.Errorf("swap solution rejected: %v", err)
	}
	if err := Verify(State{Spec: sp, Cells: []uint8{1}}, ""); !errors.Is(err, ErrMalformed) {
		t.Errorf("Verify of malformed state = %v", err)
	}
}

// The example of transpositions.md: 1101/0110/0100/1010 reaches
// 1111/1111/0000/0000 in 8 swaps (matching (4,1)→(2,1), (4,3)→(2,4),
// (3,2)→(1,3); the last path runs through ones, relabelled).
func TestVerifySwapExample(t *testing.T) {
	sp := mustSpec(t, "swap:4x4")
	st := mustParse(t, sp, "1101/0110/0100/1010")
	if g := st.Goal().String(); g != "1111/1111/0000/0000" {
		t.Fatalf("goal %v", g)
	}
	if err := Verify(st, "3,1D 2,1D 3,3D 3,3R 2,4D 1,2R 1,2D 2,2D"); err != nil {
		t.Error(err)
	}
}

func TestLegalMovesMatchApply(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"sliding:2x2", "8", "sliding:3x5", "loopover:2x2", "loopover:3x4", "swap:2x2", "swap:3x5", "swap:6x6"} {
		sp := mustSpec(t, name)
		for i := 0; i < 50; i++ {
			s := randomBoard(sp, rng)
			legal := LegalMoves(s)
			for _, m := range allMoves(sp) {
				c := s.Clone()
				err := c.Apply(m)
				changed := err == nil && !c.Equal(s)
				listed := slices.Contains(legal, m)
				if sp.Kind == Swap {
					if listed != changed {
						t.Fatalf("%s %v: move %s listed=%v changes=%v", sp, s, FormatMoves(sp, []Move{m}), listed, changed)
					}
				} else if listed != (err == nil) {
					t.Fatalf("%s %v: move %s listed=%v Apply=%v", sp, s, FormatMoves(sp, []Move{m}), listed, err)
				}
			}
			if sp.Kind == Sliding {
				order := slices.Clone(legal)
				slices.SortFunc(order, func(a, b Move) int { return int(a.Dir) - int(b.Dir) })
				if !slices.Equal(order, legal) {
					t.Fatalf("sliding moves not in U D L R order: %v", legal)
				}
			}
		}
	}
	if LegalMoves(State{Spec: mustSpec(t, "8")}) != nil {
		t.Error("LegalMoves of an empty board")
	}
}

// Random move sequences: Format/Parse round-trips them, and the inverted
// sequence undoes them, so Verify accepts it from the scrambled board.
func TestMovesRoundTripAndInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range []string{"8", "15", "sliding:3x5", "loopover:2x2", "loopover:4x4", "loopover:5x3", "swap:4x4", "swap:12x12", "swap:37x5"} {
		sp := mustSpec(t, name)
		for i := 0; i < 20; i++ {
			s, ms := RandomWalkMoves(sp, rng, rng.IntN(60))
			text := FormatMoves(sp, ms)
			back, err := ParseMoves(sp, text)
			if err != nil || !slices.Equal(back, ms) && !(len(ms) == 0 && len(back) == 0) {
				t.Fatalf("%s: ParseMoves(FormatMoves(%v)) = %v, %v", sp, ms, back, err)
			}
			inv := InvertMoves(sp, ms)
			if err := Verify(s, FormatMoves(sp, inv)); err != nil {
				t.Fatalf("%s: inverse of the walk %q does not solve %v: %v", sp, text, s, err)
			}
		}
	}
}
