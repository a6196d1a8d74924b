package fulltable

import "github.com/tessera-solver/tessera/internal/puzzle"

// Transpose is the cols×rows board that is the rows×cols board cells
// (pieces 1..n, goal ascending) mirrored about its main diagonal, pieces
// renamed so that goal maps to goal: a table or solver for one shape serves
// the other. Row shifts of one are column shifts of the other.
func Transpose(rows, cols int, cells []uint8) []uint8 {
	out := make([]uint8, len(cells))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			p := int(cells[r*cols+c]) - 1
			out[c*rows+r] = uint8(p%cols*rows + p/cols + 1)
		}
	}
	return out
}

// TransposeMoves maps moves on a transposed board back: shifting row i
// right there moves the pieces of column i down here.
func TransposeMoves(ms []puzzle.Move) []puzzle.Move {
	out := make([]puzzle.Move, len(ms))
	for i, m := range ms {
		switch m.Dir {
		case puzzle.Right:
			m.Dir = puzzle.Down
		case puzzle.Left:
			m.Dir = puzzle.Up
		case puzzle.Down:
			m.Dir = puzzle.Right
		case puzzle.Up:
			m.Dir = puzzle.Left
		}
		out[i] = m
	}
	return out
}
