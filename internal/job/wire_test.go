package job

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/result"
)

// randomResults makes messages of the shapes the pipeline sends, and some
// it does not: texts with escapes and non-ASCII, floats in exponent form,
// NaN, nil and empty lists.
func randomResults(r *rand.Rand) Results {
	texts := []string{"", "sliding:3x3", "1 2 3/4 5 6/7 8 0", "U D L R", "pdb 15-pdb-78", "a<b>\"c", "back\\slash",
		"tab\there", "é", "\u2028", "\xff", "x&y", "line\n", "nul\x00"}
	text := func() string {
		if r.IntN(60) == 0 {
			return texts[r.IntN(len(texts))]
		}
		return texts[r.IntN(5)]
	}
	floats := []float64{0, math.Copysign(0, -1), 0.001, 1.5, 12.25, 1e-7, 1e-6, 1e21, 1e20, 123456.789, -3.5, math.NaN(), math.Inf(1)}
	rs := Results{V: r.IntN(3), JobID: text(), BatchID: r.Int64N(1 << 40), Puzzle: text(), FirstSeq: r.Int64() - r.Int64(), Replace: r.IntN(4) == 0}
	switch r.IntN(8) {
	case 0: // nil
	case 1:
		rs.Results = []result.Result{}
	default:
		for range r.IntN(20) + 1 {
			rs.Results = append(rs.Results, result.Result{
				Puzzle: text(), State: text(), Status: result.Status(text()), Moves: text(),
				Length: r.IntN(100) - 1, Optimal: r.IntN(2) == 0, LowerBound: r.IntN(100), Nodes: r.Int64N(1 << 50),
				ElapsedMS: floats[r.IntN(len(floats))], Solver: text(), Error: text(), Attempts: r.IntN(3),
			})
		}
	}
	return rs
}

func TestMarshalResultsIsJSONMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for range 5000 {
		rs := randomResults(r)
		want, werr := json.Marshal(rs)
		got, gerr := MarshalResults(rs)
		if (werr == nil) != (gerr == nil) || string(got) != string(want) {
			t.Fatalf("MarshalResults(%+v) = %q, %v; json.Marshal: %q, %v", rs, got, gerr, want, werr)
		}
		if _, ok := appendResults(nil, &rs); ok {
			fast++
		}
	}
	if fast < 200 {
		t.Errorf("only %d of 5000 messages took the hand-written path", fast)
	}
}

// checkUnmarshal holds UnmarshalResults to json.Unmarshal on data.
func checkUnmarshal(t *testing.T, data []byte) {
	t.Helper()
	var want Results
	werr := json.Unmarshal(data, &want)
	got, gerr := UnmarshalResults(data)
	if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("UnmarshalResults(%q) = %+v, %v; json.Unmarshal: %+v, %v", data, got, gerr, want, werr)
	}
}

func TestUnmarshalResultsIsJSONUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	// Edits that change how the text reads, not always what it means.
	edits := [][2]string{{",", " ,\n"}, {":", ": "}, {`"puzzle"`, `"Puzzle"`}, {`"v":`, `"x":1,"v":`},
		{`"nodes":`, `"nodes":1,"nodes":`}, {`"moves":"`, `"moves":null,"m":"`}, {`"results":[`, `"results":[{},`},
		{`"length":`, `"length":1.0,"l":`}, {`"seq":`, `"seq":01,"s":`}, {`}`, `} `}, {`"optimal":true`, `"optimal":tru`},
		{`"elapsed_ms":`, `"elapsed_ms":1e400,"e":`}, {`"batch":`, `"batch":123456789012345678901,"b":`},
		{`"results":`, `"results":null,"r":`}, {`"replace":true`, `"replace":false`}, {`"lower_bound":`, `"lower_bound":-0,"lb":`}}
	fast := 0
	for range 5000 {
		rs := randomResults(r)
		data, err := json.Marshal(rs)
		if err != nil {
			continue // NaN or Inf
		}
		checkUnmarshal(t, data)
		d := decoder{b: data}
		if _, ok := d.results(); ok {
			fast++
		}
		e := edits[r.IntN(len(edits))]
		checkUnmarshal(t, []byte(strings.Replace(string(data), e[0], e[1], 1+r.IntN(2))))
		if len(data) > 0 {
			checkUnmarshal(t, data[:r.IntN(len(data))]) // cut short
		}
	}
	if fast < 200 {
		t.Errorf("only %d of 5000 messages took the hand-written path", fast)
	}
}

// A worker's message of 8-puzzle answers takes the hand-written path.
func TestResultsCodecTakesTheCommonShape(t *testing.T) {
	rs := Results{V: Version, JobID: "7-1000", BatchID: 7, Puzzle: "sliding:3x3", FirstSeq: 1000}
	for i := range 3 {
		rs.Results = append(rs.Results, result.Result{Puzzle: "sliding:3x3", State: "1 2 3/4 5 6/7 0 8", Status: result.StatusSolved,
			Moves: "L", Length: 1, Optimal: true, LowerBound: 1, Nodes: int64(i), ElapsedMS: 0.0042, Solver: "table 8-full"})
	}
	b, ok := appendResults(nil, &rs)
	if !ok {
		t.Fatal("encoded by encoding/json")
	}
	d := decoder{b: b}
	got, ok := d.results()
	if !ok || !reflect.DeepEqual(got, rs) {
		t.Fatalf("decoded %+v, %v; want %+v", got, ok, rs)
	}
}

func FuzzUnmarshalResults(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		if data, err := json.Marshal(randomResults(r)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkUnmarshal(t, data) })
}

func randomJob(r *rand.Rand) Job {
	texts := []string{"", "sliding:3x3", "1 2 3/4 5 6/7 8 0", "optimal", "fast", "1101/0110", "a<b>\"c", "back\\slash",
		"tab\there", "é", "\u2028", "\xff", "x&y", "line\n", "nul\x00"}
	text := func() string {
		if r.IntN(60) == 0 {
			return texts[r.IntN(len(texts))]
		}
		return texts[r.IntN(6)]
	}
	j := Job{V: r.IntN(3), ID: text(), BatchID: r.Int64N(1 << 40), Puzzle: text(), FirstSeq: r.Int64N(1<<41) - 1<<40, Mode: text(),
		Replace: r.IntN(4) == 0, Split: r.IntN(4) == 0}
	if r.IntN(3) == 0 {
		j.Priority = Priority(text())
	}
	if r.IntN(2) == 0 {
		j.MaxNodes = r.Int64N(1<<40) - 5
	}
	if r.IntN(20) == 0 {
		j.FirstSeq = r.Int64() - r.Int64() // 19 digits: left to encoding/json
	}
	if r.IntN(2) == 0 {
		j.TimeoutMS = r.Int64N(1 << 20)
	}
	if r.IntN(3) == 0 {
		j.Goal = text()
	}
	switch r.IntN(8) {
	case 0: // nil
	case 1:
		j.States = []string{}
	default:
		for range r.IntN(30) + 1 {
			j.States = append(j.States, text())
		}
	}
	return j
}

func TestJobCodecIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	edits := [][2]string{{",", " ,\n"}, {":", ": "}, {`"states"`, `"States"`}, {`"v":`, `"x":1,"v":`},
		{`"batch":`, `"batch":1,"batch":`}, {`"mode":"`, `"mode":null,"m":"`}, {`"states":[`, `"states":[1,`},
		{`"seq":`, `"seq":1.5,"s":`}, {`}`, `} `}, {`"states":`, `"states":null,"x":`}, {`"v":`, `"v":01,"w":`}}
	fastEnc, fastDec := 0, 0
	for range 5000 {
		j := randomJob(r)
		want, werr := json.Marshal(j)
		got, gerr := MarshalJob(j)
		if (werr == nil) != (gerr == nil) || string(got) != string(want) {
			t.Fatalf("MarshalJob(%+v) = %q, %v; json.Marshal: %q, %v", j, got, gerr, want, werr)
		}
		if _, ok := appendJob(nil, &j); ok {
			fastEnc++
		}
		d := decoder{b: want}
		if _, ok := d.job(); ok {
			fastDec++
		}
		e := edits[r.IntN(len(edits))]
		for _, data := range [][]byte{want, []byte(strings.Replace(string(want), e[0], e[1], 1+r.IntN(2))), want[:r.IntN(len(want))]} {
			checkUnmarshalJob(t, data)
		}
	}
	if fastEnc < 1000 || fastDec < 1000 {
		t.Errorf("hand-written path: %d encodings and %d decodings of 5000", fastEnc, fastDec)
	}
}

func checkUnmarshalJob(t *testing.T, data []byte) {
	t.Helper()
	var want Job
	werr := json.Unmarshal(data, &want)
	got, gerr := UnmarshalJob(data)
	if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("UnmarshalJob(%q) = %+v, %v; json.Unmarshal: %+v, %v", data, got, gerr, want, werr)
	}
}

func FuzzUnmarshalJob(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		if data, err := json.Marshal(randomJob(r)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkUnmarshalJob(t, data) })
}

func TestStringLen(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(4) > 0 {
				b[i] = byte(' ' + r.IntN(95))
			}
		}
		want, _ := json.Marshal(string(b))
		if got := StringLen(string(b)); got != len(want) {
			t.Fatalf("StringLen(%q) = %d, want %d", b, got, len(want))
		}
	}
}
