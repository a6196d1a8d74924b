package main

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// `results run` does not retry a password NATS refuses forever: it exits
// non-zero after a few tries, saying why and without the password.
func TestRunExitsOnRefusedSettings(t *testing.T) {
	isolate(t)
	u := storetest.SchemaURL(t)
	s := natstest.StartWith(t, func(o *server.Options) { o.Username, o.Password = "writer", "right-pw-5e0d" })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, _, stderr := cli(t, ctx, "run", "--database-url="+u, "--nats-url="+s.ClientURL(),
		"--nats-user=writer", "--nats-password=wrong-pw-a41c")
	if ctx.Err() != nil {
		t.Fatalf("still retrying after 30 s:\n%s", stderr)
	}
	if code == 0 || !strings.Contains(stderr, "Authorization Violation") || !strings.Contains(stderr, "refused 3 times") ||
		strings.Contains(stderr, "wrong-pw-a41c") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// A database that does not exist ends `results run` too, while a server
// that is down is still waited for.
func TestRunExitsOnMissingDatabase(t *testing.T) {
	isolate(t)
	u, err := url.Parse(storetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/tessera_no_such_database_29"
	natsURL, _ := natstest.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, _, stderr := cli(t, ctx, "run", "--database-url="+u.String(), "--nats-url="+natsURL)
	if ctx.Err() != nil {
		t.Fatalf("still retrying after 30 s:\n%s", stderr)
	}
	if code == 0 || !strings.Contains(stderr, "tessera_no_such_database_29") || !strings.Contains(stderr, "refused 3 times") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}
