// Package natstest starts a private nats-server with JetStream for a test:
// in process, on a random localhost port, with its store in the test's temp
// directory. Tests never touch a system server.
package natstest

import (
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
