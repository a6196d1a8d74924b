package swap

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// cost is the total flow cost: every unit of net flow on an edge is one
// step of one piece.
func (s *solver) cost() int {
	t := 0
	for v := range s.hf {
		t += int(abs(s.hf[v])) + int(abs(s.vf[v]))
	}
	return t
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// load solves board → goal (validated by check).
func (s *solver) load(rows, cols int, board, goal []uint8) error {
	s.sup = resize(s.sup, rows*cols)
	for i := range s.sup {
		s.sup[i] = int32(board[i]) - int32(goal[i])
	}
	return s.run(rows, cols, s.sup)
}

// moves splits the (acyclic) optimal flow of board → goal into one path per
// surplus cell and plays each path as described in the package comment,
// appending the swaps to out. The flow is consumed.
func (s *solver) moves(board []uint8, out []puzzle.Move) ([]puzzle.Move, error) {
	w := s.w
	limit := len(s.pi)
	s.work = resize(s.work, limit)
	s.all = s.all[:0]
	// Surplus cells send one unit more than they receive, deficit cells
	// receive one more.
	for r := range s.rows {
		for c := range s.cols {
			v := int32(r+1)*w + int32(c)
			s.work[v] = board[r*s.cols+c]
			s.exc[v] = s.hf[v] - s.hf[v-1] + s.vf[v] - s.vf[v-w]
			if s.exc[v] > 0 {
				s.all = append(s.all, v)
			}
		}
	}
	for _, src := range s.all {
		p := append(s.path[:0], src)
		v := src
		for s.exc[v] >= 0 {
			// Conservation guarantees an outgoing unit at any node that is
			// not an unfilled deficit cell; acyclicity guarantees the walk ends.
			switch {
			case s.hf[v] > 0:
				s.hf[v]--
				v++
			case s.hf[v-1] < 0:
				s.hf[v-1]++
				v--
			case s.vf[v] > 0:
				s.vf[v]--
				v += w
			case s.vf[v-w] < 0:
				s.vf[v-w]++
				v -= w
			default:
				return nil, fmt.Errorf("flow stops at node %d: %w", v, errInternal)
			}
			p = append(p, v)
			if len(p) > limit {
				return nil, fmt.Errorf("flow path from node %d does not end: %w", src, errInternal)
			}
		}
		s.exc[v] = 0 // filled
		s.path = p
		// Shift the ones on p[0..L-1] one slot along the path, last first:
		// each slides through zeros into the slot h left free for it.
		h := len(p) - 1
		for i := h - 1; i >= 0; i-- {
			if s.work[p[i]] == 0 {
				continue
			}
			for j := i; j < h; j++ {
				a, b := p[j], p[j+1]
				s.work[a], s.work[b] = 0, 1
				out = append(out, s.move(a, b))
			}
			h = i
		}
	}
	return out, nil
}

// move names the swap of adjacent padded nodes a and b.
func (s *solver) move(a, b int32) puzzle.Move {
	d := puzzle.Right
	if a > b {
		a, b = b, a
	}
	if b-a != 1 {
		d = puzzle.Down
	}
	return puzzle.Move{Dir: d, Line: int(a/s.w) - 1, Col: int(a % s.w)}
}
