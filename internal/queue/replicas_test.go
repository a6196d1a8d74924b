package queue

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
)

func withReplicas(n int) Config {
	c := DefaultConfig()
	c.Replicas = n
	return c
}

// ensureAll is what the daemons do at start: streams, every consumer, the
// cancel bucket.
func ensureAll(t *testing.T, ctx context.Context, js jetstream.JetStream, c Config) {
	t.Helper()
	if err := EnsureStreams(ctx, js, c); err != nil {
		t.Fatalf("EnsureStreams: %v", err)
	}
	for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
		if _, err := EnsureJobsConsumerAt(ctx, js, c, lane, job.PriorityNormal); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := EnsureResultsConsumer(ctx, js, c); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureDeadConsumer(ctx, js, c); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureDeadCopiesConsumer(ctx, js, c); err != nil {
		t.Fatal(err)
	}
	if err := EnsureControlBuckets(ctx, js, c); err != nil {
		t.Fatal(err)
	}
}

// replicasOf is the replica count the server runs a stream at, and the
// least of its durable consumers' (from their cluster info: a consumer
// created with Replicas 0 reports the stream's peers).
func replicasOf(t *testing.T, ctx context.Context, js jetstream.JetStream, stream string) (streamR, consumerR int) {
	t.Helper()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatalf("stream %s: %v", stream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	streamR = info.Config.Replicas
	consumerR = streamR
	l := s.ListConsumers(ctx)
	for ci := range l.Info() {
		r := 1
		if ci.Cluster != nil {
			r = 1 + len(ci.Cluster.Replicas)
		}
		consumerR = min(consumerR, r)
	}
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	return streamR, consumerR
}

// clusterJS starts a three-node cluster for t (skipped with -short) and
// returns it and a client of it with two minutes to do its work.
func clusterJS(t *testing.T) (*natstest.Cluster, context.Context, jetstream.JetStream) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a three-node nats-server cluster (skipped with -short)")
	}
	cl := natstest.StartCluster(t, 3)
	js, err := New(cl.Conn(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return cl, ctx, js
}

var tesseraStreams = []string{JobsStream, ResultsStream, DeadStream, ParkedStream, BucketStream(CancelledBucket), BucketStream(PausedBucket)}

// An operator's R3 streams survive every process started with the default
// of one replica: streams, consumers and buckets stay at three, and the
// difference is reported once per stream instead of acted on.
func TestReplicasNeverLowered(t *testing.T) {
	_, ctx, js := clusterJS(t)
	ensureAll(t, ctx, js, withReplicas(3))
	// A different setting elsewhere makes ensureStream update the stream:
	// the update must carry the existing replica count too.
	one := withReplicas(1)
	one.DuplicateWindow = 5 * time.Minute
	ensureAll(t, ctx, js, one)
	if err := ApplyJobsConsumers(ctx, js, one); err != nil {
		t.Fatal(err)
	}
	for _, name := range tesseraStreams {
		if s, c := replicasOf(t, ctx, js, name); s != 3 || c != 3 {
			t.Errorf("%s after processes with nats.replicas 1: stream %d replicas, consumers %d: want 3 and 3", name, s, c)
		}
	}
	s, _ := js.Stream(ctx, JobsStream)
	if d := s.CachedInfo().Config.Duplicates; d != 5*time.Minute {
		t.Errorf("the duplicate window was not updated (%v): the test did not exercise an update", d)
	}
	drift, err := ReplicaDrift(ctx, js, one)
	if err != nil {
		t.Fatal(err)
	}
	if len(drift) != len(tesseraStreams) {
		t.Fatalf("ReplicaDrift = %q: want one line per stream", drift)
	}
	for i, name := range tesseraStreams {
		if want := name + ": 3 replicas on the server, nats.replicas 1"; drift[i] != want {
			t.Errorf("drift[%d] = %q, want %q", i, drift[i], want)
		}
	}
	if drift, _ := ReplicaDrift(ctx, js, withReplicas(3)); len(drift) != 0 {
		t.Errorf("ReplicaDrift with the server's count = %q: want none", drift)
	}
}

// ApplyReplicas raises one replica to three for the streams, their
// consumers and the buckets (object store included), and says so.
func TestApplyReplicasRaises(t *testing.T) {
	cl, ctx, js := clusterJS(t)
	ensureAll(t, ctx, js, withReplicas(1))
	// A consumer created by an older tessera names its replicas.
	if _, err := js.UpdateConsumer(ctx, ResultsStream, jetstream.ConsumerConfig{Durable: ResultsConsumer,
		Description: "results writer", AckPolicy: jetstream.AckExplicitPolicy, AckWait: DefaultConfig().ResultsAckWait,
		MaxAckPending: DefaultConfig().ResultsMaxAckPending, Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "tables", Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	// The split searches' bucket, as a first split search made it.
	if _, err := OpenSplits(ctx, js, withReplicas(1)); err != nil {
		t.Fatal(err)
	}
	done, err := ApplyReplicas(ctx, js, withReplicas(3), "tables")
	if err != nil {
		t.Fatalf("ApplyReplicas: %v", err)
	}
	all := append(append([]string{}, tesseraStreams...), ObjectStoreStream("tables"), BucketStream(SplitBucket))
	for _, name := range all {
		if !strings.Contains(strings.Join(done, "\n"), "stream "+name+": replicas 1 -> 3") {
			t.Errorf("ApplyReplicas did not report %s:\n%s", name, strings.Join(done, "\n"))
		}
		cl.WaitStreamCurrent(t, name, time.Minute)
		if s, c := replicasOf(t, ctx, js, name); s != 3 || c != 3 {
			t.Errorf("%s after apply: stream %d replicas, consumers %d: want 3 and 3", name, s, c)
		}
	}
	again, err := ApplyReplicas(ctx, js, withReplicas(3), "tables")
	if err != nil || len(again) != 0 {
		t.Errorf("a second ApplyReplicas changed %q (%v): want nothing", again, err)
	}
	// And back down, explicitly.
	if _, err := ApplyReplicas(ctx, js, withReplicas(1), "tables"); err != nil {
		t.Fatalf("ApplyReplicas down to 1: %v", err)
	}
	for _, name := range all {
		if s, c := replicasOf(t, ctx, js, name); s != 1 || c != 1 {
			t.Errorf("%s after apply 1: stream %d replicas, consumers %d: want 1 and 1", name, s, c)
		}
	}
}

// Asking for more replicas than the deployment has fails in plain words,
// on a single real server (pinned, and Debian's 2.9.10 when installed) and
// on a three-node cluster, when creating and when applying.
func TestTooManyReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nats-server processes (skipped with -short)")
	}
	check := func(t *testing.T, err error, want string) {
		t.Helper()
		if !errors.Is(err, ErrReplicas) || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v: want ErrReplicas saying %q", err, want)
		}
	}
	single := func(t *testing.T, bin string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		js, err := New(natstest.StartProcessWith(t, bin).Conn(t))
		if err != nil {
			t.Fatal(err)
		}
		err = EnsureStreams(ctx, js, withReplicas(3))
		check(t, err, "stream TESSERA_JOBS: 3 replicas asked but a single NATS server (not a cluster) cannot place them: set nats.replicas to at most 1")
		_, err = cancelledKV(ctx, js, withReplicas(2))
		check(t, err, "bucket tessera-cancelled: 2 replicas asked")
		if err := EnsureStreams(ctx, js, withReplicas(1)); err != nil {
			t.Fatal(err)
		}
		_, err = ApplyReplicas(ctx, js, withReplicas(3))
		check(t, err, "the streams: 3 replicas asked but a single NATS server")
	}
	t.Run("single", func(t *testing.T) { single(t, natstest.Binary(t)) })
	t.Run("single-2.9", func(t *testing.T) {
		if _, err := os.Stat(natstest.ExternalBinary); err != nil {
			t.Skipf("no %s: %v", natstest.ExternalBinary, err)
		}
		single(t, natstest.ExternalBinary)
	})
	t.Run("cluster", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cl := natstest.StartCluster(t, 3)
		js, err := New(cl.Conn(t))
		if err != nil {
			t.Fatal(err)
		}
		err = EnsureStreams(ctx, js, withReplicas(5))
		check(t, err, "stream TESSERA_JOBS: 5 replicas asked but NATS cluster C (3 servers) cannot place them: set nats.replicas to at most the number of servers with JetStream (3 answering)")
		if err := EnsureStreams(ctx, js, withReplicas(3)); err != nil {
			t.Fatal(err)
		}
		_, err = ApplyReplicas(ctx, js, withReplicas(4))
		check(t, err, "4 replicas asked but NATS cluster C")
	})
}

// Place waits out "no suitable peers for placement, peer offline" on a
// cluster that knows enough servers (a restarting or lagging node: seen
// under a full parallel test run), and returns any other answer, or the
// same one on a single server, at once.
func TestPlaceWaitsOutOfflinePeers(t *testing.T) {
	cl, ctx, _ := clusterJS(t)
	offline := &jetstream.APIError{Code: 500, ErrorCode: 10005, Description: "no suitable peers for placement, peer offline"}
	calls := 0
	flaky := func() error {
		calls++
		if calls <= 3 {
			return offline
		}
		return nil
	}
	if err := Place(ctx, cl.Conn(t), 3, flaky); err != nil || calls != 4 {
		t.Errorf("cluster: %v after %d calls, want nil after 4", err, calls)
	}
	calls = 0
	if err := Place(ctx, cl.Conn(t), 5, flaky); !errors.Is(err, offline) || calls != 1 {
		t.Errorf("more replicas than servers: %v after %d calls, want the answer at once", err, calls)
	}
	calls = 0
	other := &jetstream.APIError{Code: 500, ErrorCode: 10023, Description: "insufficient resources"}
	if err := Place(ctx, cl.Conn(t), 3, func() error { calls++; return other }); !errors.Is(err, other) || calls != 1 {
		t.Errorf("another refusal: %v after %d calls, want it at once", err, calls)
	}
	_, nc := natstest.Server(t)
	calls = 0
	if err := Place(ctx, nc, 3, flaky); !errors.Is(err, offline) || calls != 1 {
		t.Errorf("single server: %v after %d calls, want the answer at once", err, calls)
	}
	// A request that timed out (a raft group still forming) is asked again
	// while the caller's context lives, on any server.
	calls = 0
	slow := func() error {
		calls++
		if calls <= 2 {
			return context.DeadlineExceeded
		}
		return nil
	}
	if err := Place(ctx, nc, 1, slow); err != nil || calls != 3 {
		t.Errorf("timeouts: %v after %d calls, want nil after 3", err, calls)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	calls = 0
	if err := Place(ended, nc, 1, slow); !errors.Is(err, context.DeadlineExceeded) || calls != 1 {
		t.Errorf("timeout after the caller's end: %v after %d calls, want it at once", err, calls)
	}
}
