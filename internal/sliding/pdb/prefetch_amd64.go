package pdb

// prefetch asks for the cache lines at the first n addresses of p without
// waiting for them: table entries a search will read soon.
//
//go:noescape
func prefetch(p *[8]uintptr, n int)
