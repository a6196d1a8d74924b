package natstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Cluster is n nats-server processes with JetStream, routed to each other
// on 127.0.0.1 (cluster name C, server names n0…n(n-1)).
type Cluster struct {
	t     testing.TB
	nodes []*Process
}

// StartCluster starts an n-node cluster of Binary and waits until every
// node sees a JetStream meta leader that knows all n peers as current, so
// a stream of n replicas can be placed at once. Every process is killed in
// t.Cleanup (and by the kernel if the test binary dies); on failure their
// logs are printed.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	return StartClusterWith(t, n, Binary(t))
}

// StartClusterWith is StartCluster running the binary bin.
func StartClusterWith(t testing.TB, n int, bin string) *Cluster {
	t.Helper()
	if n < 1 {
		t.Fatalf("natstest: a cluster of %d nodes", n)
	}
	lockClusters(t)
	root := t.TempDir()
	for attempt := 1; ; attempt++ {
		c, err := startCluster(t, n, bin, filepath.Join(root, fmt.Sprintf("try%d", attempt)))
		if err == nil {
			c.WaitMeta(60 * time.Second)
			return c
		}
		for _, p := range c.nodes {
			p.Kill()
		}
		// Ports are picked free, then bound by the servers: under a busy
		// test run another process may take one in between (seen in CI).
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatalf("natstest: %v", err)
		}
		t.Logf("natstest: %v; starting the cluster again on other ports", err)
	}
}

// startCluster starts n nodes with their stores under root and waits until
// each accepts connections.
func startCluster(t testing.TB, n int, bin, root string) (*Cluster, error) {
	c := &Cluster{t: t}
	routePorts := make([]int, n)
	routes := make([]string, n)
	for i := range routePorts {
		routePorts[i] = freePort(t)
		routes[i] = "nats://127.0.0.1:" + strconv.Itoa(routePorts[i])
	}
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("n%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return c, err
		}
		p := newProcess(t, bin, fmt.Sprintf("n%d", i), dir)
		p.args = append(p.args, "--cluster_name", "C",
			"--cluster", routes[i], "--routes", strings.Join(routes, ","))
		c.nodes = append(c.nodes, p)
	}
	for _, p := range c.nodes {
		p.start()
	}
	for _, p := range c.nodes {
		if err := p.connect(20 * time.Second); err != nil {
			return c, err
		}
	}
	// A node whose port another process took dies at once, but a client
	// may still connect on that port, to the other process: check that
	// every node lives, after the few milliseconds a bind failure takes.
	time.Sleep(100 * time.Millisecond)
	for _, p := range c.nodes {
		if !p.Running() {
			if strings.Contains(p.Log(), "address already in use") {
				return c, fmt.Errorf("%s exited: %w", p.name, errPortTaken)
			}
			return c, fmt.Errorf("%s exited after start", p.name)
		}
	}
	return c, nil
}

// N is the number of nodes.
func (c *Cluster) N() int { return len(c.nodes) }

// Node is node i.
func (c *Cluster) Node(i int) *Process { return c.nodes[i] }

// URL is node i's client URL.
func (c *Cluster) URL(i int) string { return c.nodes[i].URL() }

// URLs is every node's client URL, comma-separated (as nats.Connect and
// nats.url take them).
func (c *Cluster) URLs() string {
	urls := make([]string, len(c.nodes))
	for i, p := range c.nodes {
		urls[i] = p.URL()
	}
	return strings.Join(urls, ",")
}

// Kill kills node i with SIGKILL.
func (c *Cluster) Kill(i int) { c.nodes[i].Kill() }

// Freeze stops node i with SIGSTOP (Process.Freeze); Thaw resumes it.
func (c *Cluster) Freeze(i int) { c.nodes[i].Freeze() }

// Thaw resumes node i after Freeze.
func (c *Cluster) Thaw(i int) { c.nodes[i].Thaw() }

// Stop shuts node i down gracefully.
func (c *Cluster) Stop(i int) { c.nodes[i].Stop() }

// Restart starts node i again on its ports and store and waits until it
// accepts connections and the meta group has it back as current.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	c.nodes[i].Restart()
	c.WaitMeta(60 * time.Second)
}

// Index is the index of the node named name (n0…), or -1.
func (c *Cluster) Index(name string) int {
	for i, p := range c.nodes {
		if p.name == name {
			return i
		}
	}
	return -1
}

// Conn connects to every node of the cluster (reconnecting forever, as the
// daemons do); it is closed in t.Cleanup.
func (c *Cluster) Conn(t testing.TB) *nats.Conn {
	t.Helper()
	return connect(t, c.URLs())
}

// WaitMeta waits until a running node is the JetStream meta leader and
// sees every other running node as a current peer.
func (c *Cluster) WaitMeta(within time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	var last error
	for {
		if last = c.metaReady(); last == nil {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("natstest: cluster not ready after %v: %v", within, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *Cluster) metaReady() error {
	running := map[string]bool{}
	for _, p := range c.nodes {
		if p.Running() {
			running[p.name] = true
		}
	}
	for _, p := range c.nodes {
		if !running[p.name] {
			continue
		}
		z, err := p.jsz()
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		if z.Meta == nil || z.Meta.Leader == "" {
			return fmt.Errorf("%s sees no meta leader", p.name)
		}
		if z.Meta.Leader != p.name {
			continue
		}
		// The leader lists its peers; every running one must be current.
		current := 1
		for _, r := range z.Meta.Replicas {
			if running[r.Name] && r.Current && !r.Offline {
				current++
			}
		}
		if current < len(running) {
			return fmt.Errorf("meta leader %s sees %d of %d running servers current", p.name, current, len(running))
		}
		return accountInfo(p.URL())
	}
	return errors.New("no running node is the meta leader")
}

// StreamLeader is the index of the node leading stream name, waiting up to
// 30 s for a leader (after a kill, a new one is elected in seconds).
func (c *Cluster) StreamLeader(t testing.TB, name string) int {
	t.Helper()
	i := -1
	poll(t, 30*time.Second, "stream "+name+": no leader", func() error {
		info, err := c.streamInfo(name)
		if err != nil {
			return err
		}
		i, err = c.runningLeader(info.Cluster)
		return err
	})
	return i
}

// runningLeader is the index of ci's leader, if it is a running node.
func (c *Cluster) runningLeader(ci *jetstream.ClusterInfo) (int, error) {
	if ci == nil || ci.Leader == "" {
		return -1, errors.New("no leader")
	}
	if i := c.Index(ci.Leader); i >= 0 && c.nodes[i].Running() {
		return i, nil
	}
	return -1, fmt.Errorf("leader %q is not a running node", ci.Leader)
}

// WaitStreamCurrent waits (up to within) until stream name has a leader
// and all its replicas are current and online, e.g. after a Restart.
func (c *Cluster) WaitStreamCurrent(t testing.TB, name string, within time.Duration) {
	t.Helper()
	poll(t, within, "stream "+name+" not current", func() error {
		info, err := c.streamInfo(name)
		if err != nil {
			return err
		}
		return replicasCurrent(info.Config.Replicas, info.Cluster)
	})
}

// poll calls f every 100 ms until it succeeds; after within, t fails
// saying what did not happen and f's last error.
func poll(t testing.TB, within time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("natstest: %s after %v: %v", what, within, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func replicasCurrent(want int, ci *jetstream.ClusterInfo) error {
	if ci == nil || ci.Leader == "" {
		return errors.New("no leader")
	}
	if want < 1 {
		want = 1
	}
	if len(ci.Replicas) != want-1 {
		return fmt.Errorf("%d of %d followers listed", len(ci.Replicas), want-1)
	}
	for _, r := range ci.Replicas {
		if !r.Current || r.Offline {
			return fmt.Errorf("replica %s: current %v, offline %v, lag %d", r.Name, r.Current, r.Offline, r.Lag)
		}
	}
	return nil
}

// streamInfo asks the running nodes in turn (a dead one refuses at once).
func (c *Cluster) streamInfo(name string) (*jetstream.StreamInfo, error) {
	return askRunning(c, func(ctx context.Context, js jetstream.JetStream) (*jetstream.StreamInfo, error) {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return nil, err
		}
		return s.CachedInfo(), nil
	})
}

// askRunning asks f of the running nodes in turn and returns the first
// answer, or the last node's error.
func askRunning[T any](c *Cluster, f func(context.Context, jetstream.JetStream) (T, error)) (T, error) {
	var zero T
	var last error = errors.New("no running node")
	for _, p := range c.nodes {
		if !p.Running() {
			continue
		}
		v, err := withJS(p.URL(), f)
		if err == nil {
			return v, nil
		}
		last = fmt.Errorf("%s: %w", p.name, err)
	}
	return zero, last
}

func withJS[T any](url string, f func(context.Context, jetstream.JetStream) (T, error)) (T, error) {
	var zero T
	nc, err := nats.Connect(url, nats.Timeout(time.Second), nats.NoReconnect())
	if err != nil {
		return zero, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return zero, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return f(ctx, js)
}

// lockClusters holds, until t ends, a lock that one cluster at a time may
// hold across every test binary of the run: go test runs packages in
// parallel, and two three-node JetStream clusters on a two-core machine
// starve each other's raft heartbeats, so leaders flap and requests time
// out for minutes (in a full run, two cluster tests of two packages fail
// at their two-minute deadlines, each passing alone). A test may
// start one cluster at a time. The lock is registered before the nodes, so
// t's cleanup kills them before it lets the next cluster start.
func lockClusters(t testing.TB) {
	t.Helper()
	path := filepath.Join(os.TempDir(), "tessera-natstest-cluster.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("natstest: cluster lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("natstest: cluster lock: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	})
}
