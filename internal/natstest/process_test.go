package natstest

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// TestClusterSurvivesLeaderKill is the harness's reason to exist: three real
// processes, an R3 stream, its leader killed with SIGKILL, and publishing
// goes on; the node comes back on its store and catches up.
func TestClusterSurvivesLeaderKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three nats-server processes (skipped with -short)")
	}
	c := StartCluster(t, 3)
	if got := strings.Count(c.URLs(), ","); got != 2 {
		t.Fatalf("URLs() = %q: want three URLs", c.URLs())
	}
	js, err := jetstream.New(c.Conn(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Each create waits at most 10 s and is asked again (the same config:
	// a create that did land is answered with the stream): the answer to
	// one asked while the new cluster's routes still churn can be lost,
	// which held a single create for the whole 2 min (seen in CI).
	for {
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := js.CreateStream(cctx, jetstream.StreamConfig{Name: "R3", Subjects: []string{"r3.>"}, Replicas: 3})
		ccancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("create R3 stream: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	// Each publish waits at most 5 s for its ack and is sent again under
	// the same message id: an ack lost while the leader fails over would
	// otherwise hold the publish until ctx ends (seen in CI), and the id
	// keeps a resent message from being stored twice.
	sent := 0
	publish := func(n int) {
		t.Helper()
		for range n {
			sent++
			for {
				pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
				_, err := js.Publish(pctx, "r3.x", []byte("m"), jetstream.WithMsgID(strconv.Itoa(sent)),
					jetstream.WithRetryAttempts(60), jetstream.WithRetryWait(250*time.Millisecond))
				pcancel()
				if err == nil {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("publish %d: %v", sent, err)
				}
			}
		}
	}
	publish(10)
	leader := c.StreamLeader(t, "R3")
	c.Kill(leader)
	if c.Node(leader).Running() {
		t.Fatalf("node %d still running after Kill", leader)
	}
	publish(10)
	if now := c.StreamLeader(t, "R3"); now == leader {
		t.Fatalf("stream leader is still the killed node %d", leader)
	}
	c.Restart(leader)
	c.WaitStreamCurrent(t, "R3", time.Minute)
	s, err := js.Stream(ctx, "R3")
	if err != nil {
		t.Fatal(err)
	}
	if n := s.CachedInfo().State.Msgs; n != 20 {
		t.Fatalf("R3 holds %d messages after the kill and restart: want 20", n)
	}
}

// TestProcessKillRestart: a single real server killed with SIGKILL keeps a
// file-stored stream across Restart on the same port and store.
func TestProcessKillRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a nats-server process (skipped with -short)")
	}
	p := StartProcess(t)
	j, err := jetstream.New(p.Conn(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := j.CreateStream(ctx, jetstream.StreamConfig{Name: "ONE", Subjects: []string{"one"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Publish(ctx, "one", []byte("m")); err != nil {
		t.Fatal(err)
	}
	p.Kill()
	if p.Running() {
		t.Fatal("still running after Kill")
	}
	p.RestartJetStream()
	s, err := j.Stream(ctx, "ONE")
	if err != nil {
		t.Fatal(err)
	}
	if n := s.CachedInfo().State.Msgs; n != 1 {
		t.Fatalf("ONE holds %d messages after kill -9 and restart: want 1", n)
	}
}

// A port taken between freePort and the server's bind (seen in CI: a
// cluster node died with "address already in use") is told apart from
// other failures, so StartClusterWith starts again on other ports.
func TestPortTakenIsRecognised(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a nats-server process (skipped with -short)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p := newProcess(t, Binary(t), "n0", t.TempDir())
	p.port = l.Addr().(*net.TCPAddr).Port
	p.args[slices.Index(p.args, "-p")+1] = strconv.Itoa(p.port)
	p.start()
	if err := p.connect(20 * time.Second); !errors.Is(err, errPortTaken) {
		t.Fatalf("a server whose port is taken: %v, want errPortTaken", err)
	}
}
