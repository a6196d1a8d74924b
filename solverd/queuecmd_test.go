package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
)

func statusJSON(t *testing.T, url string) queue.Status {
	t.Helper()
	code, out, stderr := solverd(t, "", "queue", "status", "--json", "--nats-url", url)
	if code != exitOK {
		t.Fatalf("queue status --json: exit %d\n%s%s", code, out, stderr)
	}
	var st queue.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("queue status --json printed no JSON object: %v\n%s", err, out)
	}
	return st
}

func streamOf(t *testing.T, st queue.Status, name string) queue.StreamStatus {
	t.Helper()
	for _, s := range st.Streams {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("status lacks stream %s: %+v", name, st)
	return queue.StreamStatus{}
}

// On a single real server: before anything exists the streams show as
// missing; after apply and two queued jobs, one replica, no leader's
// followers, the jobs counted as pending on the heavy lane's consumer.
func TestQueueStatusSingle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a nats-server process (skipped with -short)")
	}
	p := natstest.StartProcess(t)
	st := statusJSON(t, p.URL())
	if s := streamOf(t, st, queue.JobsStream); !s.Missing {
		t.Errorf("a fresh server's %s is not shown missing: %+v", queue.JobsStream, s)
	}
	if code, out, stderr := solverd(t, "", "queue", "apply", "--nats-url", p.URL()); code != exitOK {
		t.Fatalf("queue apply: exit %d\n%s%s", code, out, stderr)
	}
	js, err := queue.New(p.Conn(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 2 {
		j := job.Job{V: job.Version, ID: "7-" + string(rune('0'+i)), BatchID: 7, Puzzle: "15", FirstSeq: int64(i), States: []string{"1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15"}, Mode: "optimal"}
		if err := queue.PublishJob(ctx, js, j); err != nil {
			t.Fatal(err)
		}
	}
	st = statusJSON(t, p.URL())
	if !strings.Contains(st.Server, "single NATS server") {
		t.Errorf("server %q", st.Server)
	}
	jobs := streamOf(t, st, queue.JobsStream)
	if jobs.Missing || jobs.Replicas != 1 || len(jobs.Peers) != 0 || jobs.Messages != 2 || jobs.FirstSeq != 1 || jobs.LastSeq != 2 || jobs.Stranded != 0 {
		t.Errorf("%s: %+v", queue.JobsStream, jobs)
	}
	var pending uint64
	for _, c := range jobs.Consumer {
		pending += c.Pending
	}
	if len(jobs.Consumer) != len(queue.JobsConsumers()) || pending != 2 {
		t.Errorf("%s consumers %+v: want every lane at every priority, with 2 jobs pending", queue.JobsStream, jobs.Consumer)
	}
	if kv := streamOf(t, st, queue.BucketStream(queue.CancelledBucket)); kv.Missing || kv.Kind != "kv" {
		t.Errorf("cancel bucket %+v", kv)
	}
	code, out, stderr := solverd(t, "", "queue", "status", "--nats-url", p.URL())
	if code != exitOK || !strings.Contains(out, "STREAM") || !strings.Contains(out, queue.JobsStream+"/solverd") {
		t.Fatalf("queue status: exit %d\n%s%s", code, out, stderr)
	}
}

// On a three-node cluster at three replicas: each stream and consumer
// names a running leader and two current followers; the table shows them.
func TestQueueStatusCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node nats-server cluster (skipped with -short)")
	}
	cl := natstest.StartCluster(t, 3)
	if code, out, stderr := solverd(t, "", "queue", "apply", "--nats-url", cl.URLs(), "--nats-replicas", "3"); code != exitOK {
		t.Fatalf("queue apply: exit %d\n%s%s", code, out, stderr)
	}
	cl.WaitStreamCurrent(t, queue.JobsStream, time.Minute)
	st := statusJSON(t, cl.URLs())
	if !strings.Contains(st.Server, "NATS cluster C") {
		t.Errorf("server %q", st.Server)
	}
	jobs := streamOf(t, st, queue.JobsStream)
	if want := cl.Node(cl.StreamLeader(t, queue.JobsStream)).Name(); jobs.Leader != want {
		t.Errorf("%s leader %q, want %q", queue.JobsStream, jobs.Leader, want)
	}
	for _, name := range []string{queue.JobsStream, queue.ResultsStream, queue.DeadStream, queue.BucketStream(queue.CancelledBucket)} {
		s := streamOf(t, st, name)
		if s.Replicas != 3 || s.Leader == "" || len(s.Peers) != 2 {
			t.Errorf("%s: replicas %d, leader %q, followers %+v: want 3, one, two", name, s.Replicas, s.Leader, s.Peers)
		}
	}
	for _, c := range jobs.Consumer {
		if c.Replicas != 3 || c.Leader == "" {
			t.Errorf("consumer %s: replicas %d, leader %q", c.Name, c.Replicas, c.Leader)
		}
	}
	code, out, stderr := solverd(t, "", "queue", "status", "--nats-url", cl.URLs())
	if code != exitOK || !strings.Contains(out, jobs.Leader) || !strings.Contains(out, "current") {
		t.Fatalf("queue status: exit %d\n%s%s", code, out, stderr)
	}
	// A follower killed shows as not current (offline once the leader
	// gives up on it), while the stream keeps its leader.
	leader := cl.StreamLeader(t, queue.JobsStream)
	victim := (leader + 1) % 3
	cl.Kill(victim)
	deadline := time.Now().Add(45 * time.Second)
	for {
		st := statusJSON(t, cl.URL(leader))
		jobs := streamOf(t, st, queue.JobsStream)
		down := false
		for _, p := range jobs.Peers {
			down = down || p.Name == cl.Node(victim).Name() && (p.Offline || !p.Current)
		}
		if down && jobs.Leader != "" && jobs.Error == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after killing %s, %s still shows %+v", cl.Node(victim).Name(), queue.JobsStream, jobs)
		}
		time.Sleep(500 * time.Millisecond)
	}
	_, out, _ = solverd(t, "", "queue", "status", "--nats-url", cl.URL(leader))
	t.Logf("\n%s", out)
}
