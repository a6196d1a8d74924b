//go:build !unix

package tables

import (
	"fmt"
	"os"
)

// Without mmap the table is read into private memory: correct, not shared.
func mapFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(b) == 0 {
		return nil, fmt.Errorf("empty file: %w", ErrBadTable)
	}
	return b, err
}

func unmapFile([]byte) error { return nil }
