package policy

import (
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
)

func TestBudgetsAndLanes(t *testing.T) {
	opt, fast := result.ModeOptimal, result.ModeFast
	for _, c := range []struct {
		spec    string
		mode    result.Mode
		timeout time.Duration
		want    job.Lane
	}{
		{"8", opt, 0, job.LaneQuick},
		{"sliding:3x4", opt, 0, job.LaneQuick},
		{"15", fast, 0, job.LaneQuick},
		{"15", opt, 0, job.LaneHeavy},
		{"24", opt, 0, job.LaneHeavy},
		{"24", fast, 0, job.LaneQuick},
		{"loopover:4x4", opt, 0, job.LaneQuick},
		{"loopover:5x5", opt, 0, job.LaneHeavy},
		{"loopover:5x5", fast, 0, job.LaneQuick},
		{"loopover:8x8", opt, 0, job.LaneQuick},
		{"swap:12x12", opt, 0, job.LaneQuick},
		{"swap:1000x1000", opt, 0, job.LaneHeavy},
		// A job's own budget decides: an 8-puzzle given an hour is heavy,
		// a 24-puzzle given a second is quick.
		{"8", opt, time.Hour, job.LaneHeavy},
		{"24", opt, time.Second, job.LaneQuick},
	} {
		sp, err := puzzle.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := LaneOf(sp, c.mode, c.timeout); got != c.want {
			t.Errorf("%s %s %v: lane %s, want %s", c.spec, c.mode, c.timeout, got, c.want)
		}
		if d := DefaultTimeout(sp, c.mode); d <= 0 {
			t.Errorf("%s %s: no finite default budget", c.spec, c.mode)
		}
	}
}

func TestChunkSize(t *testing.T) {
	fifteen := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	bigSwap := puzzle.Spec{Kind: puzzle.Swap, Rows: 1000, Cols: 1000}
	cases := []struct {
		spec       puzzle.Spec
		mode       result.Mode
		configured int
		want       int
	}{
		{puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}, result.ModeOptimal, 0, 1000},
		{puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}, result.ModeOptimal, 50, 50},
		{fifteen, result.ModeOptimal, 0, 8},
		{fifteen, result.ModeFast, 0, 16},
		{bigSwap, result.ModeOptimal, 500, 1}, // bounded by the payload
	}
	for _, c := range cases {
		if got := ChunkSize(c.spec, c.mode, c.configured, 1<<20); got != c.want {
			t.Errorf("ChunkSize(%v, %s, %d) = %d, want %d", c.spec, c.mode, c.configured, got, c.want)
		}
	}
}

// Every family has a policy row: a route, a finite default budget and a
// chunk of at least one state in both modes, and at least one row in the
// budget table of --help.
func TestEveryFamilyHasAPolicy(t *testing.T) {
	classes := map[puzzle.Kind]bool{}
	for _, c := range Classes() {
		classes[c.Spec.Kind] = true
	}
	for k := puzzle.Kind(1); k.Family() != nil; k++ {
		sp := puzzle.Spec{Kind: k, Rows: 4, Cols: 4}
		for _, mode := range []result.Mode{result.ModeOptimal, result.ModeFast} {
			if Of(sp, mode == result.ModeFast) == NoRoute || DefaultTimeout(sp, mode) <= 0 || ChunkSize(sp, mode, 0, 1<<20) < 1 {
				t.Errorf("%s %s: route %d, budget %v, chunk %d", sp, mode, Of(sp, mode == result.ModeFast), DefaultTimeout(sp, mode), ChunkSize(sp, mode, 0, 1<<20))
			}
		}
		if !classes[k] {
			t.Errorf("%s: no row in the budget table", k.Family().Name())
		}
	}
	if Of(puzzle.Spec{}, false) != NoRoute {
		t.Error("a spec of no family has a route")
	}
}

// A family without a row (one declared outside internal/puzzle, whose
// solver entry serves it by kind: internal/familytest) still gets a
// budget every job ends under, the quick lane and usable chunks.
func TestDefaultsWithoutARow(t *testing.T) {
	for _, sp := range []puzzle.Spec{{Kind: puzzle.FirstDeclared, Rows: 3, Cols: 3}, {Kind: puzzle.FirstDeclared, Rows: 5, Cols: 5}} {
		for _, mode := range []result.Mode{result.ModeOptimal, result.ModeFast} {
			if Of(sp, mode == result.ModeFast) != NoRoute || DefaultTimeout(sp, mode) != QuickLimit || LaneOf(sp, mode, 0) != job.LaneQuick || ChunkSize(sp, mode, 0, 1<<20) < 1 {
				t.Errorf("%v %s: route %d, budget %v, lane %v, chunk %d", sp, mode, Of(sp, mode == result.ModeFast), DefaultTimeout(sp, mode), LaneOf(sp, mode, 0), ChunkSize(sp, mode, 0, 1<<20))
			}
		}
	}
}
