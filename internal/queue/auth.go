package queue

import (
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/tessera-solver/tessera/internal/redact"
)

// Auth is how a client proves who it is to NATS and secures the
// connection: at most one of User+Password, Token, NKeyFile and CredsFile
// (config.Validate enforces it), and TLS files. Credentials inside the URL
// (nats://user:password@host, nats://token@host) still work and win over
// these. The zero value connects anonymously, with TLS only if the URL is
// tls:// or the server requires it (verified against the system roots).
type Auth struct {
	User     string
	Password string // secret
	Token    string // secret
	// NKeyFile holds an nkey seed (SU…); the server knows its public key
	// and sends a nonce the client signs.
	NKeyFile string
	// CredsFile is a decentralised-auth credentials file (a user JWT and its
	// nkey seed, as `nsc generate creds` writes it).
	CredsFile string
	// TLSCAFile verifies the server's certificate; setting it (or a client
	// certificate) turns TLS on.
	TLSCAFile string
	// TLSCertFile and TLSKeyFile are a client certificate, for servers
	// that verify clients (tls { verify: true }).
	TLSCertFile string
	TLSKeyFile  string
}

// options are nats.go's options for a.
func (a Auth) options() ([]nats.Option, error) {
	var opts []nats.Option
	if a.User != "" || a.Password != "" {
		opts = append(opts, nats.UserInfo(a.User, a.Password))
	}
	if a.Token != "" {
		opts = append(opts, nats.Token(a.Token))
	}
	if a.NKeyFile != "" {
		o, err := nats.NkeyOptionFromSeed(a.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("nkey seed file %s: %w", a.NKeyFile, err)
		}
		opts = append(opts, o)
	}
	if a.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(a.CredsFile))
	}
	if a.TLSCAFile != "" {
		opts = append(opts, nats.RootCAs(a.TLSCAFile))
	}
	if a.TLSCertFile != "" || a.TLSKeyFile != "" {
		opts = append(opts, nats.ClientCert(a.TLSCertFile, a.TLSKeyFile))
	}
	return opts, nil
}

// secrets are the values Connect masks in its errors: a's and those inside
// url.
func (a Auth) secrets(url string) []string {
	return append(redact.Secrets(url), a.Password, a.Token)
}

// Connect dials a NATS server by URL (one, or a comma-separated list) with
// auth and settings suited to a daemon: named connection, unlimited
// reconnects, pings that notice a frozen server within seconds (Watch's
// defaults), and no log. Its errors show the URL redacted and never a
// secret, even when nats.go quotes the raw URL (url.Parse errors do).
func Connect(url, name string, auth Auth) (*nats.Conn, error) {
	return ConnectWatched(url, name, auth, Watch{})
}

// ConnectWatched is Connect with w's ping settings, its log of connection
// events and its Link following the connection.
func ConnectWatched(url, name string, auth Auth, w Watch) (*nats.Conn, error) {
	opts, err := auth.options()
	if err == nil {
		h := w.handlers(auth.secrets(url))
		opts = append(opts, nats.Name(name))
		opts = append(opts, w.options(h)...)
		var nc *nats.Conn
		if nc, err = nats.Connect(url, opts...); err == nil {
			h.made(nc)
			return nc, nil
		}
	}
	return nil, redact.Error(fmt.Errorf("connect to NATS at %s: %w", redact.URL(url), err), auth.secrets(url)...)
}
