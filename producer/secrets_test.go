package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// The producer's outputs — help, config and URL errors, NATS
// failures, a normal enqueue, --local — are free of the database
// password and the NATS password and token. (The shared test server
// trusts every connection: the database password is sent and ignored.)
func TestNoSecretsInOutput(t *testing.T) {
	testenv.ClearConfigEnv(t)
	dbpw, pw, tok := testenv.DBPassword, testenv.NATSPassword, testenv.NATSToken
	p, err := url.Parse(storetest.SchemaURL(t))
	if err != nil {
		t.Fatal(err)
	}
	p.User = url.UserPassword(p.User.Username(), dbpw)
	good := p.String()
	users := natstest.StartWith(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "alice", Password: pw}}
	})
	tokens := natstest.StartWith(t, func(o *server.Options) { o.Authorization = tok })
	secretEnv := map[string]string{"TESSERA_NATS_PASSWORD": pw, "TESSERA_NATS_USER": "alice",
		"TESSERA_DATABASE_URL": good, "TESSERA_DATABASE_PASSWORD": dbpw}
	job := []string{"-q", "--puzzle", "8", "--random", "5", "--seed", "1"}

	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"help", secretEnv, []string{"--help", "--nats-password=" + pw}, exitOK, "--nats-password"},
		{"wrong scheme", nil, append(job, "--database-url=mysql://root:"+dbpw+"@db/x"), exitUsage, "database.url:"},
		{"unparsable URL", nil, append(job, "--database-url=postgres://root:"+dbpw+"@db:1:2/%zz"), exitUsage, "database.url:"},
		{"bad NATS URL", nil, append(job, "--nats-url=tls://"+tok+"@h:port/%zz"), exitUsage, "nats.url:"},
		{"NATS down", nil, append(job, "--database-url="+good, "--nats-url=nats://alice:"+pw+"@127.0.0.1:1"), exitError, "alice:xxxxx@"},
		{"wrong token", nil, append(job, "--database-url="+good, "--nats-url="+tokens.ClientURL(), "--nats-token="+tok+"x"), exitError, "Authorization Violation"},
		{"enqueue", secretEnv, append(job, "--nats-url="+users.ClientURL()), exitOK, "batch "},
		{"local", map[string]string{"TESSERA_DATABASE_PASSWORD": dbpw}, append(job, "--local", "--wait", "--database-url="+good), exitOK, "batch "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testenv.ClearConfigEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, o, e := runProducer(t, tc.args...)
			if code != tc.code || !strings.Contains(o+e, tc.want) {
				t.Errorf("exit %d (want %d), output lacks %q?\n%s%s", code, tc.code, tc.want, o, e)
			}
			testenv.NoSecrets(t, "stdout", o)
			testenv.NoSecrets(t, "stderr", e)
		})
	}
}
