package puzzle

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// fuzzSpec maps fuzzer bytes to a spec, mostly valid ones.
func fuzzSpec(kind, rows, cols uint8) Spec {
	return Spec{Kind: Kind(kind%4 + 1), Rows: int(rows % 12), Cols: int(cols % 12)}
}

func FuzzParse(f *testing.F) {
	seeds := []struct {
		kind, rows, cols uint8
		text             string
	}{
		{0, 3, 3, "1 2 3/4 5 6/7 8 0"},
		{0, 3, 3, "8 1 2/0 4 3/7 6 5"},
		{0, 4, 4, "13 6 8 12/15 14 0 10/11 7 4 5/9 1 3 2"},
		{0, 2, 3, "1,2,3,4,5,0"},
		{0, 3, 3, "1 2 3/4 5 6/7 7 0"},
		{0, 3, 3, " 1 2 3 / 4 5 6 / 7 8 0 /"},
		{1, 3, 3, "A B C/D E F/G H I"},
		{1, 3, 3, "abc/def/ghi"},
		{1, 2, 2, "2 1/3 4"},
		{1, 3, 3, "2 1 3/4 5 6/7 8 9"},
		{2, 4, 4, "1101/0110/0100/1010"},
		{2, 4, 4, "1 1 0 1/0 1 1 0/0 1 0 0/1 0 1 0"},
		{2, 2, 2, "1111"},
		{0, 3, 3, "99999999999999999999 2 3/4 5 6/7 8 0"},
		{0, 3, 3, "1 2 3/4 5\u00a06/7 8 0"},
		{3, 3, 3, "1 2 3/4 5 6/7 8 0"},
		{0, 9, 9, ""},
	}
	for _, s := range seeds {
		f.Add(s.kind, s.rows, s.cols, s.text)
	}
	f.Fuzz(func(t *testing.T, kind, rows, cols uint8, text string) {
		sp := fuzzSpec(kind, rows, cols)
		st, err := Parse(sp, text)
		un, uerr := ParseUnchecked(sp, text)
		if uerr != nil {
			if err == nil {
				t.Fatalf("Parse accepted %q that ParseUnchecked rejects: %v", text, uerr)
			}
			if !errors.Is(uerr, ErrMalformed) {
				t.Fatalf("ParseUnchecked(%q) error without ErrMalformed: %v", text, uerr)
			}
			return
		}
		if verr := un.Validate(); verr != nil {
			t.Fatalf("ParseUnchecked(%q) returned an invalid state: %v", text, verr)
		}
		serr := Solvable(un)
		if (serr == nil) != (err == nil) || (err != nil && !errors.Is(err, ErrUnsolvable)) {
			t.Fatalf("%q: Solvable %v, Parse %v", text, serr, err)
		}
		if err == nil && !st.Equal(un) {
			t.Fatalf("Parse and ParseUnchecked disagree on %q", text)
		}
		canon := un.String()
		back, err := ParseUnchecked(sp, canon)
		if err != nil || !back.Equal(un) {
			t.Fatalf("%q: canonical %q does not round-trip: %v", text, canon, err)
		}
		if back.String() != canon {
			t.Fatalf("canonical text not stable: %q then %q", canon, back.String())
		}
		b, err := json.Marshal(un)
		if err != nil {
			t.Fatal(err)
		}
		var j State
		if jerr := json.Unmarshal(b, &j); (jerr == nil) != (serr == nil) || (jerr == nil && !j.Equal(un)) {
			t.Fatalf("JSON %s: %v", b, jerr)
		}
		_ = LegalMoves(un)
	})
}

func FuzzParseMoves(f *testing.F) {
	seeds := []struct {
		kind, rows, cols uint8
		text             string
	}{
		{0, 3, 3, "U D L R"},
		{0, 3, 3, "R3 D"},
		{0, 3, 3, "rrdLU2"},
		{0, 4, 4, "R0 X"},
		{1, 4, 4, "2L3 1R 4D 3U"},
		{1, 3, 5, "5D 3R"},
		{1, 3, 3, "R1"},
		{2, 4, 4, "1,2R2 3,4D"},
		{2, 4, 4, "1,4R 4,1D 0,0R"},
		{2, 37, 5, "37,4R"},
		{0, 3, 3, "R9999 R9999"},
		{0, 3, 3, ""},
	}
	for _, s := range seeds {
		f.Add(s.kind, s.rows, s.cols, s.text)
	}
	f.Fuzz(func(t *testing.T, kind, rows, cols uint8, text string) {
		sp := fuzzSpec(kind, rows, cols)
		ms, err := ParseMoves(sp, text)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseMoves(%q) error without ErrMalformed: %v", text, err)
			}
			return
		}
		canon := FormatMoves(sp, ms)
		back, err := ParseMoves(sp, canon)
		if err != nil || len(back) != len(ms) || (len(ms) > 0 && !slices.Equal(back, ms)) {
			t.Fatalf("%q: canonical %q does not round-trip: %v", text, canon, err)
		}
		if len(ms) > 1<<16 {
			return
		}
		g := Goal(sp)
		err = g.ApplyMoves(ms)
		if err != nil && (sp.Kind != Sliding || !errors.Is(err, ErrIllegalMove)) {
			// Parse already rejects every move that is off the board.
			t.Fatalf("%s: replaying %q: %v", sp, canon, err)
		}
		if err == nil {
			inv := InvertMoves(sp, ms)
			if verr := Verify(g, FormatMoves(sp, inv)); verr != nil {
				t.Fatalf("%s: inverse of %q does not return to the goal: %v", sp, canon, verr)
			}
		}
		_ = Verify(Goal(sp), text)
	})
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"8", "15", "24", "sliding:4x4", "Loopover:5x5", " swap:12x12 ", "swap:1000x1000", "sliding:9x9", "sliding:4", "x:3x3", "sliding:-1x3", "sliding:+3x3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseSpec(%q) error without ErrMalformed: %v", s, err)
			}
			return
		}
		if err := sp.Validate(); err != nil {
			t.Fatalf("ParseSpec(%q) = %v, invalid: %v", s, sp, err)
		}
		back, err := ParseSpec(sp.String())
		if err != nil || back != sp {
			t.Fatalf("ParseSpec(%q) = %v does not round-trip: %v, %v", s, sp, back, err)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{
		`{"puzzle":"8","state":"1 2 3/4 5 6/7 0 8"}`,
		`{"puzzle":"8","state":[[1,2,3],[4,5,6],[7,0,8]]}`,
		`{"puzzle":"8","state":[1,2,3,4,5,6,7,0,8]}`,
		`{"puzzle":"swap:4x4","state":["1101","0110","0100","1010"]}`,
		`{"puzzle":"loopover:2x2","state":[["B","A"],["C","D"]]}`,
		`{"puzzle":"8","state":[[1,2,3],[4,5,6],[7,0,{}]]}`,
		`null`, `[]`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s State
		if err := json.Unmarshal(b, &s); err != nil || s.Cells == nil {
			return
		}
		if err := Solvable(s); err != nil {
			t.Fatalf("Unmarshal(%s) accepted %v: %v", b, s, err)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back State
		if err := json.Unmarshal(out, &back); err != nil || !back.Equal(s) {
			t.Fatalf("%s does not round-trip: %v", out, err)
		}
	})
}
