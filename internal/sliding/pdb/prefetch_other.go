//go:build !amd64

package pdb

// prefetch does nothing where no prefetch instruction is wired up.
func prefetch(p *[8]uintptr, n int) {}
