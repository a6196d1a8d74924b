package deploy

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `scripts/pg-local.sh status` only reports: it neither creates nor
// starts a private server.
func TestPGLocalStatusStartsNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pg")
	cmd := exec.Command("bash", "../scripts/pg-local.sh", "status")
	cmd.Env = append(os.Environ(), "TESSERA_PG_DIR="+dir, "TESSERA_PG_SYSTEM_PORT=none", "TESSERA_PG_PORT=1",
		"TESSERA_DATABASE_URL=", "DATABASE_URL=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "no private server") {
		t.Errorf("status says %q", out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("status created %s (%v)", dir, err)
	}
	cmd = exec.Command("bash", "../scripts/pg-local.sh", "remove")
	cmd.Env = append(os.Environ(), "TESSERA_PG_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "nothing to remove") {
		t.Errorf("remove without a server: %v %s", err, out)
	}
}

// status creates no database tessera on whatever server answers on the
// standard port: it says what it would do and creates nothing.
func TestPGLocalStatusCreatesNoDatabase(t *testing.T) {
	u, err := url.Parse(os.Getenv("TEST_DATABASE_URL"))
	if err != nil || u.Port() == "" {
		t.Skipf("needs TEST_DATABASE_URL with a port, got %q (%v)", os.Getenv("TEST_DATABASE_URL"), err)
	}
	db := fmt.Sprintf("tessera_status_%d", time.Now().UnixNano())
	exists := func() bool {
		out, err := exec.Command("psql", "-X", "-h", u.Hostname(), "-p", u.Port(), "-U", "postgres", "-d", "postgres", "-tAc",
			"SELECT 1 FROM pg_database WHERE datname = '"+db+"'").CombinedOutput()
		if err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out)) == "1"
	}
	cmd := exec.Command("bash", "../scripts/pg-local.sh", "status")
	cmd.Env = append(os.Environ(), "TESSERA_PG_DIR="+filepath.Join(t.TempDir(), "pg"), "TESSERA_PG_SYSTEM_PORT="+u.Port(),
		"TESSERA_PG_DB="+db, "TESSERA_DATABASE_URL=", "DATABASE_URL=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	if exists() {
		exec.Command("psql", "-X", "-h", u.Hostname(), "-p", u.Port(), "-U", "postgres", "-d", "postgres", "-c", "DROP DATABASE "+db).Run()
		t.Fatalf("status created database %s:\n%s", db, out)
	}
	if !strings.Contains(string(out), "would use the server on 127.0.0.1:"+u.Port()+", creating database "+db) {
		t.Errorf("status says %q", out)
	}
}
