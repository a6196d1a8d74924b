package config

import (
	"errors"
	"strings"
	"testing"
)

// Passwords need not travel as plain variables: a
// secret key reads from the file its *_FILE variable names (a Docker
// secret), and a secret given twice, or an unreadable file, is refused
// without showing the secret.
func TestSecretFiles(t *testing.T) {
	const pw, tok = "nats-pw-7f3a", "http-tok-c91e"
	clearEnv(t)
	t.Setenv("TESSERA_NATS_USER", "tessera")
	t.Setenv("TESSERA_NATS_PASSWORD_FILE", writeFile(t, "nats_password", pw+"\n"))
	t.Setenv("TESSERA_RESULTS_HTTP_TOKEN_FILE", writeFile(t, "http_token", tok))
	c, err := Load("", flags(t))
	if err != nil {
		t.Fatal(err)
	}
	if c.NATS.Password != pw || c.Results.HTTPToken != tok {
		t.Errorf("password %q token %q", c.NATS.Password, c.Results.HTTPToken)
	}

	t.Setenv("TESSERA_NATS_PASSWORD", "other-"+pw)
	_, err = Load("", flags(t))
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != "nats.password" || strings.Contains(err.Error(), pw) {
		t.Errorf("password given twice: %v", err)
	}
	t.Setenv("TESSERA_NATS_PASSWORD", "")
	if _, err := Load("", flags(t, "--nats-password", "x")); !errors.As(err, &ke) || ke.Key != "nats.password" {
		t.Errorf("file and flag: %v", err)
	}

	t.Setenv("TESSERA_NATS_PASSWORD_FILE", "/nonexistent/nats_password")
	if _, err := Load("", flags(t)); !errors.As(err, &ke) || !strings.Contains(err.Error(), "/nonexistent/nats_password") {
		t.Errorf("missing file: %v", err)
	}

	// A command that does not read NATS keys does not read the file.
	if _, err := Uses("results.fetch_batch").Load(flags(t)); err != nil {
		t.Errorf("a command without nats keys: %v", err)
	}
}
