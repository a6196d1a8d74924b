// Package loopover is what every optimal Loopover search shares: the move
// codes, the parity rule and the search board; the walking-distance tables
// per axis (BFS over label multisets) and the enhanced Manhattan distance;
// the general IDA* over their bounds for any shape (Solver), with the
// worker state and tree the specialised searches (internal/loopover/ida44,
// internal/loopover/ida55) embed; a cheap bound for any size; and the
// Algorithm that answers with an Optimal search or by construction. It is
// pure: no I/O.
package loopover

import "github.com/tessera-solver/tessera/internal/puzzle"

// MaxSide is the longest side of a board; MaxCells its cells.
const (
	MaxSide  = puzzle.MaxSide
	MaxCells = MaxSide * MaxSide
)

// Move codes: 2r+0 shifts row r right, 2r+1 left; 2R+2c+0 shifts column c
// down, 2R+2c+1 up. Positive shifts (right, down) have even codes. A
// move's axis is AxisRow or AxisCol.
const (
	AxisRow = 0
	AxisCol = 1
)

// parity rules: which count of moves has a fixed parity.
const (
	parNone  = iota // both sides odd: every move is an even permutation
	parTotal        // both even: every move is odd, so the distance has the permutation's parity
	parRows         // even rows, odd columns: row shifts are odd, column shifts even
	parCols         // odd rows, even columns: column shifts are odd
)

// A search board holds pieces as goalRow<<3 | goalCol, so both labels
// are a shift or a mask away: ColMask keeps the goal column.
const ColMask = 7

// Board is a search's position: pieces as goalRow<<3 | goalCol, the
// walking-distance codes of every row and column (with EMD: the axis's
// index in [0]), the two axes' bounds and the permutation's parity.
type Board struct {
	Cells  [MaxCells]uint8
	RC, CC [MaxSide]uint32
	HR, HC int
	Par    int
}

// permParity is 0 for an even permutation, 1 for odd.
func permParity(p []uint8) int {
	var seen [MaxCells]bool
	par := 0
	for i := range p {
		if seen[i] {
			continue
		}
		for j := i; !seen[j]; j = int(p[j]) {
			seen[j] = true
			par ^= 1
		}
		par ^= 1 // a cycle of length k is k−1 transpositions
	}
	return par
}
