package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// leakCase is one way to start a command with secrets in its environment
// and arguments.
type leakCase struct {
	name  string
	env   map[string]string
	args  []string
	until string // run until stderr shows this, then cancel ("": until it exits)
	want  string // stderr must show this (proves the path was taken)
}

// lockedBuffer is testenv.SyncBuffer under the name the table-watch tests
// use.
type lockedBuffer = testenv.SyncBuffer

func runLeakCase(t *testing.T, tc leakCase) (stdout, stderr string) {
	t.Helper()
	for k, v := range tc.env {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var o, e testenv.SyncBuffer
	done := make(chan int, 1)
	go func() { done <- runContext(ctx, tc.args, strings.NewReader(""), &o, &e) }()
	if tc.until != "" {
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(e.String(), tc.until) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: no %q after 20s:\n%s", tc.name, tc.until, e.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: did not stop:\n%s", tc.name, e.String())
	}
	if tc.want != "" && !strings.Contains(e.String()+o.String(), tc.want) {
		t.Errorf("%s: output lacks %q:\n%s%s", tc.name, tc.want, o.String(), e.String())
	}
	return o.String(), e.String()
}

// Every output of solverd — help, config errors, connection
// errors, retry warnings, the startup line — is free of the NATS password
// and token, however they were given (URL, variable, flag).
func TestNoSecretsInOutput(t *testing.T) {
	testenv.ClearConfigEnv(t)
	pw, tok := testenv.NATSPassword, testenv.NATSToken
	users := natstest.StartWith(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "alice", Password: pw}}
	})
	tokens := natstest.StartWith(t, func(o *server.Options) { o.Authorization = tok })
	userinfo := func(u, info string) string { return strings.Replace(u, "nats://", "nats://"+info+"@", 1) }
	dead := "127.0.0.1:1" // nothing listens there
	secretEnv := map[string]string{"TESSERA_NATS_PASSWORD": pw, "TESSERA_NATS_TOKEN": tok,
		"TESSERA_NATS_USER": "alice", "TESSERA_NATS_URL": "nats://alice:" + pw + "@" + dead,
		"TESSERA_DATABASE_PASSWORD": testenv.DBPassword, "TESSERA_RESULTS_HTTP_TOKEN": testenv.HTTPToken}

	cases := []leakCase{
		{name: "help", env: secretEnv, args: []string{"--help"}},
		{name: "run --help", env: secretEnv, args: []string{"run", "--help", "--nats-password=" + pw, "--nats-token=" + tok}, want: "--nats-password"},
		{name: "tables push --help", env: secretEnv, args: []string{"tables", "push", "--help"}},
		{name: "conflicting auth", env: secretEnv, args: []string{"run"}, want: "nats.token: conflicts with nats.user"},
		{name: "wrong scheme", args: []string{"run", "--nats-url=http://alice:" + pw + "@h:4222"}, want: "nats.url:"},
		{name: "unparsable URL", args: []string{"run", "--nats-url=nats://alice:" + pw + "@h:port/%zz"}, want: "nats.url:"},
		{name: "unparsable token URL", args: []string{"run", "--nats-url=nats://" + tok + "@h:port/%zz"}, want: "nats.url:"},
		{name: "unreachable, password in URL", args: []string{"run", "--nats-url=nats://alice:" + pw + "@" + dead, "--tables-bucket=b"},
			until: "NATS not reachable", want: "cannot reach the table bucket"},
		{name: "unreachable, token in URL", args: []string{"run", "--nats-url=nats://" + tok + "@" + dead}, until: "NATS not reachable"},
		{name: "unreachable, bare host", args: []string{"run", "--nats-url=alice:" + pw + "@" + dead}, until: "NATS not reachable"},
		{name: "wrong password", env: map[string]string{"TESSERA_NATS_USER": "alice", "TESSERA_NATS_PASSWORD": pw + "-wrong"},
			args: []string{"run", "--nats-url=" + users.ClientURL()}, until: "NATS not reachable", want: "Authorization Violation"},
		{name: "wrong token flag", args: []string{"run", "--nats-url=" + tokens.ClientURL(), "--nats-token=" + tok + "-wrong"},
			until: "NATS not reachable", want: "Authorization Violation"},
		{name: "user and password keys", env: map[string]string{"TESSERA_NATS_USER": "alice", "TESSERA_NATS_PASSWORD": pw},
			args: []string{"run", "--nats-url=" + users.ClientURL()}, until: "solving jobs"},
		{name: "password in URL", args: []string{"run", "--nats-url=" + userinfo(users.ClientURL(), "alice:"+pw)}, until: "solving jobs", want: "alice:xxxxx@"},
		{name: "token in URL", args: []string{"run", "--nats-url=" + userinfo(tokens.ClientURL(), tok)}, until: "solving jobs", want: "xxxxx@"},
		{name: "run --help, metrics token", env: map[string]string{"TESSERA_SOLVER_METRICS_TOKEN": testenv.HTTPToken},
			args: []string{"run", "--help", "--metrics-token=" + testenv.HTTPToken}, want: "--metrics-token"},
		{name: "metrics token key", env: map[string]string{"TESSERA_SOLVER_METRICS_TOKEN": testenv.HTTPToken},
			args: []string{"run", "--nats-url=" + tokens.ClientURL(), "--nats-token=" + tok, "--metrics-addr=127.0.0.1:0"}, until: "solving jobs", want: `auth="bearer token"`},
		{name: "metrics token flag, bad address", args: []string{"run", "--nats-url=" + tokens.ClientURL(), "--nats-token=" + tok,
			"--metrics-token=" + testenv.HTTPToken, "--metrics-addr=127.0.0.1:99999"}, until: "solving jobs", want: "no /metrics"},
		{name: "token key", env: map[string]string{"TESSERA_NATS_TOKEN": tok}, args: []string{"run", "--nats-url=" + tokens.ClientURL()}, until: "solving jobs"},
		{name: "tables push, unreachable", args: []string{"tables", "push", "--nats-url=nats://alice:" + pw + "@" + dead}, want: "connect to NATS"},
		{name: "tables pull, wrong token", args: []string{"tables", "pull", "--nats-url=" + userinfo(tokens.ClientURL(), tok+"x")}, want: "Authorization Violation"},
		{name: "queue status --help", env: secretEnv, args: []string{"queue", "status", "--help", "--nats-password=" + pw}, want: "--json"},
		{name: "queue status, unreachable", args: []string{"queue", "status", "--nats-url=nats://alice:" + pw + "@" + dead}, want: "connect to NATS"},
		{name: "queue status, wrong token", args: []string{"queue", "status", "--json", "--nats-url=" + userinfo(tokens.ClientURL(), tok+"x")}, want: "Authorization Violation"},
		{name: "queue status, token key", env: map[string]string{"TESSERA_NATS_TOKEN": tok}, args: []string{"queue", "status", "--nats-url=" + tokens.ClientURL()}, want: "server: a single NATS server"},
		{name: "queue status --json, password in URL", args: []string{"queue", "status", "--json", "--nats-url=" + userinfo(users.ClientURL(), "alice:"+pw)}, want: `"streams"`},
		{name: "config show", env: map[string]string{"TESSERA_NATS_USER": "alice", "TESSERA_NATS_PASSWORD": pw, "TESSERA_DATABASE_PASSWORD": testenv.DBPassword,
			"TESSERA_RESULTS_HTTP_TOKEN": testenv.HTTPToken}, args: []string{"config", "show", "--metrics-token=" + testenv.HTTPToken}, want: "env TESSERA_NATS_PASSWORD"},
		{name: "config show --json, password in URL", args: []string{"config", "show", "--json", "--nats-url=nats://alice:" + pw + "@" + dead}, want: `"flag --nats-url"`},
		// Every URL is asked which server answers there; the one that
		// does not is named, its password masked; so is a monitoring
		// endpoint's.
		{name: "queue status --check, a listed URL and a monitoring endpoint down", args: []string{"queue", "status", "--check",
			"--nats-url=" + userinfo(users.ClientURL(), "alice:"+pw) + ",nats://alice:" + pw + "@" + dead,
			"--monitor-url=http://bob:" + pw + "@" + dead}, want: "server at nats://" + dead + " did not answer"},
		{name: "queue status, token and a URL down", args: []string{"queue", "status", "--json",
			"--nats-url=" + userinfo(tokens.ClientURL(), tok) + ",nats://" + tok + "@" + dead, "--monitor-url=http://" + dead}, want: `"error"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testenv.ClearConfigEnv(t)
			o, e := runLeakCase(t, tc)
			testenv.NoSecrets(t, tc.name+" stdout", o)
			testenv.NoSecrets(t, tc.name+" stderr", e)
		})
	}
}
