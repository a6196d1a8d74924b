package store_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/testcert"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// pgBin finds initdb and pg_ctl: PATH first, then Debian's versioned
// directories (as scripts/pg-local.sh does).
func pgBin(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	t.Skip("initdb/pg_ctl not found: install PostgreSQL to test password and TLS connections")
	return ""
}

// privateTLSServer starts a PostgreSQL of its own for t, stopped in
// t.Cleanup: scram-sha-256 passwords, TLS only (hostnossl is rejected) with
// a certificate from a throwaway CA. It returns its port, the superuser
// postgres's password and the certificate files.
//
// The shared test server trusts everyone, so it proves only that a
// password is passed along; this one proves it is checked, over TLS.
func privateTLSServer(t *testing.T) (port int, password string, certs testcert.Files) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a PostgreSQL server (skipped with -short)")
	}
	bin := pgBin(t)
	dir, err := os.MkdirTemp("", "tessera-pgtls-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// initdb and postgres refuse to run as root: run them as postgres,
	// who must own the directory.
	var asOwner func(name string, args ...string) *exec.Cmd
	if os.Getuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			t.Skip("running as root without a postgres user to run the server as")
		}
		asOwner = func(name string, args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
		}
	} else {
		asOwner = exec.Command
	}

	password = "pg-pw-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	certs = testcert.Write(t, filepath.Join(dir, "certs"))
	data := filepath.Join(dir, "data")
	run := func(what string, cmd *exec.Cmd) {
		t.Helper()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
	}
	chownAll(t, dir)
	run("initdb", asOwner(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=scram-sha-256",
		"--pwfile="+pwFile, "-E", "UTF8", "--locale=C", "--no-sync"))
	port = testenv.FreePort(t)
	conf := fmt.Sprintf("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\n"+
		"ssl = on\nssl_cert_file = '%s'\nssl_key_file = '%s'\nfsync = off\n",
		port, dir, certs.ServerCert, certs.ServerKey)
	appendFile(t, filepath.Join(data, "postgresql.conf"), conf)
	hba := "local all all scram-sha-256\n" +
		"hostnossl all all 127.0.0.1/32 reject\n" +
		"hostssl all all 127.0.0.1/32 scram-sha-256\n"
	if err := os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		t.Fatal(err)
	}
	chownAll(t, dir)
	pgCtl := filepath.Join(bin, "pg_ctl")
	run("pg_ctl start", asOwner(pgCtl, "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"))
	t.Cleanup(func() {
		if out, err := asOwner(pgCtl, "-D", data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
			t.Errorf("pg_ctl stop: %v\n%s", err, out)
		}
	})
	return port, password, certs
}

// chownAll gives dir to the postgres user when running as root.
func chownAll(t *testing.T, dir string) {
	t.Helper()
	if os.Getuid() != 0 {
		return
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	err = filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			err = os.Lchown(p, uid, gid)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// The password (from the URL or WithPassword) is checked by a scram server
// over TLS verified against its CA; a wrong password or a plain connection
// is refused, and no error shows the password.
func TestPasswordOverVerifiedTLS(t *testing.T) {
	port, password, certs := privateTLSServer(t)
	base := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", port)
	verify := "?sslmode=verify-full&sslrootcert=" + certs.CA
	ping := func(url string, opts ...store.Option) error {
		st, err := store.Open(context.Background(), url, opts...)
		if err != nil {
			return err
		}
		defer st.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return st.Ping(ctx)
	}
	withPW := strings.Replace(base, "postgres@", "postgres:"+password+"@", 1)
	for _, tc := range []struct {
		name string
		url  string
		opts []store.Option
		ok   bool
	}{
		{"WithPassword, verify-full", base + verify, []store.Option{store.WithPassword(password)}, true},
		{"password in the URL", withPW + verify, nil, true},
		{"WithPassword replaces the URL's", strings.Replace(withPW, password, "wrong", 1) + verify, []store.Option{store.WithPassword(password)}, true},
		{"no password", base + verify, nil, false},
		{"wrong password", base + verify, []store.Option{store.WithPassword(password + "x")}, false},
		{"plain connection refused", base + "?sslmode=disable", []store.Option{store.WithPassword(password)}, false},
		{"unknown CA", base + "?sslmode=verify-full&sslrootcert=" + certs.ClientCert, []store.Option{store.WithPassword(password)}, false},
	} {
		err := ping(tc.url, tc.opts...)
		if tc.ok != (err == nil) {
			t.Errorf("%s: err = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), password) {
			t.Errorf("%s: error shows the password: %v", tc.name, err)
		}
	}
}

// Open's parse errors never show a password, whether pgx redacts it or not.
func TestOpenErrorRedacted(t *testing.T) {
	const pw = "open-pw-3f9a"
	for _, u := range []string{
		"postgres://u:" + pw + "@h:notaport/db",
		"postgres://u:" + pw + "@h/db?sslmode=bogus",
		"postgres://u:" + pw + "@h%zz/db",
		"host=h password=" + pw + " sslmode=bogus",
		"host=h password='" + pw + "' port=x",
	} {
		_, err := store.Open(context.Background(), u, store.WithPassword(pw))
		if err == nil {
			t.Errorf("Open(%s) succeeded", u)
			continue
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("error shows the password: %v", err)
		}
	}
}
