package instances

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	ins, err := Read("../search/testdata/korf100.tsv")
	if err != nil || len(ins) != 100 || ins[0].Opt != 57 || len(ins[0].Cells) != 16 {
		t.Fatalf("korf100: %d instances, %v", len(ins), err)
	}
	bad := filepath.Join(t.TempDir(), "bad.tsv")
	for _, text := range []string{"1\t57\n", "x\t57\t1 2 3 0\n", "1\t57\t1 2 x 0\n"} {
		os.WriteFile(bad, []byte(text), 0o644)
		if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), "bad.tsv:1") {
			t.Errorf("%q: %v", text, err)
		}
	}
}
