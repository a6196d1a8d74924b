package queue_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/tessera-solver/tessera/internal/backoff"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/testcert"
)

// solverd run and results run stop on a settings error rather than retry
// it forever: Refused tells a settings error from an outage, on real
// Connect errors.
func TestRefused(t *testing.T) {
	s := natstest.StartWith(t, func(o *server.Options) { o.Username, o.Password = "alice", testPassword })
	junk := filepath.Join(t.TempDir(), "junk")
	if err := os.WriteFile(junk, []byte("not a seed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := testcert.Write(t, t.TempDir())
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: f.ServerCert, KeyFile: f.ServerKey, CaFile: f.CA})
	if err != nil {
		t.Fatal(err)
	}
	tlsURL := strings.Replace(natstest.StartWith(t, func(o *server.Options) { o.TLS, o.TLSConfig, o.TLSTimeout = true, tc, 5 }).ClientURL(), "nats://", "tls://", 1)

	for _, c := range []struct {
		name    string
		url     string
		auth    queue.Auth
		refused bool
	}{
		{"wrong password", s.ClientURL(), queue.Auth{User: "alice", Password: testPassword + "x"}, true},
		{"no credentials", s.ClientURL(), queue.Auth{}, true},
		{"nkey file without a seed", s.ClientURL(), queue.Auth{NKeyFile: junk}, true},
		{"missing nkey file", s.ClientURL(), queue.Auth{NKeyFile: junk + ".none"}, true},
		{"creds file without a seed", s.ClientURL(), queue.Auth{CredsFile: junk}, true},
		{"unknown CA", tlsURL, queue.Auth{}, true},
		{"CA file not a certificate", tlsURL, queue.Auth{TLSCAFile: junk}, true},
		{"unparsable URL", "nats://127.0.0.1:notaport", queue.Auth{}, true},
		{"connection refused", "nats://127.0.0.1:1", queue.Auth{}, false},
	} {
		nc, err := queue.Connect(c.url, t.Name(), c.auth)
		if err == nil {
			nc.Close()
			t.Errorf("%s: connected", c.name)
			continue
		}
		if got := queue.Refused(err); got != c.refused {
			t.Errorf("%s: Refused(%v) = %v, want %v", c.name, err, got, c.refused)
		}
	}
	if queue.Refused(nil) {
		t.Error("Refused(nil)")
	}
}

// Refusals gives up on the RefusedTries-th refusal in a row, and an
// outage in between starts the count again.
func TestRefusals(t *testing.T) {
	s := natstest.StartWith(t, func(o *server.Options) { o.Username, o.Password = "alice", testPassword })
	_, refused := queue.Connect(s.ClientURL(), t.Name(), queue.Auth{})
	_, down := queue.Connect("nats://127.0.0.1:1", t.Name(), queue.Auth{})
	outcomes := []error{refused, refused, down, refused, refused, refused, nil}
	r := queue.Refusals()
	calls := 0
	err := backoff.Retry(context.Background(), backoff.Policy{Min: time.Millisecond}, func() error {
		calls++
		return r.Check(outcomes[calls-1])
	}, nil)
	if calls != 6 || !errors.Is(err, refused) || !strings.Contains(err.Error(), "refused 3 times") {
		t.Fatalf("gave up after %d attempts with %v; want 6 (the third refusal after the outage)", calls, err)
	}
}
