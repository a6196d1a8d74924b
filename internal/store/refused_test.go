package store_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// Refused tells a database that does not exist (which `results run` must
// not retry for ever) from a server that is down.
func TestRefused(t *testing.T) {
	u, err := url.Parse(storetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ping := func(raw string) error {
		st, err := store.Open(ctx, raw)
		if err != nil {
			return err
		}
		defer st.Close()
		return st.Ping(ctx)
	}
	missing := *u
	missing.Path = "/tessera_no_such_database_29"
	if err := ping(missing.String()); err == nil || !store.Refused(err) {
		t.Errorf("a missing database: Refused(%v) = false", err)
	}
	down := *u
	down.Host = "127.0.0.1:1"
	if err := ping(down.String()); err == nil || store.Refused(err) {
		t.Errorf("a server that is down: Refused(%v) = true", err)
	}
}
