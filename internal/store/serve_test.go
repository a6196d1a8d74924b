package store_test

import (
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// FindBatches' state filter (SQL) agrees with Batch.State (Go) on a batch
// in each state, and the puzzle filter takes any spec.
func TestFindBatchesState(t *testing.T) {
	t.Parallel()
	s := storetest.NewStore(t)
	ctx := ctxT(t)
	enqueuing := mustBatch(t, s, 4)
	stalled := mustBatch(t, s, 4)
	running := mustBatch(t, s, 2)
	finished := mustBatch(t, s, 1)
	cancelled := mustBatch(t, s, 3)
	other, err := s.CreateBatch(ctx, "15", "optimal", -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct{ id, n int64 }{{running, 2}, {finished, 1}, {enqueuing, 1}, {stalled, 1}} {
		if err := s.SetEnqueued(ctx, x.id, x.n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.InsertResults(ctx, []job.Results{res(finished, 0, 3)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CancelBatch(ctx, cancelled); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ctx, `UPDATE batches SET updated_at = now() - interval '1 hour', created_at = now() - interval '1 hour' WHERE id = $1`, stalled); err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{"enqueuing": {other, enqueuing}, "stalled": {stalled}, "running": {running}, "finished": {finished}, "cancelled": {cancelled}}
	now := time.Now()
	for _, st := range store.BatchStates {
		bs, err := s.FindBatches(ctx, store.BatchFilter{State: st}, 100)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, b := range bs {
			ids = append(ids, b.ID)
			if got := b.State(now); got != st {
				t.Errorf("batch %d: SQL says %s, Batch.State %s", b.ID, st, got)
			}
		}
		if len(ids) != len(want[st]) || (len(ids) > 0 && ids[0] != want[st][0]) {
			t.Errorf("state %s: %v, want %v", st, ids, want[st])
		}
	}
	if bs, err := s.FindBatches(ctx, store.BatchFilter{Puzzle: "15"}, 100); err != nil || len(bs) != 1 || bs[0].ID != other {
		t.Errorf("puzzle 15: %+v %v", bs, err)
	}
	if bs, err := s.FindBatches(ctx, store.BatchFilter{Puzzle: "8", State: "enqueuing"}, 100); err != nil || len(bs) != 1 || bs[0].ID != enqueuing {
		t.Errorf("puzzle 8 enqueuing: %+v %v", bs, err)
	}
}

// BatchRows and DeadLettersAfter page by seq and id.
func TestBatchPages(t *testing.T) {
	t.Parallel()
	s, ctx, id := oneBatch(t, 5)
	if _, err := s.InsertResults(ctx, []job.Results{res(id, 0, 3, -1, 4, 5, -1)}); err != nil {
		t.Fatal(err)
	}
	page, err := s.BatchRows(ctx, id, nil, -1, 2)
	if err != nil || len(page) != 2 || page[0].Seq != 0 || page[1].Seq != 1 {
		t.Fatalf("first page %+v %v", page, err)
	}
	page, err = s.BatchRows(ctx, id, nil, 1, 2)
	if err != nil || len(page) != 2 || page[0].Seq != 2 {
		t.Fatalf("second page %+v %v", page, err)
	}
	page, err = s.BatchRows(ctx, id, []string{"budget_exceeded"}, 1, 10)
	if err != nil || len(page) != 1 || page[0].Seq != 4 {
		t.Fatalf("budget_exceeded after 1: %+v %v", page, err)
	}
	var letters []store.DeadLetter
	for i := range 3 {
		seq := int64(10 + i)
		letters = append(letters, store.DeadLetter{BatchID: &id, Seq: &seq, Source: store.DeadProducer, Reason: "bad line", Key: t.Name() + string(rune('a'+i)), Payload: []byte("x")})
	}
	if _, err := s.AddDeadLetters(ctx, letters); err != nil {
		t.Fatal(err)
	}
	first, err := s.DeadLettersAfter(ctx, id, 0, 2)
	if err != nil || len(first) != 2 {
		t.Fatalf("dead letters %+v %v", first, err)
	}
	rest, err := s.DeadLettersAfter(ctx, id, first[1].ID, 2)
	if err != nil || len(rest) != 1 || *rest[0].Seq != 12 {
		t.Fatalf("dead letters after %d: %+v %v", first[1].ID, rest, err)
	}
}

// RowsBefore finds the page before a page of rows, of a status filter
// too, and says when that page is the first.
func TestRowsBefore(t *testing.T) {
	t.Parallel()
	s := storetest.NewStore(t)
	ctx := ctxT(t)
	id := mustBatch(t, s, 10)
	// seqs 0..9; budget_exceeded at 1, 4, 6, 9.
	if _, err := s.InsertResults(ctx, []job.Results{res(id, 0, 1, -1, 2, 3, -1, 4, -1, 5, 6, -1)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		statuses []string
		seq      int64
		limit    int
		want     int64
	}{
		{nil, 9, 3, 5},                          // the page 6 7 8 follows 5
		{nil, 6, 3, 2},                          // 3 4 5 follows 2
		{nil, 3, 3, -1},                         // 0 1 2 is the first page
		{nil, 2, 3, -1},                         // 0 1: the first page, short
		{nil, 0, 3, -1},                         // nothing before: the first page
		{[]string{"budget_exceeded"}, 9, 2, 3},  // 4 6 follows 3 (the cursor is the page's first seq - 1)
		{[]string{"budget_exceeded"}, 6, 2, -1}, // 1 4 is the first
	} {
		got, err := s.RowsBefore(ctx, id, c.statuses, c.seq, c.limit)
		if err != nil || got != c.want {
			t.Errorf("RowsBefore(%v, %d, %d) = %d %v, want %d", c.statuses, c.seq, c.limit, got, err, c.want)
		}
		// The cursor returned does lead to the page before.
		if got >= 0 {
			rows, err := s.BatchRows(ctx, id, c.statuses, got, c.limit)
			if err != nil || len(rows) != c.limit || rows[len(rows)-1].Seq >= c.seq {
				t.Errorf("BatchRows after %d: %d rows, %v", got, len(rows), err)
			}
		}
	}
}
