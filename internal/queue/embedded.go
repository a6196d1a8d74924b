package queue

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// ServerOptions configure an in-process nats-server.
type ServerOptions struct {
	// StoreDir holds the JetStream file store. Required.
	StoreDir string
	// Listen opens a TCP port (Host:Port; Port 0 or -1 picks a free one,
	// Host defaults to 127.0.0.1) so other processes can attach. Without it the server is reachable only
	// through the in-process connection.
	Listen bool
	Host   string
	Port   int
	// Name of the server (shows in logs and monitoring).
	Name string
}

// readyTimeout bounds how long a starting in-process server may take.
const readyTimeout = 10 * time.Second

// StartServer starts an in-process nats-server with JetStream and returns
// it with a client connection. The connection is in-process (no TCP) even
// when the server also listens. Shut down with nc.Close, then
// s.Shutdown and s.WaitForShutdown.
func StartServer(o ServerOptions) (*server.Server, *nats.Conn, error) {
	if o.StoreDir == "" {
		return nil, nil, errors.New("start nats-server: empty JetStream store directory")
	}
	opts := &server.Options{
		ServerName: o.Name,
		JetStream:  true,
		StoreDir:   o.StoreDir,
		DontListen: !o.Listen,
		Host:       o.Host,
		Port:       o.Port,
		NoSigs:     true,
		NoLog:      true,
		// The HTTP monitor and cluster ports stay closed.
	}
	if o.Listen && o.Host == "" {
		opts.Host = "127.0.0.1"
	}
	if o.Listen && o.Port == 0 {
		// 0 would mean the server's default 4222, likely taken by a
		// system server.
		opts.Port = server.RANDOM_PORT
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("start nats-server (store %s): %w", o.StoreDir, err)
	}
	go s.Start()
	if !s.ReadyForConnections(readyTimeout) {
		s.Shutdown()
		return nil, nil, fmt.Errorf("start nats-server (store %s): not ready after %v", o.StoreDir, readyTimeout)
	}
	nc, err := nats.Connect("", nats.InProcessServer(s), nats.Name(o.Name))
	if err != nil {
		s.Shutdown()
		return nil, nil, fmt.Errorf("connect to in-process nats-server: %w", err)
	}
	return s, nc, nil
}

// StartEmbedded starts an in-process nats-server with JetStream on
// storeDir that listens on no port (producer --local).
func StartEmbedded(storeDir string) (*server.Server, *nats.Conn, error) {
	return StartServer(ServerOptions{StoreDir: storeDir, Name: "tessera-embedded"})
}

// FitMaxBytes is want (nats.max_bytes), lowered to a quarter of s's
// JetStream store when that is less: the in-process server of --local
// takes its store from the free disk, and the three limited streams and
// the headroom must fit in it (docs/DEPLOY.md's rule), or creating them
// would fail on a small disk. 0 (no limit) stays 0.
func FitMaxBytes(s *server.Server, want int64) int64 {
	if want <= 0 || s == nil {
		return want
	}
	if c := s.JetStreamConfig(); c != nil && c.MaxStore > 0 {
		return min(want, c.MaxStore/4)
	}
	return want
}
