package prefetch

// Lines prefetches the cache lines holding the n addresses that start at
// p (n at most the length of the array p points into). An address need
// not be valid: a prefetch never faults.
//
//go:noescape
func Lines(p *uintptr, n int)
