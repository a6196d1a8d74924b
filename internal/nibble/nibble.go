// Package nibble holds the primitives of the 4-bit-entry tables that
// internal/bfs builds and their owners read: sixteen entries to a uint64
// word, 15 meaning "not reached".
package nibble

import "sync/atomic"

// Unreached is the entry of a state no level has reached yet.
const Unreached = 15

// Eq marks with the top bit of each 4-bit lane the lanes of x equal to v
// (exact: no borrow crosses lanes).
func Eq(x uint64, v uint8) uint64 {
	const lo3, hi = 0x7777777777777777, 0x8888888888888888
	y := x ^ (uint64(v) * 0x1111111111111111)
	return ^((y&lo3 + lo3) | y) & hi
}

// Claim sets entry i of tab to v if it is still Unreached and reports
// whether this call set it: of the builders that reach the same state at
// once, exactly one counts it.
func Claim(tab []uint64, i, v uint64) bool {
	p := &tab[i>>4]
	sh := (i & 15) << 2
	for {
		old := atomic.LoadUint64(p)
		if (old>>sh)&15 != Unreached {
			return false
		}
		if atomic.CompareAndSwapUint64(p, old, old&^(15<<sh)|v<<sh) {
			return true
		}
	}
}
