package job

import (
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
)

func TestBudgetsAndLanes(t *testing.T) {
	opt, fast := result.ModeOptimal, result.ModeFast
	for _, c := range []struct {
		spec    string
		mode    result.Mode
		timeout time.Duration
		want    Lane
	}{
		{"8", opt, 0, LaneQuick},
		{"sliding:3x4", opt, 0, LaneQuick},
		{"15", fast, 0, LaneQuick},
		{"15", opt, 0, LaneHeavy},
		{"24", opt, 0, LaneHeavy},
		{"24", fast, 0, LaneQuick},
		{"loopover:4x4", opt, 0, LaneQuick},
		{"loopover:5x5", opt, 0, LaneHeavy},
		{"loopover:5x5", fast, 0, LaneQuick},
		{"loopover:8x8", opt, 0, LaneQuick},
		{"swap:12x12", opt, 0, LaneQuick},
		{"swap:1000x1000", opt, 0, LaneHeavy},
		// A job's own budget decides: an 8-puzzle given an hour is heavy,
		// a 24-puzzle given a second is quick.
		{"8", opt, time.Hour, LaneHeavy},
		{"24", opt, time.Second, LaneQuick},
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
