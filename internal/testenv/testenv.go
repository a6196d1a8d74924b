// Package testenv holds set-up shared by the test binaries of the
// commands.
package testenv

import (
	"os"
	"testing"
)

// MainWithoutTables runs m with the tables directory pointed at an empty
// one, then exits: the tests must behave alike on a fresh machine and on a
// host whose operator has built tables in the default directory (which
// would change which solver answers). Tests that want tables pass
// --tables-dir.
func MainWithoutTables(m *testing.M) {
	dir, err := os.MkdirTemp("", "tessera-test-tables-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TESSERA_SOLVER_TABLES_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
