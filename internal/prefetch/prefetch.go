// Package prefetch asks the CPU for the cache lines a search is about to
// read, without waiting for them: the misses of independent reads of a
// table too large for the caches then overlap instead of queueing one
// behind the other.
package prefetch
