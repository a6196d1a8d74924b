// Package storetest gives tests a real, private PostgreSQL schema: each
// call creates a fresh schema in the database of TEST_DATABASE_URL, points
// the connection's search_path at it and drops it when the test ends, so
// tests can run in parallel against one server without seeing each other.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tessera-solver/tessera/internal/redact"
	"github.com/tessera-solver/tessera/internal/store"
)

// DefaultURL is used when TEST_DATABASE_URL is not set.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// URL is the test server's URL. Under -short the test is skipped: short
// runs need no database.
func URL(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs PostgreSQL (skipped with -short)")
	}
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// SchemaURL creates an empty schema, dropped when t ends, and returns a
// URL whose connections use it as their only search_path (tern's reset
// all keeps it: it is a startup parameter).
func SchemaURL(t testing.TB) string {
	t.Helper()
	base := URL(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "tessera_test_" + hex.EncodeToString(b[:])

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to test PostgreSQL %s: %v\n(set TEST_DATABASE_URL, or run scripts/pg-local.sh and export its URL)", redact.URL(base), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return WithSearchPath(base, schema)
}

// WithSearchPath adds a search_path startup parameter to a URL or
// key=value connection string.
func WithSearchPath(conn, schema string) string {
	if strings.Contains(conn, "://") {
		if u, err := url.Parse(conn); err == nil {
			q := u.Query()
			q.Set("search_path", schema)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return strings.TrimSpace(conn) + " search_path=" + schema
}

// NewStore opens a Store on a fresh, migrated schema; it is closed and the
// schema dropped when t ends.
func NewStore(t testing.TB) *store.Store {
	t.Helper()
	s := Open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// Open is NewStore without migrating (for tests of migration itself).
func Open(t testing.TB) *store.Store {
	t.Helper()
	u := SchemaURL(t)
	s, err := store.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close) // runs before the schema is dropped
	return s
}
