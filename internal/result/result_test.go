package result

import (
	"errors"
	"testing"
)

func TestStatusesAndCounts(t *testing.T) {
	var c Counts
	for i, s := range Statuses() {
		if !s.Valid() {
			t.Errorf("%s not valid", s)
		}
		c.Add(s, int64(i+1))
	}
	c.Add("bogus", 100)
	if Status("bogus").Valid() || Status("").Valid() {
		t.Error("an unknown status is valid")
	}
	for i, s := range Statuses() {
		if c[i] != int64(i+1) {
			t.Errorf("count of %s = %d, want %d", s, c[i], i+1)
		}
	}
	if got, want := StatusNames(), "solved, budget_exceeded, invalid, unsolvable, failed, cancelled"; got != want {
		t.Errorf("StatusNames() = %q, want %q", got, want)
	}
	if len(c) != len(Statuses()) {
		t.Errorf("Counts has %d slots for %d statuses", len(c), len(Statuses()))
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeOptimal, "optimal": ModeOptimal, "fast": ModeFast} {
		if m, err := ParseMode(in); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, m, err)
		}
	}
	if _, err := ParseMode("quick"); !errors.Is(err, ErrBadMode) {
		t.Errorf("ParseMode(quick): %v, want ErrBadMode", err)
	}
}
