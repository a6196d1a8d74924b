package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// withPassword puts password into a PostgreSQL URL. The shared test
// server trusts every connection, so it is sent and ignored: what is
// tested here is that it is never printed (internal/store tests that it
// is checked, against a private server).
func withPassword(t *testing.T, u, password string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p.User = url.UserPassword(p.User.Username(), password)
	return p.String()
}

// writerSecret is a results.http_writer_tokens token.
const writerSecret = "wrTOK-9f3k2m7q1x8z"

// Every output of results — help, config and URL errors,
// PostgreSQL and NATS failures, retry warnings, the startup lines of run
// and serve — is free of the database password, the NATS password and
// token, the HTTP token and the writer tokens.
func TestNoSecretsInOutput(t *testing.T) {
	isolate(t)
	dbpw, pw, tok := testenv.DBPassword, testenv.NATSPassword, testenv.NATSToken
	good := withPassword(t, storetest.SchemaURL(t), dbpw)
	deadDB := "postgres://postgres:" + dbpw + "@127.0.0.1:1/x?sslmode=disable&connect_timeout=1"
	users := natstest.StartWith(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "alice", Password: pw}}
	})
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte(dbpw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secretEnv := map[string]string{"TESSERA_NATS_PASSWORD": pw, "TESSERA_NATS_USER": "alice",
		"TESSERA_DATABASE_URL": deadDB, "TESSERA_RESULTS_HTTP_TOKEN": testenv.HTTPToken}

	for _, tc := range []struct {
		name  string
		env   map[string]string
		args  []string
		until string // run until stderr shows this, then cancel ("": until it exits)
		want  string
	}{
		{name: "help", env: secretEnv, args: []string{"--help"}},
		{name: "serve --help", env: secretEnv, args: []string{"serve", "--help", "--http-token=" + testenv.HTTPToken}, want: "--http-token"},
		{name: "wrong scheme", args: []string{"migrate", "--database-url=mysql://root:" + dbpw + "@db/x"}, want: "database.url:"},
		{name: "unparsable URL", args: []string{"migrate", "--database-url=postgres://root:" + dbpw + "@db:5432:1/x%zz"}, want: "database.url:"},
		{name: "bad port", args: []string{"migrate", "--database-url=postgres://root:" + dbpw + "@db:notaport/x"}, want: "database"},
		{name: "keyword/value syntax error", args: []string{"migrate", "--database-url=host=db password=" + dbpw + " port=x"}, want: "open database"},
		{name: "quoted keyword/value", args: []string{"batches", "--database-url=host=db password='" + dbpw + "' sslmode=bogus"}, want: "open database"},
		{name: "unreachable", args: []string{"migrate", "--database-url=" + deadDB}, want: "connect"},
		{name: "password variable", env: map[string]string{"TESSERA_DATABASE_PASSWORD": dbpw},
			args: []string{"dist", "--batch=1", "--database-url=postgres://postgres@127.0.0.1:1/x?connect_timeout=1"}, want: "connect"},
		{name: "password file", env: map[string]string{"TESSERA_DATABASE_PASSWORD_FILE": pwFile},
			args: []string{"export", "--batch=1", "--database-url=postgres://postgres@127.0.0.1:1/x?connect_timeout=1"}, want: "connect"},
		{name: "password and file", env: map[string]string{"TESSERA_DATABASE_PASSWORD_FILE": pwFile, "TESSERA_DATABASE_PASSWORD": dbpw},
			args: []string{"migrate"}, want: "database.password_file: conflicts"},
		{name: "run, PostgreSQL down", env: secretEnv, args: []string{"run"}, until: "migrate PostgreSQL failed; retrying"},
		{name: "run, NATS down", args: []string{"run", "--database-url=" + good, "--nats-url=nats://alice:" + pw + "@127.0.0.1:1"},
			until: "connect to NATS failed; retrying", want: "alice:xxxxx@"},
		{name: "run, NATS token down", args: []string{"run", "--database-url=" + good, "--nats-url=nats://" + tok + "@127.0.0.1:1"},
			until: "connect to NATS failed; retrying"},
		{name: "run, wrong NATS password", env: map[string]string{"TESSERA_NATS_USER": "alice", "TESSERA_NATS_PASSWORD": pw + "x"},
			args: []string{"run", "--database-url=" + good, "--nats-url=" + users.ClientURL()}, until: "connect to NATS failed; retrying", want: "Authorization Violation"},
		{name: "run, started", env: map[string]string{"TESSERA_NATS_USER": "alice", "TESSERA_NATS_PASSWORD": pw, "TESSERA_DATABASE_PASSWORD": dbpw},
			args: []string{"run", "--database-url=" + good, "--nats-url=" + users.ClientURL()}, until: "consuming results"},
		{name: "run, started with URLs", args: []string{"run", "--database-url=" + good,
			"--nats-url=" + strings.Replace(users.ClientURL(), "nats://", "nats://alice:"+pw+"@", 1)}, until: "consuming results"},
		{name: "serve with token, PostgreSQL down", env: secretEnv, args: []string{"serve", "--http-addr=127.0.0.1:0"}, until: "migrate PostgreSQL failed; retrying", want: "bearer token"},
		{name: "serve with token", env: map[string]string{"TESSERA_RESULTS_HTTP_TOKEN": testenv.HTTPToken},
			args: []string{"serve", "--http-addr=127.0.0.1:0", "--database-url=" + good}, until: "schema up to date"},
		{name: "serve, bad address", env: secretEnv, args: []string{"serve", "--http-addr=127.0.0.1:99999"}, want: "serve:"},
		{name: "serve with writer tokens", env: map[string]string{"TESSERA_RESULTS_HTTP_TOKEN": testenv.HTTPToken, "TESSERA_RESULTS_HTTP_WRITER_TOKENS": "backend=" + writerSecret},
			args: []string{"serve", "--http-addr=127.0.0.1:0", "--database-url=" + good}, until: "schema up to date", want: "writers=1"},
		{name: "serve, writer token too short", env: map[string]string{"TESSERA_RESULTS_HTTP_WRITER_TOKENS": "backend=" + writerSecret[:10]},
			args: []string{"serve", "--http-addr=127.0.0.1:0", "--database-url=" + good}, want: "entry 1 (backend): token shorter"},
		{name: "serve, writer tokens flag", args: []string{"serve", "--help", "--http-writer-tokens=backend=" + writerSecret}, want: "--http-writer-tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o, e := &testenv.SyncBuffer{}, &testenv.SyncBuffer{}
			done := make(chan int, 1)
			go func() { done <- run(ctx, tc.args, o, e) }()
			if tc.until != "" {
				deadline := time.Now().Add(20 * time.Second)
				for !strings.Contains(e.String(), tc.until) {
					if time.Now().After(deadline) {
						t.Fatalf("no %q after 20s:\n%s", tc.until, e.String())
					}
					time.Sleep(10 * time.Millisecond)
				}
				cancel()
			}
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("did not stop:\n%s", e.String())
			}
			if tc.want != "" && !strings.Contains(o.String()+e.String(), tc.want) {
				t.Errorf("output lacks %q:\n%s%s", tc.want, o.String(), e.String())
			}
			testenv.NoSecrets(t, "stdout", o.String())
			testenv.NoSecrets(t, "stderr", e.String())
			if strings.Contains(o.String()+e.String(), writerSecret[:10]) {
				t.Errorf("output shows the writer token:\n%s%s", o.String(), e.String())
			}
		})
	}
}
