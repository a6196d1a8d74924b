package loopover

import (
	"slices"
	"testing"
)

// The seed text's 5×5 table: 4751 displacement tuples by distance.
func TestEMD5x5Seed(t *testing.T) {
	e, err := NewEMD(5, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{1, 2, 17, 101, 385, 715, 1069, 1083, 804, 440, 130, 4}
	if e.Tuples != 4751 || !slices.Equal(e.Counts, want) {
		t.Errorf("5x5 EMD tuples %d by distance %v, want 4751 %v", e.Tuples, e.Counts, want)
	}
}
