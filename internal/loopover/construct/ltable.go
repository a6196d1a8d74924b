package construct

import (
	"sync"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// Once all but the last row and column are solved, those two lines (the
// "L", R+C−1 cells) can be turned freely: their rotations move nothing
// else. On boards with R+C−1 ≤ 9 the L is finished optimally in those two
// rotations from a breadth-first table over its arrangements (at most 9!),
// much shorter than building the column piece by piece and 3-cycling the
// row.

const maxL = 9

// The L's points: row cells (R−1, j) are 0..C−1 (the corner is C−1),
// column cells (i, C−1) for i < R−1 are C+i.

type lTable struct {
	// next[rank(arrangement)] is the move to make next: row +1, row −1,
	// column +1, column −1; noMacro when solved or unreachable.
	next []uint8
}

var (
	lOnce   [puzzle.MaxSide + 1][puzzle.MaxSide + 1]sync.Once
	lTables [puzzle.MaxSide + 1][puzzle.MaxSide + 1]*lTable
)

// lTableFor is built on first use, in at most a few tens of milliseconds;
// callers transpose to ask for r ≤ c only, halving the tables.
func lTableFor(r, c int) *lTable {
	lOnce[r][c].Do(func() { lTables[r][c] = buildL(r, c) })
	return lTables[r][c]
}

// lPoint is the L point of cell (i, j), −1 off the L.
func lPoint(r, c, i, j int) int {
	switch {
	case i == r-1:
		return j
	case j == c-1:
		return c + i
	}
	return -1
}

func buildL(r, c int) *lTable {
	n := r + c - 1
	// The four moves as macros of unit cost, for which the shortest-path
	// search of the line tables is a breadth-first search. Row shift by k:
	// cell (r−1, j) takes the piece of (r−1, j+k); column shift by k: cell
	// (i, c−1) takes the piece of (i+k, c−1).
	macros := make([]macro, 4)
	for g, k := range [4]int{1, -1, 1, -1} {
		m := &macros[g]
		m.cost = 1
		for x := 0; x < n; x++ {
			m.perm[x] = uint8(x)
		}
		if g < 2 {
			for j := 0; j < c; j++ {
				m.perm[j] = uint8(mod(j+k, c))
			}
		} else {
			for i := 0; i < r; i++ {
				m.perm[lPoint(r, c, i, c-1)] = uint8(lPoint(r, c, mod(i+k, r), c-1))
			}
		}
	}
	return &lTable{next: shortest(n, macros)}
}
