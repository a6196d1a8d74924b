package main

import (
	"testing"

	"github.com/tessera-solver/tessera/internal/testenv"
)

// TestMain hides the host's tables (see testenv.MainWithoutTables).
func TestMain(m *testing.M) { testenv.MainWithoutTables(m) }
