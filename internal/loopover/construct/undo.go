package construct

import "github.com/tessera-solver/tessera/internal/puzzle"

// A board a few moves from the goal keeps most pieces in place, which the
// constructive method barely exploits: it may spend dozens of moves where
// undoing the scramble takes six. So when at least a quarter of the pieces
// are home, a beam search first looks for unit moves that put pieces back
// in place, and the construction continues from the most promising board
// it reaches (often the goal itself). Solve keeps whichever answer is
// shorter.

const (
	undoBeam  = 32 // boards kept per depth
	undoDepth = 24 // moves at most
)

type undoNode struct {
	cell   [maxCells]uint8
	score  int // see total
	parent int32
	m      shift
}

type undoCand struct {
	parent int32
	m      shift
	score  int
}

// homeCount counts the pieces at home.
func homeCount(cell *[maxCells]uint8, n int) int {
	k := 0
	for c := 0; c < n; c++ {
		if int(cell[c]) == c {
			k++
		}
	}
	return k
}

// worthTable scores piece p in cell c: 2 at home, 1 in its home row or
// column (one shift from home), else 0.
func worthTable(rows, cols int, w *[maxCells][maxCells]int8) {
	for p := 0; p < rows*cols; p++ {
		for c := 0; c < rows*cols; c++ {
			switch {
			case p == c:
				w[p][c] = 2
			case p/cols == c/cols || p%cols == c%cols:
				w[p][c] = 1
			default:
				w[p][c] = 0
			}
		}
	}
}

func (s *solver) worth(p uint8, c int) int { return int(s.scr.worth[p][c]) }

// total is the score of a board: the sum of its pieces' worth.
func (s *solver) total(cell *[maxCells]uint8) int {
	k := 0
	for c := 0; c < s.rows*s.cols; c++ {
		k += s.worth(cell[c], c)
	}
	return k
}

// undo returns the moves of the beam search (boards ranked by total) to
// the board maximizing 1.5·total − moves, about 3 per piece at home less
// the moves spent: roughly what finishing from it saves. ok is false when
// no board beats the start.
func (s *solver) undo() (path []shift, end [maxCells]uint8, ok bool) {
	R, C := s.rows, s.cols
	N := R * C
	worthTable(R, C, &s.scr.worth)
	nodes := append(s.scr.nodes[:0], undoNode{})
	defer func() { s.scr.nodes = nodes[:0] }()
	nodes[0] = undoNode{cell: s.cell, score: s.total(&s.cell), parent: -1}
	bestNode, bestVal := 0, 3*nodes[0].score/2
	level := make([]int32, 1, undoBeam)
	nextBuf := make([]int32, 0, undoBeam)
	cands := make([]undoCand, 0, undoBeam*2*(R+C))
	order := make([]int32, undoBeam*2*(R+C))
	lastGain := 0
	for depth := 1; depth <= undoDepth && depth-lastGain <= 3; depth++ {
		cands = cands[:0]
		for _, pi := range level {
			p := &nodes[pi]
			for line := 0; line < R+C; line++ {
				col := line >= R
				idx, n := line, C
				if col {
					idx, n = line-R, R
				}
				for _, k := range [2]int{1, -1} {
					if n == 2 && k < 0 {
						continue // the same move as k = 1
					}
					if p.parent >= 0 && p.m.col == col && int(p.m.line) == idx && short(int(p.m.k)+k, n) == 0 {
						continue // undoes the move before
					}
					cands = append(cands, undoCand{pi, shift{col: col, line: int8(idx), k: int8(k)}, p.score + s.delta(&p.cell, col, idx, k)})
				}
			}
		}
		// Keep the best undoBeam distinct boards: candidates by score,
		// highest first (a counting sort: scores are at most 2N).
		var count [2*maxCells + 2]int32
		for _, c := range cands {
			count[c.score]++
		}
		at := int32(0)
		for sc := 2 * N; sc >= 0; sc-- {
			count[sc], at = at, at+count[sc]
		}
		order = order[:len(cands)]
		for i, c := range cands {
			order[count[c.score]] = int32(i)
			count[c.score]++
		}
		next := nextBuf[:0]
		for _, ci := range order {
			if len(next) == undoBeam {
				break
			}
			c := cands[ci]
			nd := undoNode{cell: nodes[c.parent].cell, score: c.score, parent: c.parent, m: c.m}
			s.shiftCells(&nd.cell, c.m)
			dup := false
			for _, o := range next {
				if nodes[o].cell == nd.cell {
					dup = true
					break
				}
			}
			if dup {
				continue
			}
			nodes = append(nodes, nd)
			next = append(next, int32(len(nodes)-1))
			if v := 3*nd.score/2 - depth; v > bestVal {
				bestNode, bestVal, lastGain = len(nodes)-1, v, depth
			}
		}
		level, nextBuf = next, level
		if nodes[bestNode].score == 2*N {
			break
		}
	}
	if bestNode == 0 {
		return nil, end, false
	}
	for i := int32(bestNode); nodes[i].parent >= 0; i = nodes[i].parent {
		path = append(path, nodes[i].m)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, nodes[bestNode].cell, true
}

// delta is the change in total that shifting a line by k makes.
func (s *solver) delta(cell *[maxCells]uint8, col bool, idx, k int) int {
	d := 0
	if col {
		R, C := s.rows, s.cols
		for i := 0; i < R; i++ {
			c := i*C + idx
			from := mod(i+k, R)*C + idx
			d += s.worth(cell[from], c) - s.worth(cell[c], c)
		}
		return d
	}
	C := s.cols
	for j := 0; j < C; j++ {
		c := idx*C + j
		from := idx*C + mod(j+k, C)
		d += s.worth(cell[from], c) - s.worth(cell[c], c)
	}
	return d
}

// shiftCells applies m to a bare board.
func (s *solver) shiftCells(cell *[maxCells]uint8, m shift) {
	R, C := s.rows, s.cols
	var tmp [puzzle.MaxSide]uint8
	if m.col {
		j := int(m.line)
		for i := 0; i < R; i++ {
			tmp[i] = cell[mod(i+int(m.k), R)*C+j]
		}
		for i := 0; i < R; i++ {
			cell[i*C+j] = tmp[i]
		}
		return
	}
	base := int(m.line) * C
	for j := 0; j < C; j++ {
		tmp[j] = cell[base+mod(j+int(m.k), C)]
	}
	copy(cell[base:base+C], tmp[:C])
}
