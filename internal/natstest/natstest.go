// Package natstest starts a private nats-server with JetStream for a test:
// in process, on a random localhost port, with its store in the test's temp
// directory. Tests never touch a system server.
package natstest

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Server starts a JetStream server for t and returns its client URL and a
// connection to it. Both are closed in t.Cleanup.
func Server(t testing.TB) (url string, nc *nats.Conn) {
	t.Helper()
	s := Start(t)
	nc, err := nats.Connect(s.ClientURL(), nats.Name(t.Name()))
	if err != nil {
		t.Fatalf("natstest: connect to %s: %v", s.ClientURL(), err)
	}
	t.Cleanup(nc.Close)
	return s.ClientURL(), nc
}

// Start starts a JetStream server for t and returns it (for tests that
// restart or inspect it). It is shut down in t.Cleanup.
func Start(t testing.TB) *server.Server {
	t.Helper()
	return StartWith(t, nil)
}

// StartWith is Start with the server's options changed by configure
// (nil: none) before it starts, e.g. to require authentication (Users,
// Nkeys, Authorization, TrustedOperators) or TLS (TLSConfig). Clients then
// need the matching credentials: connect with queue.Connect.
func StartWith(t testing.TB, configure func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{
		Host:      "127.0.0.1",
		Port:      server.RANDOM_PORT,
		JetStream: true,
		StoreDir:  t.TempDir(),
		NoLog:     true,
		NoSigs:    true,
	}
	if configure != nil {
		configure(opts)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("natstest: new server: %v", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		t.Fatal("natstest: server not ready after 10s")
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// ExternalBinary is the system nats-server the external-server tests run
// (Debian's 2.9.10 on the dev machines).
const ExternalBinary = "/usr/sbin/nats-server"

// External starts the system nats-server binary (ExternalBinary) as a
// separate process with JetStream on a random localhost port and a store
// in the test's temp directory, and returns its client URL; it is killed in
// t.Cleanup. The test is skipped, saying why, when the binary is missing.
func External(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(ExternalBinary); err != nil {
		t.Skipf("natstest: no external nats-server: %v", err)
	}
	port := freePort(t)
	cmd := exec.Command(ExternalBinary, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("natstest: start %s: %v", ExternalBinary, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	url := "nats://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		nc, err := nats.Connect(url)
		if err == nil {
			nc.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("natstest: %s not ready after 10s: %v\n%s", ExternalBinary, err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("natstest: free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
