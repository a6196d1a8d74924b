package puzzle

import (
	"math/bits"
	"strconv"
)

// Solvable returns nil when s can reach its goal, or an error wrapping
// ErrUnsolvable that explains the parity rule it breaks (or ErrMalformed
// when s is not a well-formed board, see State.Validate).
//
// Sliding, width w = Cols, goal = tiles 1..N−1 row-major, blank last.
// A horizontal move leaves the row-major tile sequence (blank ignored)
// unchanged; a vertical move makes one tile jump over the w−1 tiles
// between its old and new cell, changing the inversion count by an amount
// of the parity of w−1, and moves the blank one row.
//   - odd w: vertical moves change inversions by an even amount, so the
//     inversion parity is invariant; the goal has 0: inversions must be even.
//   - even w: every vertical move flips both the inversion parity and the
//     blank's row parity, so inversions + blank row is invariant. Counting
//     the blank's row from the bottom with the bottom row = 1, the goal has
//     0 + 1: inversions + blank row from bottom must be odd.
//
// These are also sufficient (Johnson & Story 1879); the tests check them
// against BFS reachability on small boards.
//
// Loopover: a row shift is a cycle of Cols pieces, a column shift a cycle
// of Rows pieces; a cycle of odd length is an even permutation. When both
// sides are odd only even permutations are reachable (and all of them);
// when either side is even every permutation is.
//
// Swap: every board reaches the goal with the same number of ones.
func Solvable(s State) error {
	if err := s.Validate(); err != nil {
		return err
	}
	return s.Spec.Family().Solvable(s) // Validate: the spec has a family
}

// SlidingInversions counts the pairs of tiles out of order in row-major
// order, the blank (0) ignored.
func SlidingInversions(s State) int { return inversions(s.Cells, true) }

// BlankIndex is the row-major index of the blank (0), or −1 if there is
// none.
func BlankIndex(s State) int { return blankIndex(s.Cells) }

func blankIndex(c []uint8) int {
	for i, v := range c {
		if v == 0 {
			return i
		}
	}
	return -1
}

// inversions counts pairs i < j with c[i] > c[j], optionally skipping
// zeros. Boards it is used on hold at most 64 cells.
//
// Distinct values below 64 (every well-formed sliding and Loopover
// board) are counted in one pass: each value adds the earlier values
// above it, read off a mask of those seen: a pairwise loop mispredicts
// about half of its comparisons on random boards, and every parsed and
// generated board is counted.
func inversions(c []uint8, skipZero bool) int {
	var seen uint64
	n := 0
	for _, a := range c {
		if skipZero && a == 0 {
			continue
		}
		if a >= 64 || seen>>a&1 != 0 {
			return inversionsPairwise(c, skipZero) // repeated values
		}
		n += bits.OnesCount64(seen >> a >> 1)
		seen |= 1 << a
	}
	return n
}

// inversionsPairwise is inversions for any values.
func inversionsPairwise(c []uint8, skipZero bool) int {
	n := 0
	for i, a := range c {
		if skipZero && a == 0 {
			continue
		}
		for _, b := range c[i+1:] {
			if b < a && (b != 0 || !skipZero) {
				n++
			}
		}
	}
	return n
}

// plural is "1 inversion", "2 inversions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
