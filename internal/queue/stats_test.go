package queue

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
)

// ReadStreamStats reads each work stream's size, limit and copies and each
// durable consumer's backlog as the server counts them: three jobs
// published, one fetched and not acknowledged leaves two pending and one
// ack-pending; a stream that does not exist is left out, not an error.
func TestReadStreamStats(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, nc := natstest.Server(t)
	js, err := New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if all, err := ReadStreamStats(ctx, js); err != nil || len(all) != 0 {
		t.Fatalf("no streams yet: %+v, %v", all, err)
	}
	c := DefaultConfig()
	if err := EnsureStreams(ctx, js, c); err != nil {
		t.Fatal(err)
	}
	cons, err := EnsureJobsConsumerAt(ctx, js, c, job.LaneHeavy, job.PriorityNormal)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		j := job.Job{V: job.Version, ID: fmt.Sprintf("4-%d", i), BatchID: 4, Puzzle: "15", FirstSeq: int64(i),
			States: []string{"1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15"}, Mode: "optimal"}
		if err := publishJob(ctx, js, j); err != nil {
			t.Fatal(err)
		}
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for range batch.Messages() {
	}
	if err := js.DeleteStream(ctx, DeadStream); err != nil {
		t.Fatal(err)
	}

	all, err := ReadStreamStats(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]StreamStats{}
	for _, s := range all {
		byName[s.Name] = s
	}
	if _, ok := byName[DeadStream]; ok || len(all) != 2 {
		t.Errorf("streams %+v: want %s and %s, the deleted %s left out", all, JobsStream, ResultsStream, DeadStream)
	}
	jobs := byName[JobsStream]
	if !jobs.Answered || jobs.Messages != 3 || jobs.Bytes == 0 || jobs.MaxBytes != DefaultMaxBytes || jobs.Replicas != 1 || jobs.Current != 1 {
		t.Errorf("%s: %+v, want answered, 3 messages, the default limit, 1 copy of 1", JobsStream, jobs)
	}
	want := ConsumerStats{Name: ConsumerOf(job.LaneHeavy, job.PriorityNormal), Pending: 2, AckPending: 1}
	if len(jobs.Consumers) != 1 || jobs.Consumers[0] != want {
		t.Errorf("%s consumers %+v, want [%+v]", JobsStream, jobs.Consumers, want)
	}
	if r := byName[ResultsStream]; !r.Answered || r.Messages != 0 || len(r.Consumers) != 0 {
		t.Errorf("%s: %+v, want answered and empty", ResultsStream, r)
	}
}
