package store_test

import (
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// Rows per minute come from the rows' solved_at, every minute of the
// window counted (a minute without a row as zero), up to the newest row.
func TestThroughput(t *testing.T) {
	t.Parallel()
	s := storetest.NewStore(t)
	ctx := ctxT(t)
	id := mustBatch(t, s, 10)
	other := mustBatch(t, s, 2)
	if got, err := s.Throughput(ctx, id, 5); err != nil || got != nil {
		t.Fatalf("no rows: %v %v", got, err)
	}
	if _, err := s.InsertResults(ctx, []job.Results{res(id, 0, 1, 2, 3, 4, 5, 6, 7), res(other, 0, 1, 2)}); err != nil {
		t.Fatal(err)
	}
	// Seqs 0-2 an hour ago (out of a 5-minute window), 3-4 three minutes
	// before the newest, 5-6 in the newest minute.
	base := time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)
	for _, u := range []struct {
		lo, hi int
		at     time.Time
	}{{0, 2, base.Add(-time.Hour)}, {3, 4, base.Add(-3*time.Minute + 10*time.Second)}, {5, 6, base.Add(59 * time.Second)}} {
		if err := s.Exec(ctx, `UPDATE solutions SET solved_at = $1 WHERE batch_id = $2 AND seq BETWEEN $3 AND $4`, u.at, id, u.lo, u.hi); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Throughput(ctx, id, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 2, 0, 0, 2}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %d minutes", got, len(want))
	}
	for i, m := range got {
		if m.Rows != want[i] || !m.Minute.Equal(base.Add(time.Duration(i-4)*time.Minute)) {
			t.Errorf("minute %d: %s %d rows, want %s %d", i, m.Minute, m.Rows, base.Add(time.Duration(i-4)*time.Minute), want[i])
		}
	}
	// The window reaches back to the hour-old rows.
	got, err = s.Throughput(ctx, id, 61)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 61 || got[0].Rows != 3 || !got[0].Minute.Equal(base.Add(-time.Hour)) {
		t.Errorf("61-minute window starts %+v (%d minutes)", got[0], len(got))
	}
}
