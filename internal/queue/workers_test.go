package queue_test

import (
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/queue"
)

// A registered process is listed with what it wrote, a refresh replaces
// its entry, and a clean stop removes it; the bucket expires entries
// after WorkerTTL.
func TestWorkersRegistry(t *testing.T) {
	ctx, js := setup(t, queue.DefaultConfig())
	if got, err := queue.Workers(ctx, js); err != nil || len(got) != 0 {
		t.Fatalf("before any registration: %v, %v", got, err)
	}
	started := time.Now().Add(-time.Minute)
	key := queue.WorkerKey("solverd", "host a:b", 42, started)
	reg, err := queue.Register(ctx, js, queue.DefaultConfig(), key)
	if err != nil {
		t.Fatal(err)
	}
	other, err := queue.Register(ctx, js, queue.DefaultConfig(), queue.WorkerKey("results", "host", 7, started))
	if err != nil {
		t.Fatal(err)
	}
	e := queue.WorkerEntry{Role: "solverd", Host: "host a:b", PID: 42, Started: started, Updated: time.Now(),
		Workers: 2, QuickWorkers: 1, Lanes: []string{"quick", "heavy"},
		Jobs: []queue.JobInFlight{{Batch: 3, FirstSeq: 10, States: 1, Puzzle: "sliding:4x4", Lane: "heavy", Delivery: 2, Nodes: 99}}}
	if err := reg.Put(ctx, e); err != nil {
		t.Fatal(err)
	}
	e.Jobs[0].Nodes = 1000
	if err := reg.Put(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := other.Put(ctx, queue.WorkerEntry{Role: "results", Host: "host", PID: 7, Started: started, Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	got, err := queue.Workers(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Role != "results" || got[1].Role != "solverd" {
		t.Fatalf("listed %+v", got)
	}
	if s := got[1]; s.Key != key || s.PID != 42 || len(s.Jobs) != 1 || s.Jobs[0].Nodes != 1000 || s.Jobs[0].Delivery != 2 || s.Workers != 2 {
		t.Fatalf("entry %+v", s)
	}
	if err := reg.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err = queue.Workers(ctx, js); err != nil || len(got) != 1 || got[0].Role != "results" {
		t.Fatalf("after a clean stop: %+v, %v", got, err)
	}
	kv, err := js.KeyValue(ctx, queue.WorkersBucket)
	if err != nil {
		t.Fatal(err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.TTL() != queue.WorkerTTL || st.History() != 1 {
		t.Fatalf("bucket ttl %v history %d", st.TTL(), st.History())
	}
}

func TestWorkerKey(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_000)
	if got, want := queue.WorkerKey("solverd", "web-1.example.com", 12, at), "solverd.web-1_example_com.12.loyw3v28"; got != want {
		t.Fatalf("key %q, want %q", got, want)
	}
	for subject, lane := range map[string]string{"tessera.jobs.quick.sliding.3x3": "quick", "tessera.jobs.sliding.4x4": "heavy",
		"tessera.jobs.split.sliding.4x4": "split", "tessera.jobs.high.quick.sliding.3x3": "quick", "tessera.jobs.low.heavy.sliding.5x5": "heavy"} {
		if got := queue.LaneOfSubject(subject); got != lane {
			t.Errorf("lane of %s: %s, want %s", subject, got, lane)
		}
	}
}
