// Package catalogtest builds and damages table files for the tests of
// the code that loads and watches them.
package catalogtest

import (
	"context"
	"os"
	"testing"

	"github.com/tessera-solver/tessera/tables"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// BuildSet builds the catalogue set name into dir (15-pdb-555: about a
// second).
func BuildSet(t testing.TB, dir, name string) {
	t.Helper()
	set, ok := catalog.LookupSet(name)
	if !ok {
		t.Fatalf("no table set %s", name)
	}
	for _, tb := range set.Tables {
		if _, _, err := catalog.Build(context.Background(), dir, tb, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// Corrupt writes table tb with a made-up payload into dir, then flips
// the payload byte at offset back from the end: header and size are
// right, the checksum is not. It returns the file's bytes.
func Corrupt(t testing.TB, dir string, tb catalog.Table, back int) []byte {
	t.Helper()
	path := Zeros(t, dir, tb)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-back] ^= 0xff
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o444); err != nil {
		t.Fatal(err)
	}
	return b
}

// Zeros writes table tb into dir with a payload of zeros under the right
// checksum (a file that loads, with wrong distances) and returns its path.
func Zeros(t testing.TB, dir string, tb catalog.Table) string {
	t.Helper()
	n := tb.Meta.Entries
	if tb.Meta.Encoding == "u4" {
		n = (n + 1) / 2
	}
	path, _, err := tables.Write(dir, tb.Meta, make([]byte, n))
	if err != nil {
		t.Fatal(err)
	}
	return path
}
