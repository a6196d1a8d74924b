package main

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// Each command offers and validates only the keys it reads: `results
// --help` lists no --budget-nodes, --chunk-size or --tables-private, and
// a bad solver key does not stop `results dist`.
func TestCommandKeys(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, tc := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"--help"}, []string{"--database-url", "--nats-url", "--fetch-batch", "--metrics-addr"},
			[]string{"--budget-nodes", "--chunk-size", "--tables-private", "--workers", "--mode", "--http-addr"}},
		{[]string{"dist", "--help"}, []string{"--database-url", "--config"},
			[]string{"--nats-url", "--budget-nodes", "--chunk-size", "--tables-private", "--fetch-batch", "--http-addr"}},
		{[]string{"serve", "--help"}, []string{"--database-url", "--http-addr", "--http-token", "--generate", "--nats-url", "--chunk-size"},
			[]string{"--budget-nodes", "--fetch-batch", "--tables-dir"}},
		{[]string{"requeue", "--help"}, []string{"--database-url", "--nats-url", "--timeout", "--budget-nodes", "--chunk-size"},
			[]string{"--tables-private", "--workers", "--fetch-batch", "--http-addr"}},
		{[]string{"cancel", "--help"}, []string{"--database-url", "--nats-url"}, []string{"--timeout", "--workers", "--http-addr"}},
		{[]string{"dead", "--help"}, []string{"--database-url"}, []string{"--nats-url", "--workers"}},
	} {
		code, out, e := cli(t, ctx, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, e)
		}
		testenv.HelpOffers(t, tc.args, out, tc.want, tc.not)
	}

	// Another component's bad keys, from the environment and the config
	// file, do not stop a read-only command.
	t.Setenv("TESSERA_SOLVER_MODE", "bogus")
	t.Setenv("TESSERA_SOLVER_WORKERS", "-1")
	t.Setenv("TESSERA_PRODUCER_CHUNK_SIZE", "many")
	t.Setenv("TESSERA_RESULTS_HTTP_ADDR", "nowhere")
	db := "--database-url=" + storetest.SchemaURL(t)
	if code, _, e := cli(t, ctx, "migrate", db); code != 0 {
		t.Fatalf("migrate: %s", e)
	}
	if code, out, e := cli(t, ctx, "dist", "--puzzle", "8", db); code != 0 || !strings.Contains(out, "total") {
		t.Errorf("dist with bad solver keys: exit %d %q %s", code, out, e)
	}
	// Its own keys still are validated.
	if code, _, e := cli(t, ctx, "dist", "--puzzle", "8", "--database-url=mysql://x/y"); code != exitUsage || !strings.Contains(e, "database.url") {
		t.Errorf("dist with a bad database.url: exit %d %s", code, e)
	}
}
