package natstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// EnvServer names a nats-server binary to run instead of the version go.mod
// pins (e.g. Debian's /usr/sbin/nats-server).
const EnvServer = "TESSERA_NATS_SERVER"

const serverModule = "github.com/nats-io/nats-server/v2"

var binary struct {
	sync.Mutex
	path string
}

// Binary returns the path of the nats-server binary real-process tests run:
// $TESSERA_NATS_SERVER when set, else the version go.mod pins, built once
// into os.UserCacheDir()/tessera/nats-server-<version> and reused. Two test
// binaries building at once each build to a private name and rename, so
// neither ever runs a half-written file.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(EnvServer); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("natstest: %s=%s: %v", EnvServer, p, err)
		}
		return p
	}
	binary.Lock()
	defer binary.Unlock()
	if binary.path != "" {
		return binary.path
	}
	version := pinnedVersion(t)
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("natstest: cache dir for nats-server: %v", err)
	}
	dir := filepath.Join(cache, "tessera")
	path := filepath.Join(dir, "nats-server-"+version)
	if _, err := os.Stat(path); err == nil {
		binary.path = path
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("natstest: %v", err)
	}
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	// The test's working directory is inside the module, so go.mod's pin
	// (and go.sum) decide what is built.
	cmd := exec.Command("go", "build", "-o", tmp, serverModule)
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		t.Fatalf("natstest: go build %s: %v\n%s", serverModule, err, out)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		t.Fatalf("natstest: %v", err)
	}
	binary.path = path
	return path
}

// pinnedVersion is the nats-server version linked into the test binary,
// which is go.mod's (this package imports the server).
func pinnedVersion(t testing.TB) string {
	t.Helper()
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == serverModule {
				if d.Replace != nil {
					d = d.Replace
				}
				if d.Version != "" && d.Version != "(devel)" {
					return d.Version
				}
			}
		}
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", serverModule).Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		t.Fatalf("natstest: version of %s: %v", serverModule, err)
	}
	return string(bytes.TrimSpace(out))
}

// Process is one real nats-server process with JetStream, alone or a node
// of a Cluster. Its ports and store directory stay the same across
// Restart, so a restarted node is the same server to its peers.
type Process struct {
	t       testing.TB
	bin     string
	name    string
	dir     string // store and logs
	port    int
	monitor int
	args    []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	logs int
}

// StartProcess starts one nats-server process (Binary) with JetStream on
// free 127.0.0.1 ports and a store under t.TempDir(), and waits until
// JetStream answers. It is killed in t.Cleanup; the kernel kills it if the
// test binary dies first (an interrupted or timed-out run leaves nothing).
func StartProcess(t testing.TB) *Process {
	t.Helper()
	return StartProcessWith(t, Binary(t))
}

// StartProcessWith is StartProcess running the binary bin.
func StartProcessWith(t testing.TB, bin string) *Process {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p := newProcess(t, bin, "n0", t.TempDir())
		p.start()
		err := p.connect(20 * time.Second)
		if err == nil {
			// A client may have reached another process on a port this
			// one lost: it must still live after its bind.
			time.Sleep(100 * time.Millisecond)
			if !p.Running() && strings.Contains(p.Log(), "address already in use") {
				err = fmt.Errorf("%s exited: %w", p.name, errPortTaken)
			}
		}
		if err == nil {
			p.waitJetStream(20 * time.Second)
			return p
		}
		p.Kill()
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatalf("natstest: %v", err)
		}
		t.Logf("natstest: %v; starting it again on other ports", err)
	}
}

func newProcess(t testing.TB, bin, name, dir string) *Process {
	p := &Process{t: t, bin: bin, name: name, dir: dir, port: freePort(t), monitor: freePort(t)}
	p.args = []string{"-js", "-a", "127.0.0.1", "-p", strconv.Itoa(p.port), "-m", strconv.Itoa(p.monitor),
		"-sd", filepath.Join(dir, "store"), "--server_name", name}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("%s", p.Log())
		}
	})
	return p
}

// start runs the process once more with the same arguments; its output goes
// to a new log file (nats-N.log) so that Log shows every life.
func (p *Process) start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.logs++
	f, err := os.Create(filepath.Join(p.dir, fmt.Sprintf("nats-%d.log", p.logs)))
	if err != nil {
		p.t.Fatalf("natstest: %v", err)
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = f, f
	// SIGKILL when the test binary dies, so no server outlives an
	// interrupted run.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		p.t.Fatalf("natstest: start %s %s: %v", p.bin, p.name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(done)
	}()
	p.cmd, p.done = cmd, done
}

// URL is the process's client URL.
func (p *Process) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(p.port) }

// MonitorURL is the process's HTTP monitoring base URL.
func (p *Process) MonitorURL() string { return "http://127.0.0.1:" + strconv.Itoa(p.monitor) }

// Name is the server name (n0, n1, …).
func (p *Process) Name() string { return p.name }

// Running reports whether the process is alive.
func (p *Process) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Kill sends SIGKILL (kill -9) and waits until the process is gone. A
// stopped process is left as it is.
func (p *Process) Kill() { p.signal(syscall.SIGKILL, 0) }

// Stop asks the process to shut down (SIGTERM) and waits for it, killing
// it after 30 s.
func (p *Process) Stop() { p.signal(syscall.SIGTERM, 30*time.Second) }

// Freeze stops the process (SIGSTOP) without closing anything: its
// connections stay open and its peers' and clients' packets are queued
// by the kernel unanswered, as on a hung host. Thaw resumes it; Kill and
// the test's end still end a frozen process.
func (p *Process) Freeze() { p.send(syscall.SIGSTOP) }

// Thaw resumes a frozen process (SIGCONT).
func (p *Process) Thaw() { p.send(syscall.SIGCONT) }

func (p *Process) send(sig syscall.Signal) {
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Signal(sig)
	}
}

func (p *Process) signal(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	if grace == 0 {
		<-done
		return
	}
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}
}

// Restart starts a stopped or killed process again on the same ports and
// store (killing it first if it still runs), and waits until it accepts
// connections. A cluster node may need WaitStreamCurrent before its
// replicas have caught up; a single server waits until JetStream answers.
func (p *Process) Restart() {
	p.t.Helper()
	p.Kill()
	p.start()
	p.waitConnect(20 * time.Second)
}

// RestartJetStream is Restart for a single server: it also waits until
// JetStream (which recovers its store first) answers requests.
func (p *Process) RestartJetStream() {
	p.t.Helper()
	p.Restart()
	p.waitJetStream(30 * time.Second)
}

// Log is every life's output of the process, for failure messages.
func (p *Process) Log() string {
	p.mu.Lock()
	n := p.logs
	p.mu.Unlock()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		out, _ := os.ReadFile(filepath.Join(p.dir, fmt.Sprintf("nats-%d.log", i)))
		const keep = 6000
		if len(out) > keep {
			out = append([]byte("…"), out[len(out)-keep:]...)
		}
		fmt.Fprintf(&b, "--- nats-server %s, life %d ---\n%s", p.name, i, out)
	}
	return b.String()
}

func (p *Process) waitConnect(within time.Duration) {
	p.t.Helper()
	if err := p.connect(within); err != nil {
		p.t.Fatalf("natstest: %v", err)
	}
}

// errPortTaken: a port picked free was taken by another process before
// the server bound it (freePort can only pick, not hold). Starting again
// on other ports is the cure.
var errPortTaken = errors.New("a port was taken before the server bound it")

// connect waits until the process accepts connections, and says why not:
// errPortTaken when it died for a port another process took meanwhile.
func (p *Process) connect(within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		nc, err := nats.Connect(p.URL(), nats.Timeout(time.Second), nats.NoReconnect())
		if err == nil {
			nc.Close()
			return nil
		}
		if !p.Running() {
			if strings.Contains(p.Log(), "address already in use") {
				return fmt.Errorf("%s exited: %w", p.name, errPortTaken)
			}
			return fmt.Errorf("%s exited before accepting connections: %v", p.name, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not accepting connections after %v: %v", p.name, within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *Process) waitJetStream(within time.Duration) {
	p.t.Helper()
	p.waitConnect(within)
	deadline := time.Now().Add(within)
	for {
		err := accountInfo(p.URL())
		if err == nil {
			return
		}
		if time.Now().After(deadline) || !p.Running() {
			p.t.Fatalf("natstest: %s: JetStream not answering after %v: %v", p.name, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func accountInfo(url string) error {
	nc, err := nats.Connect(url, nats.Timeout(time.Second), nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// jsz is the part of the monitoring endpoint /jsz the harness reads; the
// field names are the same on 2.9 and 2.15.
type jsz struct {
	Meta *struct {
		Leader   string `json:"leader"`
		Size     int    `json:"cluster_size"`
		Replicas []struct {
			Name    string `json:"name"`
			Current bool   `json:"current"`
			Offline bool   `json:"offline"`
		} `json:"replicas"`
	} `json:"meta_cluster"`
}

func (p *Process) jsz() (jsz, error) {
	var z jsz
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(p.MonitorURL() + "/jsz")
	if err != nil {
		return z, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return z, fmt.Errorf("GET /jsz: %s", resp.Status)
	}
	return z, json.NewDecoder(resp.Body).Decode(&z)
}

// Conn connects to the process, reconnecting forever (across Kill and
// Restart); it is closed in t.Cleanup.
func (p *Process) Conn(t testing.TB) *nats.Conn {
	t.Helper()
	return connect(t, p.URL())
}

func connect(t testing.TB, urls string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(urls, nats.Name(t.Name()), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatalf("natstest: connect to %s: %v", urls, err)
	}
	t.Cleanup(nc.Close)
	return nc
}
