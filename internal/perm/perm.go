// Package perm ranks and unranks permutations and partial permutations
// (ordered selections of k distinct values of 0..n−1) in lexicographic
// order. The ranks are the index order of table files, so they must never
// change: the tests check them against a brute-force enumeration.
//
// The rank of p_0 … p_{k−1} is Σ d_i·Mul(i), where the digit d_i is p_i
// minus the number of earlier p_j below p_i, and Mul(i) = (n−1−i)!/(n−k)!:
// mixed radix n, n−1, …, n−k+1. With k = n it is the Lehmer code of a
// permutation, the identity ranked 0.
//
// Everything here is allocation-free; values are at most 31 so that a set
// of values is a uint32.
package perm

import (
	"fmt"
	"math/bits"
)

// MaxN is the largest n: sets of values are uint32 masks.
const MaxN = 32

// Partial ranks the k-of-n partial permutations; k = n ranks full
// permutations. Make one with NewPartial (or Full) outside the hot loop
// and keep it by value: Rank and Unrank only read it.
type Partial struct {
	n, k int
	size uint64
	mul  [MaxN]uint64 // mul[i] = (n−1−i)!/(n−k)! for i < k, else 0
}

// NewPartial prepares the ranking of k of n values; it panics when
// 1 ≤ k ≤ n ≤ MaxN does not hold or n!/(n−k)! overflows a uint64 (a
// programming error: the sizes are fixed by the puzzles).
func NewPartial(n, k int) Partial {
	if n < 1 || n > MaxN || k < 1 || k > n {
		panic(fmt.Sprintf("perm: %d of %d values unsupported", k, n))
	}
	p := Partial{n: n, k: k}
	p.mul[k-1] = 1
	var hi uint64
	for i := k - 2; i >= 0 && hi == 0; i-- {
		hi, p.mul[i] = bits.Mul64(p.mul[i+1], uint64(n-1-i))
	}
	var lo uint64
	if hi == 0 {
		hi, lo = bits.Mul64(p.mul[0], uint64(n))
	}
	if hi != 0 {
		panic(fmt.Sprintf("perm: %d!/%d! overflows 64 bits", n, n-k))
	}
	p.size = lo
	return p
}

// Full prepares the ranking of the permutations of n values (Lehmer code).
func Full(n int) Partial { return NewPartial(n, n) }

// N is the number of values.
func (p *Partial) N() int { return p.n }

// K is the number of values placed.
func (p *Partial) K() int { return p.k }

// Size is the number of ranks, n!/(n−k)!.
func (p *Partial) Size() uint64 { return p.size }

// Mul is the weight of digit i, (n−1−i)!/(n−k)!, and 0 for i ≥ k. Code
// that steps ranks incrementally takes its steps from here, so that its
// ranks are these.
func (p *Partial) Mul(i int) uint64 { return p.mul[i&(MaxN-1)] }

// Muls is every digit's weight (see Mul), for steppers that keep a copy.
func (p *Partial) Muls() [MaxN]uint64 { return p.mul }

// Digit is the digit of value v after the values in used: the number of
// values below v not in used. One popcount; v must be below 32.
func Digit(used uint32, v uint8) uint32 {
	return uint32(v) - uint32(bits.OnesCount32(used&(1<<(v&31)-1)))
}

// Rank is the rank of the distinct values v[:k] (each below n).
func (p *Partial) Rank(v []uint8) uint64 {
	var used uint32
	var r uint64
	for i, x := range v[:p.k] {
		r += uint64(Digit(used, x)) * p.mul[i&(MaxN-1)]
		used |= 1 << (x & 31)
	}
	return r
}

// Unrank writes the values of rank r (< Size) into out[:k] and returns
// the set of them.
func (p *Partial) Unrank(r uint64, out []uint8) uint32 {
	out = out[:p.k]
	var used uint32
	if p.n <= 16 {
		// The free values as a nibble list: each pick is O(1).
		list := uint64(Identity)
		for i := range out {
			m := p.mul[i&(MaxN-1)]
			d := r / m
			r -= d * m
			v := Take(&list, uint32(d))
			out[i] = v
			used |= 1 << v
		}
		return used
	}
	for i := range out {
		m := p.mul[i&(MaxN-1)]
		d := r / m
		r -= d * m
		v := Nth(^used, uint32(d))
		out[i] = v
		used |= 1 << (v & 31)
	}
	return used
}

// Nth is the d-th lowest value of the set free (d from 0).
func Nth(free uint32, d uint32) uint8 {
	for ; d > 0; d-- {
		free &= free - 1
	}
	return uint8(bits.TrailingZeros32(free))
}

// Identity lists the values 0..15 as nibbles, lowest first: the free
// values of an unranking on at most 16 values, before the first pick.
const Identity = 0xFEDCBA9876543210

// Take removes the d-th nibble of list and returns it: the d-th free value
// in two shifts, without a loop.
func Take(list *uint64, d uint32) uint8 {
	sh := (d << 2) & 63
	v := uint8(*list>>sh) & 15
	low := uint64(1)<<sh - 1
	*list = *list&low | (*list>>4)&^low
	return v
}

// Rank7 is Rank for seven values, written out for the searches that rank
// seven pieces per table read: the digits are independent of one another
// but for the set of values before them. mul are the place values (a
// Partial's first seven Muls; with mul[6] = 0 it ranks the first six).
func Rank7(x *[7]uint8, mul *[7]uint64) uint64 {
	u := uint32(1) << (x[0] & 31)
	r := uint64(x[0]) * mul[0]
	r += uint64(Digit(u, x[1])) * mul[1]
	u |= 1 << (x[1] & 31)
	r += uint64(Digit(u, x[2])) * mul[2]
	u |= 1 << (x[2] & 31)
	r += uint64(Digit(u, x[3])) * mul[3]
	u |= 1 << (x[3] & 31)
	r += uint64(Digit(u, x[4])) * mul[4]
	u |= 1 << (x[4] & 31)
	r += uint64(Digit(u, x[5])) * mul[5]
	u |= 1 << (x[5] & 31)
	return r + uint64(Digit(u, x[6]))*mul[6]
}
