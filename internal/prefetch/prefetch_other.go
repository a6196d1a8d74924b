//go:build !amd64

package prefetch

// Lines does nothing where no prefetch instruction is wired up.
func Lines(p *uintptr, n int) {}
