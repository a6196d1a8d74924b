package store_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// database.url may list several hosts (a primary and its standbys) with
// target_session_attrs=read-write: a host that is down is passed over and
// the writable one is used.
func TestMultiHostURL(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(storetest.SchemaURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "127.0.0.1:1," + u.Host // a closed port first: a primary that died
	q := u.Query()
	q.Set("target_session_attrs", "read-write")
	q.Set("connect_timeout", "5")
	u.RawQuery = q.Encode()
	st, err := store.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := ctxT(t)
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate through %s: %v", u.Redacted(), err)
	}
	id, err := st.CreateBatch(ctx, "8", "optimal", 2)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.InsertResults(ctx, []job.Results{res(id, 0, 1, 2)}); err != nil || n != 2 {
		t.Fatalf("insert through the second host: %d, %v", n, err)
	}
}

// No host of a multi-host URL answering: the error names the hosts, never
// the password.
func TestMultiHostURLErrorRedacted(t *testing.T) {
	t.Parallel()
	st, err := store.Open(context.Background(),
		"postgres://tessera:s3cr%40t@127.0.0.1:1,127.0.0.1:2/x?sslmode=disable&target_session_attrs=read-write&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Ping(ctxT(t))
	if err == nil {
		t.Fatal("ping of two closed ports succeeded")
	}
	if msg := err.Error(); strings.Contains(msg, "s3cr") || !strings.Contains(msg, "127.0.0.1:2") {
		t.Errorf("error %q: want both hosts named and no password", msg)
	}
	if err := st.Ready(ctxT(t)); err == nil || strings.Contains(err.Error(), "s3cr") {
		t.Errorf("Ready: %v", err)
	}
}
