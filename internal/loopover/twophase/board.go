// Package twophase solves 5×5 Loopover boards quickly and near-optimally
// in two phases: phase 1 brings the nine pieces of a 3×3 block home with
// all twenty shifts, phase 2 finishes the other sixteen with shifts of the
// two free rows and two free columns only, which leave the block alone.
// Phase-1 solutions are enumerated in increasing length over 50 variants
// of the input (the 25 translations of the block around the torus, of the
// board and of its inverse) and each is completed by a phase 2 that must
// improve on the best answer so far (and stay within a few moves of its
// bound; a position whose phase 2 already failed as deep is skipped),
// until the budget runs out. The first answer, found whatever the
// budget, comes from weighted searches in a few milliseconds.
//
// Bounds: phase 1 takes the maximum of four symmetric lookups of a
// six-piece pattern database (the caller's table, buildPhase) or, without
// it, of a four-piece one built here plus the seed's phase-1 walking
// distance; phase 2 the seed's walking distance of the board and of its
// inverse and a six-piece PDB of the free columns' pieces, looked up four
// ways, or where the caller has it the eight-piece phase-2 table (arm8),
// looked up eight ways.
//
// The package is pure: the big pattern databases are built here but
// stored and mapped by the caller (tables/catalog).
package twophase

import "github.com/tessera-solver/tessera/internal/puzzle"

// Board geometry: 5×5, cell = 5*row + col, piece = its goal cell.
const (
	side  = 5
	cells = side * side
	nMove = 4 * side
)

// Move codes, as in internal/loopover: 2r+0 shifts row r right, 2r+1
// left; 10+2c+0 shifts column c down, 10+2c+1 up. m^1 undoes m.
const rowMoves = 2 * side

// dest[m][x] is the cell the piece at cell x moves to under move m;
// moveCells[m] is the line m shifts, in order along the shift, and
// moveSrc[m][i] the cell whose piece lands on moveCells[m][i]. (Variable
// initialisers, not init, so that other tables may be built from them.)
var dest, moveCells, moveSrc = makeMoves()

// axisOf, lineOf, dirOf decompose a move code.
func axisOf(m int) int { return m / rowMoves }
func lineOf(m int) int { return m % rowMoves / 2 }
func dirOf(m int) int  { return m & 1 }

func makeMoves() (dest [nMove][cells]uint8, moveCells, moveSrc [nMove][side]uint8) {
	for m := 0; m < nMove; m++ {
		ln, step := lineOf(m), 1
		if dirOf(m) == 1 {
			step = side - 1
		}
		for x := 0; x < cells; x++ {
			dest[m][x] = uint8(x)
		}
		for i := 0; i < side; i++ {
			var at, to int
			if axisOf(m) == 0 {
				at, to = ln*side+i, ln*side+(i+step)%side
			} else {
				at, to = i*side+ln, (i+step)%side*side+ln
			}
			dest[m][at] = uint8(to)
			moveCells[m][i] = uint8(to)
			moveSrc[m][i] = uint8(at)
		}
	}
	return
}

// toPuzzle converts a move code to a puzzle move.
func toPuzzle(m int) puzzle.Move {
	var d puzzle.Dir
	switch {
	case axisOf(m) == 0 && dirOf(m) == 0:
		d = puzzle.Right
	case axisOf(m) == 0:
		d = puzzle.Left
	case dirOf(m) == 0:
		d = puzzle.Down
	default:
		d = puzzle.Up
	}
	return puzzle.Move{Dir: d, Line: lineOf(m)}
}

// board is a position: board[cell] = piece (its goal cell).
type board [cells]uint8

// apply makes move m on b.
func (b *board) apply(m int) {
	src, dst := &moveSrc[m], &moveCells[m]
	var t [side]uint8
	for i := 0; i < side; i++ {
		t[i] = b[src[i]]
	}
	for i := 0; i < side; i++ {
		b[dst[i]] = t[i]
	}
}

// canFollow reports whether move m may follow last (-1: none) in a
// canonical sequence: shifts of different lines of one axis commute, so
// they come in increasing line order; a line is never shifted back, nor
// more than twice one way (three steps one way are two the other).
// run is how many shifts of last's line in last's direction end the path.
func canFollow(last, run, m int) bool {
	if last < 0 || axisOf(m) != axisOf(last) {
		return true
	}
	lm, ll := lineOf(m), lineOf(last)
	if lm != ll {
		return lm > ll
	}
	return dirOf(m) == dirOf(last) && run < 2
}

// variant describes one of the 50 equivalent problems: the block solved
// first is rows dr..dr+2, columns dc..dc+2 of the board (inv false) or of
// its inverse (inv true).
type variant struct {
	dr, dc int
	inv    bool
}

func (v variant) shift(x int) int {
	r, c := x/side, x%side
	return (r-v.dr+side)%side*side + (c-v.dc+side)%side
}

// transform maps the input board p to the board whose top-left block is
// the variant's block: the inverse first if asked, then a translation of
// cells and pieces alike (the torus looks the same from every cell).
func (v variant) transform(p *board) board {
	q := *p
	if v.inv {
		for i, x := range p {
			q[x] = uint8(i)
		}
	}
	var out board
	for i, x := range q {
		out[v.shift(i)] = uint8(v.shift(int(x)))
	}
	return out
}

// moves converts a solution of the transformed board back to moves on the
// input board.
func (v variant) moves(path []uint8) []puzzle.Move {
	out := make([]puzzle.Move, len(path))
	for i, m := range path {
		pm := toPuzzle(int(m))
		if axisOf(int(m)) == 0 {
			pm.Line = (pm.Line + v.dr) % side
		} else {
			pm.Line = (pm.Line + v.dc) % side
		}
		out[i] = pm
	}
	if v.inv {
		// p∘s = id makes s the inverse of p, so the inverse board is
		// solved by s read backwards with every move undone.
		out = puzzle.InvertMoves(puzzle.Spec{Kind: puzzle.Loopover, Rows: side, Cols: side}, out)
	}
	return out
}

// allVariants is every block of the board, then every block of the
// inverse, the plain top-left block first.
func allVariants() []variant {
	var vs []variant
	for _, inv := range []bool{false, true} {
		for dr := 0; dr < side; dr++ {
			for dc := 0; dc < side; dc++ {
				vs = append(vs, variant{dr, dc, inv})
			}
		}
	}
	return vs
}
