package queue_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/split"
)

// Answers applied by many processes at once, each twice, through the
// compare-and-set loop are each counted exactly once; a second Create
// returns the first record.
func TestSplitsCountOnceUnderContention(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	if rs, err := queue.ListSplits(ctx, js, 0); err != nil || rs != nil {
		t.Fatalf("no bucket: %+v %v", rs, err)
	}
	s, err := queue.OpenSplits(ctx, js, queue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	key := job.SplitKey(9, 4)
	if _, _, err := s.Get(ctx, key); !errors.Is(err, queue.ErrNoSplit) {
		t.Fatalf("missing record: %v", err)
	}
	r := split.NewRecord(job.Job{ID: "9-4", BatchID: 9}, 4, "s", 30, search.Budget{}, time.Now())
	split.Lay(&r, 3, 40, 100, 33)
	if _, err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	other := r
	other.Bound = 99
	if have, err := s.Create(ctx, other); err != nil || have.Bound != 30 {
		t.Fatalf("second create: %+v %v", have, err)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		for range 2 {
			wg.Go(func() {
				a := job.SubtreeAnswer{Iteration: 1, Index: i, Nodes: int64(i + 1), Next: 31 + i%5}
				if _, _, err := s.Update(ctx, key, func(r *job.SplitRecord) bool { return split.Apply(r, a) }); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	got, _, err := s.Get(ctx, key)
	if err != nil || !split.Complete(got) || got.Nodes != 100+40*41/2 || got.Next != 31 {
		t.Fatalf("after 80 answers to 40 subtrees: %+v %v", got, err)
	}
	if _, changed, err := s.Update(ctx, key, func(r *job.SplitRecord) bool {
		return split.Apply(r, job.SubtreeAnswer{Iteration: 1, Index: 0, Nodes: 5})
	}); changed || err != nil {
		t.Fatalf("a redelivered answer changed the record: %v", err)
	}
	// The listing reads what the bucket holds, by batch.
	if rs, err := queue.ListSplits(ctx, js, 9); err != nil || len(rs) != 1 || rs[0].Count != 40 {
		t.Fatalf("list batch 9: %+v %v", rs, err)
	}
	if rs, err := queue.ListSplits(ctx, js, 10); err != nil || len(rs) != 0 {
		t.Fatalf("list batch 10: %+v %v", rs, err)
	}
	// A subtree job goes to the split consumer, not to either lane's.
	cons, err := queue.EnsureSplitConsumer(ctx, js, queue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sj := job.SubtreeJob{V: job.Version, Key: key, Puzzle: "sliding:4x4", State: "s", Iteration: 1, Bound: 30, Index: 2, Prefix: []uint8{1}}
	spec, _ := puzzle.ParseSpec("sliding:4x4")
	for range 2 {
		if err := s.PublishSubtree(ctx, spec, sj); err != nil {
			t.Fatal(err)
		}
	}
	// The server counts a consumer's pending messages after the publish
	// is acknowledged, not with it: wait for the count to arrive, then
	// require that the duplicate was not counted.
	var pending uint64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if pending = info.NumPending; pending > 0 || time.Now().After(deadline) {
			break
		}
	}
	if pending != 1 {
		t.Fatalf("split consumer has %d pending, want 1 (the duplicate publish deduplicated)", pending)
	}
	for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
		c, err := queuetest.EnsureJobsConsumer(ctx, js, queue.DefaultConfig(), lane)
		if err != nil {
			t.Fatal(err)
		}
		if info, err := c.Info(ctx); err != nil || info.NumPending != 0 {
			t.Fatalf("lane %s sees the subtree job: %+v %v", lane, info, err)
		}
	}
}

// Answers stored by many writers at once, each twice, are each stored
// exactly once (the first; the second is refused, not an error), and the
// coordinator's watch of the iteration sees each once: folded into the
// record they complete it with every node counted once. Nothing is
// written to the record by the answering side, so no compare-and-set can
// lose one.
func TestSplitAnswersCountOnce(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	answersCountOnce(t, ctx, js, queue.DefaultConfig())
}

// The same on a three-node cluster at three replicas: the nats-server
// natstest runs ($TESSERA_NATS_SERVER: e.g. Debian's 2.9.10, whose
// clusters lost concurrent compare-and-sets on one key).
func TestSplitAnswersCountOnceOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node nats-server cluster (skipped with -short)")
	}
	cl := natstest.StartCluster(t, 3)
	c := queue.DefaultConfig()
	c.Replicas = 3
	ctx, js := streamsOn(t, cl.Conn(t), c)
	answersCountOnce(t, ctx, js, c)
}

func answersCountOnce(t *testing.T, ctx context.Context, js jetstream.JetStream, c queue.Config) {
	s, err := queue.OpenSplits(ctx, js, c)
	if err != nil {
		t.Fatal(err)
	}
	key := job.SplitKey(12, 0)
	const n = 200
	r := split.NewRecord(job.Job{ID: "12-0", BatchID: 12}, 0, "s", 30, search.Budget{}, time.Now())
	split.Lay(&r, 3, n, 100, 33)
	if _, err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	var created atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		for range 2 {
			wg.Go(func() {
				ok, err := s.Answer(ctx, key, job.SubtreeAnswer{Iteration: 1, Index: i, Nodes: int64(i + 1), Next: 31 + i%5})
				if err != nil {
					t.Error(err)
				}
				if ok {
					created.Add(1)
				}
			})
		}
	}
	// Another iteration's answer is not this one's.
	if _, err := s.Answer(ctx, key, job.SubtreeAnswer{Iteration: 2, Index: 0, Nodes: 1 << 40}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if c := created.Load(); c != n {
		t.Fatalf("%d answers stored for %d subtrees answered twice each", c, n)
	}
	w, err := s.WatchAnswers(ctx, key, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Stop() }()
	seen := map[int]bool{}
	var answers []job.SubtreeAnswer
	for u := range w.Updates() {
		if u.CaughtUp {
			break // every stored answer delivered
		}
		a, err := u.Answer, u.Err
		if err != nil || a.Iteration != 1 || seen[a.Index] {
			t.Fatalf("answer %s: %+v %v (seen before: %v)", u.Key, a, err, seen[a.Index])
		}
		seen[a.Index] = true
		answers = append(answers, a)
	}
	// Stopped, the watch closes its updates (twice is harmless), so a
	// coordinator waiting on them is never left hanging.
	if err := w.Stop(); err != nil {
		t.Fatal(err)
	}
	_ = w.Stop()
	select {
	case _, ok := <-w.Updates():
		if ok {
			t.Fatal("an update after the stored answers and Stop")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a stopped watch's updates are not closed")
	}
	got, _, err := s.Update(ctx, key, func(x *job.SplitRecord) bool {
		changed := false
		for _, a := range answers {
			changed = split.Apply(x, a) || changed
		}
		return changed
	})
	if err != nil || !split.Complete(got) || got.Nodes != 100+n*(n+1)/2 || got.Next != 31 {
		t.Fatalf("after %d answers folded: %+v %v", len(answers), got, err)
	}
	// The read is the leader's: the write just made, at its revision.
	if now, rev, err := s.Get(ctx, key); err != nil || !split.Complete(now) || rev == 0 {
		t.Fatalf("read after the fold: %+v rev %d %v", now, rev, err)
	}
	if ok, err := s.Answered(ctx, key, 1, 7); err != nil || !ok {
		t.Fatalf("answered 1/7: %v %v", ok, err)
	}
	if ok, err := s.Answered(ctx, key, 1, n); err != nil || ok {
		t.Fatalf("answered 1/%d: %v %v", n, ok, err)
	}
	// An ended search's answers are purged, every iteration's.
	if err := s.PurgeAnswers(ctx, key); err != nil {
		t.Fatal(err)
	}
	for _, it := range []int{1, 2} {
		if ok, err := s.Answered(ctx, key, it, 0); err != nil || ok {
			t.Fatalf("iteration %d after the purge: answered %v, %v", it, ok, err)
		}
	}
	if rs, err := queue.ListSplits(ctx, js, 12); err != nil || len(rs) != 1 || rs[0].Count != n {
		t.Fatalf("list: %+v %v", rs, err)
	}
}

// BenchmarkSubtreeRoundTrip is the per-message overhead of a subtree job
// through a real nats-server, for the makespan model (internal/splitplan):
// the coordinator publishes it, a worker fetches it, reads the record,
// looks for an answer, stores its own under its key, and acks it; the
// coordinator's counting is not in it. One job at a time, so ns/op is one
// job's added latency on this host's loopback.
//
//	go test -run '^$' -bench SubtreeRoundTrip -benchtime 2000x ./internal/queue
func BenchmarkSubtreeRoundTrip(b *testing.B) {
	ctx, js := setup(b, queue.DefaultConfig())
	s, err := queue.OpenSplits(ctx, js, queue.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	cons, err := queue.EnsureSplitConsumer(ctx, js, queue.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	key := job.SplitKey(1, 0)
	r := split.NewRecord(job.Job{ID: "1-0", BatchID: 1}, 0, "s", 80, search.Budget{}, time.Now())
	split.Lay(&r, 6, max(b.N, 1), 100, 82)
	if _, err := s.Create(ctx, r); err != nil {
		b.Fatal(err)
	}
	spec, _ := puzzle.ParseSpec("sliding:5x5")
	prefix := []uint8{0, 1, 0, 1, 2, 3}
	b.ResetTimer()
	for i := range b.N {
		sj := job.SubtreeJob{V: job.Version, Key: key, Puzzle: "sliding:5x5", State: "s", Iteration: 1, Bound: 80, Index: i, Prefix: prefix}
		if err := s.PublishSubtree(ctx, spec, sj); err != nil {
			b.Fatal(err)
		}
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for m := range batch.Messages() {
			// The worker reads the record first (is the subtree still wanted?).
			if _, _, err := s.Get(ctx, key); err != nil {
				b.Fatal(err)
			}
			if done, err := s.Answered(ctx, key, 1, i); err != nil || done {
				b.Fatalf("answer %d before it was stored: %v %v", i, done, err)
			}
			a := job.SubtreeAnswer{Iteration: 1, Index: i, Nodes: 1 << 21, Next: 82}
			if created, err := s.Answer(ctx, key, a); err != nil || !created {
				b.Fatalf("answer %d: created %v, %v", i, created, err)
			}
			if err := m.Ack(); err != nil { // as the worker settles it
				b.Fatal(err)
			}
			n++
		}
		if n != 1 || batch.Error() != nil {
			b.Fatalf("fetch %d: %d messages, %v", i, n, batch.Error())
		}
	}
}
