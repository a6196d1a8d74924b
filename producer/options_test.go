package main

import (
	"encoding/json"
	"testing"
	"time"
)

// A batch's stored options (batches.options) written before the budget
// became one field read back the same and are written the same: a batch
// enqueued by an older producer resumes with its budget.
func TestOptionsRecordStoredForm(t *testing.T) {
	for _, old := range []string{
		`{"mode":"fast","max_nodes":5,"timeout_ms":20,"goal":"1111/0000","chunk":100}`,
		`{"mode":"optimal","timeout_ms":1,"chunk":1}`,
		`{"mode":"optimal","chunk":1000}`,
	} {
		var o optionsRecord
		if err := json.Unmarshal([]byte(old), &o); err != nil {
			t.Fatal(err)
		}
		back, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if string(back) != old {
			t.Errorf("stored as\n%s\nwant\n%s", back, old)
		}
	}
	var o optionsRecord
	if err := json.Unmarshal([]byte(`{"mode":"fast","max_nodes":5,"timeout_ms":20,"chunk":100}`), &o); err != nil ||
		o.MaxNodes != 5 || o.Timeout() != 20*time.Millisecond {
		t.Errorf("budget read as %+v (%v), %v", o.Budget, o.Timeout(), err)
	}
}
