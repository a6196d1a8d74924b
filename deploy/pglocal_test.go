package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 18: `scripts/pg-local.sh status` only reports; it created and
// started a private server.
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
