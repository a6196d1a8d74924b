package queue_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/testcert"
)

// Secret values of these tests: none may appear in an error.
const (
	testPassword = "pw-6d0c8e1f"
	testToken    = "tok-a94b27e3"
)

// connectOK connects with auth, proves the connection works with a
// JetStream round trip (or a flush when the server has no JetStream) and
// closes it.
func connectOK(t *testing.T, url string, auth queue.Auth, jetStream bool) {
	t.Helper()
	nc, err := queue.Connect(url, t.Name(), auth)
	if err != nil {
		t.Fatalf("connect %+v: %v", redacted(auth), err)
	}
	defer nc.Close()
	if !jetStream {
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		return
	}
	streamsOn(t, nc, queue.DefaultConfig()) // over the authenticated connection
}

// connectFails wants Connect refused, with an error naming the server
// but no secret.
func connectFails(t *testing.T, url string, auth queue.Auth) {
	t.Helper()
	nc, err := queue.Connect(url, t.Name(), auth)
	if err == nil {
		nc.Close()
		t.Fatalf("connect %+v succeeded, want refused", redacted(auth))
	}
	for _, s := range []string{testPassword, testToken} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error shows a secret: %v", err)
		}
	}
	if !strings.Contains(err.Error(), "connect to NATS at") {
		t.Errorf("error does not say what failed: %v", err)
	}
}

func redacted(a queue.Auth) queue.Auth {
	a.Password, a.Token = "", ""
	return a
}

// withUserinfo puts userinfo into a nats:// client URL.
func withUserinfo(clientURL, info string) string {
	return strings.Replace(clientURL, "nats://", "nats://"+info+"@", 1)
}

func TestAuthUserPassword(t *testing.T) {
	s := natstest.StartWith(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "alice", Password: testPassword}}
	})
	u := s.ClientURL()
	connectOK(t, u, queue.Auth{User: "alice", Password: testPassword}, true)
	connectOK(t, withUserinfo(u, "alice:"+testPassword), queue.Auth{}, false)
	connectFails(t, u, queue.Auth{})
	connectFails(t, u, queue.Auth{User: "alice", Password: testPassword + "x"})
	connectFails(t, withUserinfo(u, "alice:"+testPassword+"x"), queue.Auth{})
}

func TestAuthToken(t *testing.T) {
	s := natstest.StartWith(t, func(o *server.Options) { o.Authorization = testToken })
	u := s.ClientURL()
	connectOK(t, u, queue.Auth{Token: testToken}, true)
	connectOK(t, withUserinfo(u, testToken), queue.Auth{}, false)
	connectFails(t, u, queue.Auth{})
	connectFails(t, u, queue.Auth{Token: testToken + "x"})
	connectFails(t, withUserinfo(u, testToken+"x"), queue.Auth{})
}

func TestAuthNKey(t *testing.T) {
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	seedFile := filepath.Join(t.TempDir(), "user.nk")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	s := natstest.StartWith(t, func(o *server.Options) { o.Nkeys = []*server.NkeyUser{{Nkey: pub}} })
	connectOK(t, s.ClientURL(), queue.Auth{NKeyFile: seedFile}, true)
	connectFails(t, s.ClientURL(), queue.Auth{})

	other, _ := nkeys.CreateUser()
	otherSeed, _ := other.Seed()
	otherFile := filepath.Join(t.TempDir(), "other.nk")
	if err := os.WriteFile(otherFile, otherSeed, 0o600); err != nil {
		t.Fatal(err)
	}
	connectFails(t, s.ClientURL(), queue.Auth{NKeyFile: otherFile})
	connectFails(t, s.ClientURL(), queue.Auth{NKeyFile: seedFile + ".missing"})
	if _, err := queue.Connect(s.ClientURL(), t.Name(), queue.Auth{NKeyFile: otherFile}); err != nil && strings.Contains(err.Error(), string(otherSeed)) {
		t.Errorf("error shows the seed: %v", err)
	}
}

// A creds file (decentralised JWT auth): the server trusts an operator,
// the operator signs an account, the account signs the user whose JWT and
// seed make the creds file.
func TestAuthCredsFile(t *testing.T) {
	op, _ := nkeys.CreateOperator()
	opPub, _ := op.PublicKey()
	opClaims := jwt.NewOperatorClaims(opPub)
	opJWT, err := opClaims.Encode(op)
	if err != nil {
		t.Fatal(err)
	}
	opClaims, err = jwt.DecodeOperatorClaims(opJWT)
	if err != nil {
		t.Fatal(err)
	}
	acc, _ := nkeys.CreateAccount()
	accPub, _ := acc.PublicKey()
	accJWT, err := jwt.NewAccountClaims(accPub).Encode(op)
	if err != nil {
		t.Fatal(err)
	}
	user, _ := nkeys.CreateUser()
	userPub, _ := user.PublicKey()
	userSeed, _ := user.Seed()
	userJWT, err := jwt.NewUserClaims(userPub).Encode(acc)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := jwt.FormatUserConfig(userJWT, userSeed)
	if err != nil {
		t.Fatal(err)
	}
	credsFile := filepath.Join(t.TempDir(), "user.creds")
	if err := os.WriteFile(credsFile, creds, 0o600); err != nil {
		t.Fatal(err)
	}

	resolver := &server.MemAccResolver{}
	if err := resolver.Store(accPub, accJWT); err != nil {
		t.Fatal(err)
	}
	s := natstest.StartWith(t, func(o *server.Options) {
		o.JetStream = false // an operator's accounts get JetStream only by their JWT's limits
		o.TrustedOperators = []*jwt.OperatorClaims{opClaims}
		o.AccountResolver = resolver
	})
	connectOK(t, s.ClientURL(), queue.Auth{CredsFile: credsFile}, false)
	connectFails(t, s.ClientURL(), queue.Auth{})
	connectFails(t, s.ClientURL(), queue.Auth{CredsFile: credsFile + ".missing"})
}

// TLS with a private CA and client certificates the server verifies.
func TestAuthTLSClientCert(t *testing.T) {
	f := testcert.Write(t, t.TempDir())
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{
		CertFile: f.ServerCert, KeyFile: f.ServerKey, CaFile: f.CA, Verify: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := natstest.StartWith(t, func(o *server.Options) {
		o.TLS, o.TLSVerify, o.TLSConfig, o.TLSTimeout = true, true, tc, 5
	})
	u := strings.Replace(s.ClientURL(), "nats://", "tls://", 1)
	connectOK(t, u, queue.Auth{TLSCAFile: f.CA, TLSCertFile: f.ClientCert, TLSKeyFile: f.ClientKey}, true)
	// Plain nats:// works too: the client upgrades when the server asks.
	connectOK(t, s.ClientURL(), queue.Auth{TLSCAFile: f.CA, TLSCertFile: f.ClientCert, TLSKeyFile: f.ClientKey}, false)
	connectFails(t, u, queue.Auth{TLSCAFile: f.CA})                                              // no client certificate
	connectFails(t, u, queue.Auth{TLSCertFile: f.ClientCert, TLSKeyFile: f.ClientKey})           // server not trusted
	connectFails(t, u, queue.Auth{TLSCAFile: f.CA, TLSCertFile: f.ClientCert, TLSKeyFile: f.CA}) // not a key
}

// An unparsable URL: nats.go's error quotes it raw, Connect's must not.
func TestConnectErrorRedacted(t *testing.T) {
	for _, u := range []string{
		"nats://alice:" + testPassword + "@127.0.0.1:notaport",
		"alice:" + testPassword + "@127.0.0.1:1",
		"nats://" + testToken + "@127.0.0.1:1",
		"nats://127.0.0.1:1",
	} {
		connectFails(t, u, queue.Auth{User: "alice", Password: testPassword})
		connectFails(t, u, queue.Auth{Token: testToken})
	}
}
