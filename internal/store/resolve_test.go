package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/store"
)

// A binary does not use whatever PostgreSQL answers on 127.0.0.1:5432
// without a word: ResolveURLSaying names the server it found, and how to
// choose another, only when nobody named one.
func TestResolveURLSaying(t *testing.T) {
	ctx := context.Background()
	var said []string
	say := func(s string) { said = append(said, s) }

	t.Setenv("DATABASE_URL", "")
	if u, err := store.ResolveURLSaying(ctx, "postgres://x@db.example:5432/y", say); err != nil || u != "postgres://x@db.example:5432/y" || len(said) != 0 {
		t.Errorf("a configured URL: %q, %v, said %q", u, err, said)
	}
	t.Setenv("DATABASE_URL", "postgres://z@db.example/w")
	if _, err := store.ResolveURLSaying(ctx, "", say); err != nil || len(said) != 0 {
		t.Errorf("$DATABASE_URL: %v, said %q", err, said)
	}
	t.Setenv("DATABASE_URL", "")
	u, err := store.ResolveURLSaying(ctx, "", say)
	switch {
	case errors.Is(err, store.ErrNoDatabase):
		if len(said) != 0 {
			t.Errorf("no server, yet said %q", said)
		}
	case err != nil:
		t.Fatal(err)
	case len(said) != 1 || !strings.Contains(said[0], "127.0.0.1:") || !strings.Contains(said[0], "TESSERA_DATABASE_URL"):
		t.Errorf("probed %s and said %q", u, said)
	}
	if n := store.ProbedNotice(store.LocalURLs[0]); !strings.Contains(n, "database tessera on the PostgreSQL at 127.0.0.1:5432") {
		t.Errorf("notice %q", n)
	}
}

// The notice names the host and database, never a password, even for a
// URL it cannot parse.
func TestProbedNoticeShowsNoPassword(t *testing.T) {
	for _, u := range []string{"postgres://u:pw-s3cret@127.0.0.1:5432/db", "postgres://u:pw-s3cret@127.0.0.1:port/db"} {
		if n := store.ProbedNotice(u); strings.Contains(n, "pw-s3cret") {
			t.Errorf("notice for %q shows the password: %s", u, n)
		}
	}
}
