package job

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// An iteration's answers are counted once each, whatever order and
// however often they arrive; a complete iteration advances the bound
// and the lower bound; a solution ends the record.
func TestKeepHeavy(t *testing.T) {
	var h []SplitHeavy
	for i := range MaxHeavy + 10 {
		h = keepHeavy(h, SplitHeavy{Nodes: int64(i)})
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

func TestSplitRecordCountsOnce(t *testing.T) {
	now := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	r := NewSplitRecord(Job{ID: "7-3", BatchID: 7, Puzzle: "sliding:4x4", Budget: Budget{MaxNodes: 1000, TimeoutMS: 60000}}, 3, "state", 40, now)
	if r.Laid() || r.Apply(SubtreeAnswer{Iteration: 1, Index: 0, Nodes: 5}) || r.Advance() {
		t.Fatalf("an iteration not laid out took an answer or advanced: %+v", r)
	}
	if !r.Lay(2, 3, 10, 44) || r.Lay(2, 3, 10, 44) {
		t.Fatal("Lay: once per iteration")
	}
	for _, a := range []SubtreeAnswer{{1, 2, 7, 42, nil, nil, ""}, {1, 2, 7, 42, nil, []uint8{9}, ""}, {0, 1, 100, 41, nil, nil, ""}, {1, 3, 9, 41, nil, nil, ""}, {1, 0, 20, NoNext, nil, []uint8{3, 1}, ""}} {
		r.Apply(a)
	}
	if r.Complete() || r.Count != 2 || r.Nodes != 37 || r.Next != 42 || !slices.Equal(r.Pending(), []int{1}) {
		t.Fatalf("after duplicates, a late and an out-of-range answer: %+v, pending %v", r, r.Pending())
	}
	// The heavy answer counted is kept (not the duplicate's).
	if len(r.Big) != 1 || r.Big[0].Nodes != 20 || !slices.Equal(r.Big[0].Prefix, []uint8{3, 1}) || r.Heavy != nil {
		t.Fatalf("heavy subtrees %+v, %+v", r.Big, r.Heavy)
	}
	r.Target = 1 << 10
	if !r.Apply(SubtreeAnswer{Iteration: 1, Index: 1, Nodes: 3, Next: 46}) || !r.Complete() || !r.Advance() {
		t.Fatalf("complete: %+v", r)
	}
	// They pass to the next iteration's layout.
	if len(r.Heavy) != 1 || r.Big != nil || r.Target != 0 {
		t.Fatalf("after the iteration: heavy %+v, big %+v, target %d", r.Heavy, r.Big, r.Target)
	}
	if r.Bound != 42 || r.Lower != 42 || r.Last != 40 || r.Laid() || r.Nodes != 40 || r.Exhausted != 40 || r.End != "" {
		t.Fatalf("advanced: %+v", r)
	}
	// Round trip through JSON, as the bucket stores it.
	data, _ := json.Marshal(r)
	back, err := DecodeSplitRecord(data)
	if err != nil || back.Bound != 42 || !back.Deadline.Equal(now.Add(time.Minute)) {
		t.Fatalf("decode: %+v %v", back, err)
	}
	r.Lay(3, 2, 4, NoNext)
	r.Apply(SubtreeAnswer{Iteration: 2, Index: 1, Nodes: 6, Path: []uint8{1, 2}})
	if r.End != EndSolved || r.Lower != 2 || !slices.Equal(r.Path, []uint8{1, 2}) || r.Apply(SubtreeAnswer{Iteration: 2, Index: 0, Nodes: 1}) || r.Nodes != 50 {
		t.Fatalf("solved: %+v", r)
	}
	if r.Stop(EndCancelled) {
		t.Fatal("an ended record stopped again")
	}
	if !r.OverBudget(now.Add(2*time.Minute)) || r.OverBudget(now) {
		t.Fatal("deadline")
	}
	r.Nodes = 1001
	if !r.OverBudget(now) {
		t.Fatal("nodes")
	}
}

// An exhausted iteration that cut nothing off proves there is no solution.
func TestSplitRecordNoSolution(t *testing.T) {
	r := NewSplitRecord(Job{ID: "1-0", BatchID: 1}, 0, "s", 3, time.Now())
	r.Lay(1, 1, 1, NoNext)
	r.Apply(SubtreeAnswer{Iteration: 1, Index: 0, Nodes: 1, Next: NoNext})
	if !r.Advance() || r.End != EndFailed {
		t.Fatalf("%+v", r)
	}
}

func TestDecodeSplitRefuses(t *testing.T) {
	for _, s := range []string{`{`, `{"v":2}`, `{"v":1,"iteration":1,"total":9,"answered":"AA==","count":0}`, `{"v":1,"iteration":1,"total":2,"answered":"Aw==","count":1}`} {
		if _, err := DecodeSplitRecord([]byte(s)); err == nil {
			t.Errorf("record %s accepted", s)
		}
	}
	for _, s := range []string{`{`, `{"v":1,"key":"1.0","iteration":1,"bound":1,"prefix":[1,2]}`, `{"v":1,"iteration":1,"bound":3}`, `{"v":1,"key":"1.0","iteration":0,"bound":3}`} {
		if _, err := DecodeSubtreeJob([]byte(s)); err == nil {
			t.Errorf("subtree job %s accepted", s)
		}
	}
	sj := SubtreeJob{V: Version, Key: "1.0", Iteration: 2, Bound: 5, Index: 3, Prefix: []uint8{0, 3}}
	data, _ := json.Marshal(sj)
	if back, err := DecodeSubtreeJob(data); err != nil || back.ID() != "1.0.2.3" || !slices.Equal(back.Prefix, sj.Prefix) {
		t.Fatalf("%+v %v", back, err)
	}
}

// A subtree search stopped by the state's budget ends the record with its
// nodes counted; a second generation of a subtree job has an id of its
// own (the stream's duplicate window would swallow the first's), and its
// answer key is the subtree's, whatever the generation.
func TestSplitStopAndGenerations(t *testing.T) {
	r := NewSplitRecord(Job{ID: "1-0", BatchID: 1}, 0, "s", 3, time.Now())
	r.Lay(1, 4, 10, NoNext)
	r.Gen = 2
	if !r.Apply(SubtreeAnswer{Iteration: 1, Index: 2, Nodes: 7, Stop: EndBudget}) || r.End != EndBudget || r.Nodes != 17 || r.Count != 0 {
		t.Fatalf("stopped: %+v", r)
	}
	if r.Apply(SubtreeAnswer{Iteration: 1, Index: 1, Nodes: 7}) {
		t.Fatal("an ended record counted an answer")
	}
	r = NewSplitRecord(Job{ID: "1-0", BatchID: 1}, 0, "s", 3, time.Now())
	r.Gen = 3
	if r.Lay(1, 4, 10, NoNext); r.Gen != 0 {
		t.Fatalf("a new iteration keeps generation %d", r.Gen)
	}
	sj := SubtreeJob{Key: "1.0", Iteration: 2, Index: 3}
	if sj.ID() != "1.0.2.3" {
		t.Fatal(sj.ID())
	}
	sj.Gen = 1
	if sj.ID() != "1.0.2.3.g1" || AnswerKey(sj.Key, sj.Iteration, sj.Index) != "1.0.2.3" || AnswerKey("1.0", 2, -1) != "1.0.2.*" {
		t.Fatalf("%s, %s", sj.ID(), AnswerKey(sj.Key, sj.Iteration, sj.Index))
	}
	for _, s := range []string{`{`, `{"iteration":0,"index":1}`, `{"iteration":1,"index":-1}`, `{"iteration":1,"index":0,"stop":"later"}`} {
		if _, err := DecodeSubtreeAnswer([]byte(s)); err == nil {
			t.Errorf("answer %s accepted", s)
		}
	}
	data, _ := json.Marshal(SubtreeAnswer{Iteration: 1, Index: 4, Nodes: 9, Next: 5, Stop: EndCancelled})
	if a, err := DecodeSubtreeAnswer(data); err != nil || a.Index != 4 || a.Stop != EndCancelled {
		t.Fatalf("%+v %v", a, err)
	}
}
