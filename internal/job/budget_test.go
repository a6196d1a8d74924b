package job

import (
	"encoding/json"
	"testing"
	"time"
)

// A job queued by an older producer (max_nodes and timeout_ms as plain
// fields of the job) decodes into the same budget and encodes back byte
// for byte: the wire did not change when the budget became one field.
func TestBudgetWireRoundTrip(t *testing.T) {
	for _, c := range []struct {
		old   string
		nodes int64
		time  time.Duration
	}{
		{`{"v":1,"id":"3-0","batch":3,"puzzle":"sliding:4x4","seq":0,"states":["1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15"],"mode":"fast","max_nodes":5,"timeout_ms":20}`, 5, 20 * time.Millisecond},
		{`{"v":1,"id":"3-0","batch":3,"puzzle":"sliding:4x4","seq":0,"states":["x"],"mode":"optimal","timeout_ms":600000,"replace":true}`, 0, 10 * time.Minute},
		{`{"v":1,"id":"3-0","batch":3,"puzzle":"swap:4x4","seq":7,"states":["1101/0110/0100/1010"],"mode":"optimal","goal":"1111/1000/0000/0000"}`, 0, 0},
	} {
		var j Job
		if err := json.Unmarshal([]byte(c.old), &j); err != nil {
			t.Fatal(err)
		}
		if j.MaxNodes != c.nodes || j.Timeout() != c.time {
			t.Errorf("%s: budget %+v (%v), want %d nodes, %v", c.old, j.Budget, j.Timeout(), c.nodes, c.time)
		}
		back, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		if string(back) != c.old {
			t.Errorf("re-encoded as\n%s\nwant\n%s", back, c.old)
		}
	}
}

// NewBudget is the one conversion of a flag's duration to the wire's
// milliseconds: a timeout under a millisecond stays a limit.
func TestNewBudget(t *testing.T) {
	for _, c := range []struct {
		nodes   int64
		timeout time.Duration
		want    Budget
	}{
		{0, 0, Budget{}},
		{1000, 0, Budget{MaxNodes: 1000}},
		{0, 30 * time.Second, Budget{TimeoutMS: 30000}},
		{0, time.Microsecond, Budget{TimeoutMS: 1}},
		{7, 1500 * time.Microsecond, Budget{MaxNodes: 7, TimeoutMS: 1}},
	} {
		if got := NewBudget(c.nodes, c.timeout); got != c.want {
			t.Errorf("NewBudget(%d, %v) = %+v, want %+v", c.nodes, c.timeout, got, c.want)
		}
	}
}
