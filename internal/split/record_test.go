package split

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/search"
)

// The record keeps the MaxHeavy largest heavy subtrees.
func TestKeepHeavy(t *testing.T) {
	var h []job.SplitHeavy
	for i := range MaxHeavy + 10 {
		h = keepHeavy(h, job.SplitHeavy{Nodes: int64(i)})
	}
	if len(h) != MaxHeavy {
		t.Fatalf("%d kept", len(h))
	}
	for _, x := range h {
		if x.Nodes < 10 {
			t.Fatalf("kept %d, not among the largest", x.Nodes)
		}
	}
}

// An iteration's answers are counted once each, whatever order and
// however often they arrive; a complete iteration advances the bound
// and the lower bound; a solution ends the record.
func TestRecordCountsOnce(t *testing.T) {
	now := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	r := NewRecord(job.Job{ID: "7-3", BatchID: 7, Puzzle: "sliding:4x4"}, 3, "state", 40, search.Budget{MaxNodes: 1000, Timeout: time.Minute}, now)
	if r.Laid() || Apply(&r, job.SubtreeAnswer{Iteration: 1, Index: 0, Nodes: 5}) || Advance(&r) {
		t.Fatalf("an iteration not laid out took an answer or advanced: %+v", r)
	}
	if !Lay(&r, 2, 3, 10, 44) || Lay(&r, 2, 3, 10, 44) {
		t.Fatal("Lay: once per iteration")
	}
	for _, a := range []job.SubtreeAnswer{
		{Iteration: 1, Index: 2, Nodes: 7, Next: 42},
		{Iteration: 1, Index: 2, Nodes: 7, Next: 42, Prefix: []uint8{9}},
		{Iteration: 0, Index: 1, Nodes: 100, Next: 41},
		{Iteration: 1, Index: 3, Nodes: 9, Next: 41},
		{Iteration: 1, Index: 0, Nodes: 20, Next: search.NoNext, Prefix: []uint8{3, 1}},
	} {
		Apply(&r, a)
	}
	if Complete(r) || r.Count != 2 || r.Nodes != 37 || r.Next != 42 || !slices.Equal(Pending(r), []int{1}) {
		t.Fatalf("after duplicates, a late and an out-of-range answer: %+v, pending %v", r, Pending(r))
	}
	// The heavy answer counted is kept (not the duplicate's).
	if len(r.Big) != 1 || r.Big[0].Nodes != 20 || !slices.Equal(r.Big[0].Prefix, []uint8{3, 1}) || r.Heavy != nil {
		t.Fatalf("heavy subtrees %+v, %+v", r.Big, r.Heavy)
	}
	r.Target = 1 << 10
	if !Apply(&r, job.SubtreeAnswer{Iteration: 1, Index: 1, Nodes: 3, Next: 46}) || !Complete(r) || !Advance(&r) {
		t.Fatalf("complete: %+v", r)
	}
	// They pass to the next iteration's layout.
	if len(r.Heavy) != 1 || r.Big != nil || r.Target != 0 {
		t.Fatalf("after the iteration: heavy %+v, big %+v, target %d", r.Heavy, r.Big, r.Target)
	}
	if r.Bound != 42 || r.Lower != 42 || r.Last != 40 || r.Laid() || r.Nodes != 40 || r.Exhausted != 40 || r.End != "" {
		t.Fatalf("advanced: %+v", r)
	}
	if h := Heavy(r); len(h) != 1 || h[0].Nodes != 20 || !slices.Equal(h[0].Prefix, []uint8{3, 1}) {
		t.Fatalf("heavy for the layout: %+v", h)
	}
	// Round trip through JSON, as the bucket stores it.
	data, _ := json.Marshal(r)
	back, err := job.DecodeSplitRecord(data)
	if err != nil || back.Bound != 42 || !back.Deadline.Equal(now.Add(time.Minute)) {
		t.Fatalf("decode: %+v %v", back, err)
	}
	Lay(&r, 3, 2, 4, search.NoNext)
	Apply(&r, job.SubtreeAnswer{Iteration: 2, Index: 1, Nodes: 6, Path: []uint8{1, 2}})
	if r.End != job.EndSolved || r.Lower != 2 || !slices.Equal(r.Path, []uint8{1, 2}) || Apply(&r, job.SubtreeAnswer{Iteration: 2, Index: 0, Nodes: 1}) || r.Nodes != 50 {
		t.Fatalf("solved: %+v", r)
	}
	if Stop(&r, job.EndCancelled) {
		t.Fatal("an ended record stopped again")
	}
	if !OverBudget(r, now.Add(2*time.Minute)) || OverBudget(r, now) {
		t.Fatal("deadline")
	}
	r.Nodes = 1001
	if !OverBudget(r, now) {
		t.Fatal("nodes")
	}
}

// What a walk or a subtree may spend is what the record has left.
func TestBudgetIsWhatIsLeft(t *testing.T) {
	now := time.Now()
	r := NewRecord(job.Job{ID: "1-0", BatchID: 1}, 0, "s", 3, search.Budget{MaxNodes: 100, Timeout: time.Second}, now)
	r.Nodes = 60
	if b := Budget(t.Context(), r); b.MaxNodes != 40 || !b.Deadline.Equal(r.Deadline) || b.Ctx == nil {
		t.Fatalf("%+v", b)
	}
	r.Nodes = 200
	if b := Budget(t.Context(), r); b.MaxNodes != 1 {
		t.Fatalf("spent: %+v", b)
	}
	if r := NewRecord(job.Job{ID: "1-0", BatchID: 1}, 0, "s", 3, search.Budget{}, now); !r.Deadline.IsZero() || r.MaxNodes != 0 || OverBudget(r, now.Add(time.Hour)) {
		t.Fatalf("no budget: %+v", r)
	}
}

// An exhausted iteration that cut nothing off proves there is no solution.
func TestRecordNoSolution(t *testing.T) {
	r := NewRecord(job.Job{ID: "1-0", BatchID: 1}, 0, "s", 3, search.Budget{}, time.Now())
	Lay(&r, 1, 1, 1, search.NoNext)
	Apply(&r, job.SubtreeAnswer{Iteration: 1, Index: 0, Nodes: 1, Next: search.NoNext})
	if !Advance(&r) || r.End != job.EndFailed || r.Error != "no solution exists: the search cut nothing off" {
		t.Fatalf("%+v", r)
	}
}

// A subtree search stopped by the state's budget ends the record with its
// nodes counted; a new iteration starts at generation 0.
func TestStopAndGenerations(t *testing.T) {
	r := NewRecord(job.Job{ID: "1-0", BatchID: 1}, 0, "s", 3, search.Budget{}, time.Now())
	Lay(&r, 1, 4, 10, search.NoNext)
	r.Gen = 2
	if !Apply(&r, job.SubtreeAnswer{Iteration: 1, Index: 2, Nodes: 7, Stop: job.EndBudget}) || r.End != job.EndBudget || r.Nodes != 17 || r.Count != 0 {
		t.Fatalf("stopped: %+v", r)
	}
	if Apply(&r, job.SubtreeAnswer{Iteration: 1, Index: 1, Nodes: 7}) {
		t.Fatal("an ended record counted an answer")
	}
	r = NewRecord(job.Job{ID: "1-0", BatchID: 1}, 0, "s", 3, search.Budget{}, time.Now())
	r.Gen = 3
	if Lay(&r, 1, 4, 10, search.NoNext); r.Gen != 0 {
		t.Fatalf("a new iteration keeps generation %d", r.Gen)
	}
}

// Records and answers in flight carry no-next as 1<<30: search.NoNext
// is the wire's value.
func TestNoNextOnTheWire(t *testing.T) {
	if search.NoNext != 1<<30 {
		t.Fatalf("search.NoNext is %d; records in flight say 1<<30", search.NoNext)
	}
	r := NewRecord(job.Job{ID: "1-0", BatchID: 1}, 0, "s", 3, search.Budget{}, time.Now())
	data, _ := json.Marshal(r)
	if back, err := job.DecodeSplitRecord(data); err != nil || back.Next != 1<<30 || back.Bound != 3 || back.Lower != 3 {
		t.Fatalf("%s: %+v %v", data, back, err)
	}
}
