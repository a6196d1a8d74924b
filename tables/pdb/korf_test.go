package pdb

import (
	"testing"

	"github.com/tessera-solver/tessera/internal/instances"
)

// readKorf reads Korf's 100 with their published optimal lengths.
func readKorf(t testing.TB) []instances.Instance {
	t.Helper()
	out, err := instances.Read("../../internal/search/testdata/korf100.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 100 {
		t.Fatalf("read %d Korf instances", len(out))
	}
	return out
}
