package worker

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/store"
)

func TestDecodeJob(t *testing.T) {
	cases := []struct {
		in            string
		dead, invalid bool
	}{
		{`{"v":1,"id":"1-0","batch":1,"puzzle":"8","seq":0,"states":["1 2 3/4 5 6/7 8 0"],"mode":"fast","max_nodes":5,"timeout_ms":20}`, false, false},
		{`{"v":1,"id":"1-0","batch":1,"puzzle":"sliding:4x4","seq":3,"states":["x"]}`, false, false}, // mode "" is optimal
		{`junk`, true, false},
		{`{"v":1,"batch":1,"states":["x"]}`, true, false},
		{`{"v":1,"id":"a","batch":0,"states":["x"]}`, true, false},
		{`{"v":1,"id":"a","batch":2,"seq":-1,"states":["x"]}`, true, false},
		{`{"v":1,"id":"a","batch":2,"puzzle":"8","states":[]}`, true, false},
		{`{"v":2,"id":"a","batch":2,"puzzle":"8","states":["x"]}`, false, true},
		{`{"v":1,"id":"a","batch":2,"puzzle":"8x8","states":["x"]}`, false, true},
		{`{"v":1,"id":"a","batch":2,"puzzle":"8","mode":"slow","states":["x"]}`, false, true},
		{`{"v":1,"id":"a","batch":2,"puzzle":"8","max_nodes":-1,"states":["x"]}`, false, true},
		{`{"v":1,"id":"a","batch":2,"puzzle":"swap:2x2","goal":"01/01","states":["x"]}`, false, false},
		{`{"v":1,"id":"a","batch":2,"puzzle":"swap:2x2","goal":"012/01","states":["x"]}`, false, true},
		{`{"v":1,"id":"a","batch":2,"puzzle":"8","goal":"1 2 3/4 5 6/7 8 0","states":["x"]}`, false, true},
	}
	for _, c := range cases {
		d := decodeJob([]byte(c.in), search.Budget{})
		if (d.dead != "") != c.dead || (d.invalid != "") != c.invalid {
			t.Errorf("%s: dead %q invalid %q", c.in, d.dead, d.invalid)
		}
	}
	d := decodeJob([]byte(cases[0].in), search.Budget{})
	if d.opt.Mode != result.ModeFast || d.opt.Budget.MaxNodes != 5 || d.opt.Budget.Timeout.Milliseconds() != 20 || d.spec.Cells() != 9 {
		t.Errorf("options %+v spec %v", d.opt, d.spec)
	}
	if d := decodeJob([]byte(cases[len(cases)-3].in), search.Budget{}); d.opt.Goal == nil || d.opt.Goal.String() != "01/01" {
		t.Errorf("swap goal not decoded: %+v", d.opt.Goal)
	}
}

func TestStorable(t *testing.T) {
	r := uniform(job.Job{ID: "1-0", BatchID: 1, Puzzle: "8\x00", States: []string{"ok", "a\xffb", "c\x00d"}}, result.StatusInvalid, "bad \xfe")
	storable(&r)
	for _, s := range []string{r.Puzzle, r.Results[0].State, r.Results[1].State, r.Results[2].State, r.Results[1].Error} {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			t.Errorf("%q is not storable", s)
		}
	}
	if r.Results[0].State != "ok" || r.Results[1].State != "a\uFFFDb" {
		t.Errorf("states %q %q", r.Results[0].State, r.Results[1].State)
	}
}

// FuzzDecodeJob: any bytes classify without panicking; a job that is not
// dead names its rows, and its answers cover every state, storably.
func FuzzDecodeJob(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"1-0","batch":1,"puzzle":"8","seq":0,"states":["1 2 3/4 5 6/7 8 0"],"mode":"fast"}`))
	f.Add([]byte(`{"v":1,"id":"x","batch":9,"puzzle":"loopover:3x3","seq":7,"states":["\u0000","\xff"]}`))
	f.Add([]byte(`{"v":3}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"v":1,"id":"1-0","batch":1,"states":["x"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := decodeJob(data, search.Budget{})
		if d.dead != "" {
			return
		}
		j := d.job
		if j.ID == "" || j.BatchID <= 0 || j.FirstSeq < 0 || len(j.States) == 0 {
			t.Fatalf("not dead but unrecordable: %+v", j)
		}
		if d.invalid == "" {
			if err := d.spec.Validate(); err != nil {
				t.Fatalf("valid job with bad spec: %v", err)
			}
		}
		r := uniform(j, result.StatusInvalid, d.invalid)
		storable(&r)
		if len(r.Results) != len(j.States) {
			t.Fatalf("%d results for %d states", len(r.Results), len(j.States))
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back job.Results
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if err := store.ValidateResults(back); err != nil {
			t.Fatalf("the results writer would reject %s: %v", b, err)
		}
		for _, x := range back.Results {
			if !utf8.ValidString(x.State) || strings.IndexByte(x.State, 0) >= 0 {
				t.Fatalf("state %q not storable", x.State)
			}
		}
	})
}

// A job without a budget gets its puzzle's default as a limit only (fast
// mode keeps its short window under it); a job's own timeout is chosen.
func TestDefaultBudgetIsACeiling(t *testing.T) {
	d := decodeJob([]byte(`{"v":1,"id":"1-0","batch":1,"puzzle":"15","seq":0,"states":["x"],"mode":"fast"}`), search.Budget{})
	if d.invalid != "" || d.dead != "" || d.opt.Budget.Timeout != policy.QuickLimit || d.opt.Budget.Origin != search.OriginDefault {
		t.Errorf("no budget: %+v", d)
	}
	d = decodeJob([]byte(`{"v":1,"id":"1-0","batch":1,"puzzle":"15","seq":0,"states":["x"],"mode":"fast","timeout_ms":5000}`), search.Budget{})
	if d.opt.Budget.Timeout != 5*time.Second || d.opt.Budget.Origin != search.OriginChosen {
		t.Errorf("own timeout: %+v", d.opt)
	}
	d = decodeJob([]byte(`{"v":1,"id":"1-0","batch":1,"puzzle":"15","seq":0,"states":["x"],"mode":"fast","max_nodes":1000}`), search.Budget{})
	if d.opt.Budget.MaxNodes != 1000 || d.opt.Budget.Origin != search.OriginChosen {
		t.Errorf("own node budget: %+v", d.opt)
	}
}

// The host's limits cap every job's budget at decode (this was solverd's
// capBudget): a job asking for more, or for nothing, gets the host's; one
// under them keeps its own. A job that names no budget gets the host's
// limits as a ceiling only, so that fast mode keeps its default window
// under them; a job's own budget (capped or not) is a chosen one that
// fast mode spends.
func TestHostCeiling(t *testing.T) {
	host := search.Budget{MaxNodes: 100, Timeout: time.Second}
	decode := func(budget string, host search.Budget) solve.Options {
		t.Helper()
		d := decodeJob([]byte(`{"v":1,"id":"1-0","batch":1,"puzzle":"15","seq":0,"states":["x"],"mode":"fast"`+budget+`}`), host)
		if d.dead != "" || d.invalid != "" {
			t.Fatalf("%s: %s%s", budget, d.dead, d.invalid)
		}
		return d.opt
	}
	for _, c := range []struct {
		budget  string
		nodes   int64
		timeout time.Duration
		ceiling bool
	}{
		{``, 100, time.Second, true},
		{`,"max_nodes":1000,"timeout_ms":60000`, 100, time.Second, false},
		{`,"timeout_ms":60000`, 100, time.Second, false},
		{`,"max_nodes":5`, 5, time.Second, false},
		{`,"max_nodes":5,"timeout_ms":1`, 5, time.Millisecond, false},
	} {
		got := decode(c.budget, host).Budget
		if got.MaxNodes != c.nodes || got.Timeout != c.timeout || (got.Origin != search.OriginChosen) != c.ceiling {
			t.Errorf("job {%s} ran with %+v, want %d nodes, %v, ceiling %v", c.budget, got, c.nodes, c.timeout, c.ceiling)
		}
	}
	// Without host limits nothing is capped: a job that names no budget
	// keeps its puzzle's default, and no node limit.
	if got := decode(``, search.Budget{}).Budget; got.MaxNodes != 0 || got.Timeout != policy.QuickLimit || got.Origin != search.OriginDefault {
		t.Errorf("no host limits: %+v", got)
	}
}
