package job

import (
	"encoding/json"
	"slices"
	"testing"
)

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

// A second generation of a subtree job has an id of its own (the
// stream's duplicate window would swallow the first's), and its answer
// key is the subtree's, whatever the generation.
func TestSubtreeIDsAndAnswers(t *testing.T) {
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
