package tables

import (
	"fmt"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go
// runs Linux on (x86-64, arm64 with 4 KB base pages).
const hugePage = 2 << 20

// adviseHuge asks for huge pages under a shared file mapping. Where the
// file system caches files in large folios (ext4 on Linux 6.16 and
// later, for one), the kernel then reads the file in 2 MB folios and maps
// them whole. The tables' random lookups then stop missing the TLB, and
// the pages stay shared between processes: what Private buys with a copy
// (docs/BENCHMARKS.md has the measurement). Where the kernel cannot, the
// advice changes nothing (and its error is of no use to the caller).
func adviseHuge(mem []byte) { _ = syscall.Madvise(mem, syscall.MADV_HUGEPAGE) }

// Private replaces the shared mapping of the payload by a copy in this
// process's own memory, advised to the kernel for transparent huge pages.
// A search over tables of hundreds of MB misses the TLB on nearly every
// lookup with 4 KB pages; with 2 MB pages the whole table fits the TLB
// (docs/BENCHMARKS.md, the Private column). The price:
// every process holds its own copy instead of sharing the page cache, so
// it suits a host running one solver process. Data stays read-only.
func (t *Table) Private() error {
	if t.mem == nil || t.private {
		return nil
	}
	n := len(t.Data)
	mem, err := syscall.Mmap(-1, 0, n+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return fmt.Errorf("table %s: private copy of %d bytes: %w", t.Meta.Name, n, err)
	}
	// Huge pages back only whole aligned 2 MB ranges: start the copy on one.
	off := (hugePage - int(uintptr(unsafe.Pointer(unsafe.SliceData(mem)))%hugePage)) % hugePage
	data := mem[off : off+n]
	// Advice only: without transparent huge pages the copy is still correct.
	adviseHuge(data)
	copy(data, t.Data)
	if err := syscall.Mprotect(mem, syscall.PROT_READ); err != nil {
		_ = syscall.Munmap(mem)
		return fmt.Errorf("table %s: protect private copy: %w", t.Meta.Name, err)
	}
	if err := unmapFile(t.mem); err != nil {
		_ = syscall.Munmap(mem)
		return fmt.Errorf("table %s: unmap %s: %w", t.Meta.Name, t.path, err)
	}
	t.mem, t.Data, t.private = mem, data, true
	return nil
}
