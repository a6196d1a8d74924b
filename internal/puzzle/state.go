package puzzle

// State is one board position. Cells are row-major:
//   - sliding: 0 is the blank, tiles are 1..N-1; goal is 1..N-1 then the blank.
//   - loopover: pieces 1..N; goal is ascending.
//   - swap: 0 or 1; goal puts the ones in the first cells.
type State struct {
	Spec  Spec
	Cells []uint8
}

// Clone returns a deep copy.
func (s State) Clone() State {
	return State{Spec: s.Spec, Cells: append([]uint8(nil), s.Cells...)}
}

// Equal reports whether two states have the same spec and cells.
func (s State) Equal(o State) bool {
	if s.Spec != o.Spec || len(s.Cells) != len(o.Cells) {
		return false
	}
	for i := range s.Cells {
		if s.Cells[i] != o.Cells[i] {
			return false
		}
	}
	return true
}

// Dir is a move direction. For sliding puzzles it is the direction the TILE
// moves (into the blank); for Loopover the direction a row or column shifts;
// for swap boards Right or Down names the neighbour swapped with.
type Dir uint8

const (
	Up Dir = iota
	Down
	Left
	Right
)

// Opposite is the direction that undoes d.
func (d Dir) Opposite() Dir { return d ^ 1 }

// Letter is d's letter in move notation ('?' for a value that names no
// direction: never a neighbour's letter).
func (d Dir) Letter() byte {
	if d > Right {
		return '?'
	}
	return "UDLR"[d]
}

// Move is one unit move.
//   - sliding: only Dir is used.
//   - loopover: Line is the 0-based row (Left/Right) or column (Up/Down).
//   - swap: Line is the 0-based row and Col the 0-based column of the cell
//     swapped with its Right or Down neighbour.
type Move struct {
	Dir  Dir
	Line int
	Col  int
}
