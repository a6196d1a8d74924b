//go:build unix

package tables

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps path read-only and shared: the kernel keeps one copy of the
// pages for every process mapping the file.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the mapping outlives the descriptor
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size == 0 {
		return nil, fmt.Errorf("empty file: %w", ErrBadTable)
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("file of %d bytes is too large to map", size)
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap: %w", err)
	}
	adviseHuge(mem)
	return mem, nil
}

func unmapFile(mem []byte) error { return syscall.Munmap(mem) }
