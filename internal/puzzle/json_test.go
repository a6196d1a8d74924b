package puzzle

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestMarshalJSON(t *testing.T) {
	b, err := json.Marshal(Goal(mustSpec(t, "8")))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"puzzle":"sliding:3x3","state":"1 2 3/4 5 6/7 8 0"}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	type wrapper struct {
		S  State  `json:"s"`
		P  *State `json:"p"`
		Xs []State
	}
	in := wrapper{S: mustParse(t, mustSpec(t, "swap:4x4"), "1101/0110/0100/1010"), Xs: []State{Goal(mustSpec(t, "loopover:3x4"))}}
	p := Goal(mustSpec(t, "15"))
	in.P = &p
	b, err = json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out wrapper
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("Unmarshal(%s): %v", b, err)
	}
	if !out.S.Equal(in.S) || !out.P.Equal(*in.P) || len(out.Xs) != 1 || !out.Xs[0].Equal(in.Xs[0]) {
		t.Errorf("round trip through %s gave %+v", b, out)
	}
}

func TestUnmarshalJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"puzzle":"8","state":"1 2 3/4 5 6/7 0 8"}`, "1 2 3/4 5 6/7 0 8"},
		{`{"puzzle":"sliding:3x3","state":[[1,2,3],[4,5,6],[7,0,8]]}`, "1 2 3/4 5 6/7 0 8"},
		{` { "state" : [ [1, 2, 3] , [4,5,6],[7,0,8] ] , "puzzle":"8" } `, "1 2 3/4 5 6/7 0 8"},
		{`{"puzzle":"8","state":[1,2,3,4,5,6,7,0,8]}`, "1 2 3/4 5 6/7 0 8"},
		{`{"puzzle":"8","state":["1 2 3","4 5 6","7 0 8"]}`, "1 2 3/4 5 6/7 0 8"},
		{`{"puzzle":"swap:4x4","state":["1101","0110","0100","1010"]}`, "1101/0110/0100/1010"},
		{`{"puzzle":"swap:4x4","state":[[1,1,0,1],[0,1,1,0],[0,1,0,0],[1,0,1,0]]}`, "1101/0110/0100/1010"},
		{`{"puzzle":"loopover:2x2","state":[["B","A"],["C","D"]]}`, "2 1/3 4"},
		{`{"puzzle":"loopover:2x2","state":["B","A","C","D"]}`, "2 1/3 4"},
	} {
		var s State
		if err := json.Unmarshal([]byte(tc.in), &s); err != nil {
			t.Errorf("Unmarshal(%s): %v", tc.in, err)
			continue
		}
		if s.String() != tc.want {
			t.Errorf("Unmarshal(%s) = %q, want %q", tc.in, s, tc.want)
		}
	}
}

func TestUnmarshalJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		in       string
		sentinel error
		want     string
	}{
		{`{"puzzle":"8","state":"1 2 3/4 5 6/8 7 0"}`, ErrUnsolvable, "even number of inversions"},
		{`{"puzzle":"8","state":"1 2 3/4 5 6/7 8"}`, ErrMalformed, "row 3 has 2 cells"},
		{`{"state":"1 2 3/4 5 6/7 8 0"}`, ErrMalformed, `missing "puzzle"`},
		{`{"puzzle":"9","state":"1 2 3/4 5 6/7 8 0"}`, ErrMalformed, "KIND:ROWSxCOLS"},
		{`{"puzzle":"8"}`, ErrMalformed, `missing "state"`},
		{`{"puzzle":"8","state":null}`, ErrMalformed, `missing "state"`},
		{`{"puzzle":"8","state":12345}`, ErrMalformed, "string or an array"},
		{`{"puzzle":"8","state":[[1,2,3],[4,5,6]]}`, ErrMalformed, "has 2 rows, want 3"},
		{`{"puzzle":"8","state":[[1,2,3],[4,5,6],[7,0,8],[1,2,3]]}`, ErrMalformed, "has 4 rows, want 3"},
		{`{"puzzle":"8","state":[[1,2,3],[4,5,6],[7,0,8.5]]}`, ErrMalformed, `"8.5" is not a number`},
		{`{"puzzle":"8","state":[[1,2,3],[4,5,6],[7,0,{}]]}`, ErrMalformed, "want a number or a string"},
		{`{"puzzle":"8","state":[[1,2,3],[4,5,6],[7,0,"8 9"]]}`, ErrMalformed, "is not one cell"},
		{`{"puzzle":"8","state":[[1,2,3],[4,5,6],[7,0,-8]]}`, ErrMalformed, `"-8" is not a number`},
		{`{"puzzle":"8","state":[[1,2,3],[4,5,6],[7,0,true]]}`, ErrMalformed, `"true" is not a number`},
		{`{"puzzle":"8","state":[[1,2,3],[4,5,6],[7,0]]}`, ErrMalformed, "row 3 has 2 cells"},
		{`{"puzzle":"8","state":["1 2 3","4 5 6","7/0 8"]}`, ErrMalformed, "contains '/'"},
		{`{"puzzle":"8","state":"1 2 3/4 5 6/7 8 0"`, ErrMalformed, "state JSON"},
		{`[1,2]`, ErrMalformed, "state JSON"},
	} {
		var s State
		err := json.Unmarshal([]byte(tc.in), &s)
		if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.want) {
			// encoding/json reports syntax errors itself, before calling us.
			var se *json.SyntaxError
			if errors.As(err, &se) && tc.want == "state JSON" {
				continue
			}
			t.Errorf("Unmarshal(%s) = %v, want %v mentioning %q", tc.in, err, tc.sentinel, tc.want)
		}
	}
	s := Goal(mustSpec(t, "8"))
	if err := json.Unmarshal([]byte("null"), &s); err != nil || !s.IsGoal() {
		t.Errorf("null: %v, %v", err, s)
	}
}
