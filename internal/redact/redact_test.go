package redact

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"nats://alice:s3cret@nats:4222", "nats://alice:xxxxx@nats:4222"},
		{"nats://tok3n@nats:4222", "nats://xxxxx@nats:4222"},
		{"tls://a:b@h1:4222, nats://c:d@h2:4222,h3:4222", "tls://a:xxxxx@h1:4222, nats://c:xxxxx@h2:4222,h3:4222"},
		{"alice:s3cret@h:4222", "alice:xxxxx@h:4222"},
		{"postgres://bob:pw@db:5432/t?sslmode=verify-full", "postgres://bob:xxxxx@db:5432/t?sslmode=verify-full"},
		{"postgres://bob@db/t", "postgres://bob@db/t"},
		{"postgresql://db/t?user=bob&password=pw&sslpassword=kp", "postgresql://db/t?user=bob&password=xxxxx&sslpassword=xxxxx"},
		{"postgres://u:p@h1:5432,h2:5432/db", "postgres://u:xxxxx@h1:5432,h2:5432/db"},
		// Broken URLs, where url.Parse would quote the raw text.
		{"nats://u:pa/ss@h:port", "nats://u:xxxxx@h:port"},
		{"nats://u:p,w@h", "nats://u:xxxxx@h"},
		{"nats://u:p@w@h", "nats://u:xxxxx@h"},
		{"mysql://root:pw@db%zz/x", "mysql://root:xxxxx@db%zz/x"},
		{"postgres://u:pw@h:5432:1/db", "postgres://u:xxxxx@h:5432:1/db"},
		// libpq keyword/value.
		{"host=db user=bob password=p@ss dbname=t", "host=db user=bob password=xxxxx dbname=t"},
		{"host=db password='a b c' sslmode=require", "host=db password=xxxxx sslmode=require"},
		{"host=db PASSWORD = x", "host=db PASSWORD = xxxxx"},
		{"", ""},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSecrets(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"nats://h:4222", nil},
		{"nats://alice:s%40cret@h", []string{"s%40cret", "s@cret"}},
		{"nats://tok@h,nats://u:p@h2", []string{"tok", "p"}},
		{"postgres://bob@db/t?password=pw", []string{"pw"}},
		{"host=db password='a b'", []string{"a b"}},
	} {
		got := Secrets(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Secrets(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTextAndError(t *testing.T) {
	if got := Text("user pw and pwlong", "pw", "pwlong", ""); got != "user xxxxx and xxxxx" {
		t.Errorf("Text = %q", got)
	}
	if got := Text("nothing", ""); got != "nothing" {
		t.Errorf("Text with no secrets = %q", got)
	}
	base := &fs.PathError{Op: "open", Path: "/run/s3cret", Err: fs.ErrNotExist}
	err := Error(base, "s3cret")
	if err.Error() != "open /run/xxxxx: file does not exist" {
		t.Errorf("Error = %q", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("redacted error lost its chain")
	}
	if Error(nil, "x") != nil {
		t.Error("Error(nil) != nil")
	}
	if Error(base, "absent") != error(base) {
		t.Error("an error without secrets should come back as is")
	}
}
