package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
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
		if err := queuetest.PublishJob(ctx, js, j); err != nil {
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
	code, out, stderr = solverd(t, "", "queue", "status", "--check", "--nats-url", p.URL())
	if code != exitOK || out != fmt.Sprintf("ok: a single NATS server (not a cluster), %d streams\n", len(st.Streams)) || stderr != "" {
		t.Fatalf("queue status --check: exit %d\nstdout %q\nstderr %q", code, out, stderr)
	}
}

// A stream filled to its byte limit refuses the next publish with an error
// queue.IsStoreFull recognises, and --check names it.
func TestQueueStatusFullStream(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a nats-server process (skipped with -short)")
	}
	p := natstest.StartProcess(t)
	code, out, stderr := solverd(t, "", "queue", "status", "--check", "--nats-url", p.URL())
	if code != exitRejected || !strings.Contains(stderr, "stream TESSERA_JOBS: missing (run `solverd queue apply`)") {
		t.Fatalf("--check before the streams exist: exit %d\nstdout %q\nstderr %q", code, out, stderr)
	}
	if code, out, stderr := solverd(t, "", "queue", "apply", "--nats-url", p.URL(), "--nats-max-bytes", "65536"); code != exitOK {
		t.Fatalf("queue apply: exit %d\n%s%s", code, out, stderr)
	}
	js, err := queue.New(p.Conn(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	state := strings.Repeat("1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15,", 20)
	for i := 0; ; i++ {
		j := job.Job{V: job.Version, ID: fmt.Sprintf("8-%d", i), BatchID: 8, Puzzle: "15", FirstSeq: int64(i), States: []string{state}, Mode: "optimal"}
		err := queuetest.PublishJob(ctx, js, j)
		if err == nil {
			continue
		}
		if !queue.IsStoreFull(err) {
			t.Fatalf("job %d: %v: want a full stream", i, err)
		}
		break
	}
	code, out, stderr = solverd(t, "", "queue", "status", "--check", "--nats-url", p.URL())
	if code != exitRejected || out != "" || !strings.Contains(stderr, "stream TESSERA_JOBS: ") || !strings.Contains(stderr, "byte limit used") ||
		strings.Contains(stderr, "TESSERA_RESULTS") {
		t.Fatalf("--check on a full stream: exit %d\nstdout %q\nstderr %q", code, out, stderr)
	}
	t.Logf("--check:\n%s", stderr)
}

// On a three-node cluster at three replicas: each stream and consumer
// names a running leader and two current followers, and --check says
// "ok"; after a follower's kill -9, status shows it offline within 10 s
// (the leader alone calls it current for about 10 s and offline only
// minutes later) and --check exits 1 naming it, each call bounded.
func TestQueueStatusCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node nats-server cluster (skipped with -short)")
	}
	cl := natstest.StartCluster(t, 3)
	if code, out, stderr := solverd(t, "", "queue", "apply", "--nats-url", cl.URLs(), "--nats-replicas", "3"); code != exitOK {
		t.Fatalf("queue apply: exit %d\n%s%s", code, out, stderr)
	}
	for _, name := range []string{queue.JobsStream, queue.ResultsStream, queue.DeadStream, queue.BucketStream(queue.CancelledBucket)} {
		cl.WaitStreamCurrent(t, name, time.Minute)
	}
	st := statusJSON(t, cl.URLs())
	if !strings.Contains(st.Server, "NATS cluster C (3 servers)") || len(queue.Answering(st.Servers)) != 3 {
		t.Errorf("server %q, servers %+v: want 3, counted by name", st.Server, st.Servers)
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
	monitors := make([]string, cl.N())
	for i := range monitors {
		monitors[i] = cl.Node(i).MonitorURL()
	}
	code, out, stderr := solverd(t, "", "queue", "status", "--nats-url", cl.URLs(), "--monitor-url", strings.Join(monitors, ","))
	if code != exitOK || !strings.Contains(out, jobs.Leader) || !strings.Contains(out, "current") || !strings.Contains(out, "COPY") {
		t.Fatalf("queue status: exit %d\n%s%s", code, out, stderr)
	}
	t.Logf("\n%s", out)
	code, out, stderr = solverd(t, "", "queue", "status", "--check", "--nats-url", cl.URLs(), "--monitor-url", strings.Join(monitors, ","))
	if code != exitOK || !strings.HasPrefix(out, "ok: NATS cluster C (3 servers)") || strings.Count(out, "\n") != 1 || stderr != "" {
		t.Fatalf("queue status --check on a healthy cluster: exit %d\nstdout %q\nstderr %q", code, out, stderr)
	}

	leader := cl.StreamLeader(t, queue.JobsStream)
	victim := (leader + 1) % 3
	name := cl.Node(victim).Name()
	cl.Kill(victim)
	killed := time.Now()
	var slowest time.Duration
	for {
		start := time.Now()
		st := statusJSON(t, cl.URLs())
		slowest = max(slowest, time.Since(start))
		jobs := streamOf(t, st, queue.JobsStream)
		down := false
		for _, p := range jobs.Peers {
			down = down || p.Name == name && p.Offline
		}
		if down && jobs.Leader != "" {
			break // the consumers it leads may still be electing: jobs.Error says so
		}
		if time.Since(killed) > 10*time.Second {
			t.Fatalf("%v after killing %s, %s still shows %+v", time.Since(killed), name, queue.JobsStream, jobs)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("%s shown offline %v after its kill -9; slowest status call %v", name, time.Since(killed).Round(10*time.Millisecond), slowest)
	code, out, stderr = solverd(t, "", "queue", "status", "--nats-url", cl.URLs())
	if code != exitOK || !strings.Contains(out, name+" offline") || !strings.Contains(out, "(3 servers, 1 not answering: "+name+")") {
		t.Errorf("queue status after the kill: exit %d\n%s%s", code, out, stderr)
	}
	t.Logf("\n%s", out)
	start := time.Now()
	code, out, stderr = solverd(t, "", "queue", "status", "--check", "--nats-url", cl.URLs())
	if code != exitRejected || out != "" || !strings.Contains(stderr, "stream TESSERA_JOBS: replica on "+name+" offline") ||
		!strings.Contains(stderr, "server at "+cl.URL(victim)+" did not answer") {
		t.Errorf("queue status --check after the kill: exit %d\nstdout %q\nstderr %s", code, out, stderr)
	}
	// Bounded: each request waits at most --timeout (3 s), all at once.
	if d := time.Since(start); d > 12*time.Second {
		t.Errorf("queue status --check took %v with one node down", d)
	}
	t.Logf("--check:\n%s", stderr)

	// Back: --check says ok again once every replica has caught up. Then
	// the leader of TESSERA_JOBS killed: its successor lists it as "not
	// current, lag N", last seen never; status shows it offline.
	cl.Restart(victim)
	for _, name := range []string{queue.JobsStream, queue.ResultsStream, queue.DeadStream, queue.BucketStream(queue.CancelledBucket)} {
		cl.WaitStreamCurrent(t, name, time.Minute)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		code, out, stderr = solverd(t, "", "queue", "status", "--check", "--nats-url", cl.URLs())
		if code == exitOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("--check a minute after %s came back: exit %d\n%s%s", name, code, out, stderr)
		}
		time.Sleep(time.Second)
	}
	leader = cl.StreamLeader(t, queue.JobsStream)
	name = cl.Node(leader).Name()
	cl.Kill(leader)
	killed = time.Now()
	var shown time.Duration
	for {
		st := statusJSON(t, cl.URLs())
		if shown == 0 && slices.Contains(st.Missing, name) && strings.Contains(st.Server, "1 not answering: "+name) {
			shown = time.Since(killed)
		}
		jobs := streamOf(t, st, queue.JobsStream)
		down := false
		for _, p := range jobs.Peers {
			down = down || p.Name == name && p.Offline
		}
		if shown > 0 && down && jobs.Leader != "" && jobs.Leader != name {
			break
		}
		if shown == 0 && time.Since(killed) > 10*time.Second {
			t.Fatalf("%v after killing the leader %s, status does not show it down: %s", time.Since(killed), name, st.Server)
		}
		if time.Since(killed) > 30*time.Second {
			t.Fatalf("%v after killing the leader %s, %s shows %+v", time.Since(killed), name, queue.JobsStream, jobs)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("leader %s shown not answering %v after its kill -9; %s under a new leader, with %s offline, after %v",
		name, shown.Round(10*time.Millisecond), queue.JobsStream, name, time.Since(killed).Round(10*time.Millisecond))
}
