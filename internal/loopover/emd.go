package loopover

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/bfs"
)

// EMD is the enhanced Manhattan distance of one axis (the seed text's
// 5×5 optimal heuristic): a state is reduced to how many pieces sit k
// lines from their goal line, for each k mod Lines, and the table holds
// the quotient distance of those tuples. A perpendicular shift moves one
// piece of every line by one line, so it turns some Lines-multiset of
// displacements d into d−1 (or d+1); BFS over tuples with every such
// multiset as an edge gives a lower bound on perpendicular shifts (edges
// no arrangement realises only lower it). It needs no per-line state, so
// it fits boards whose walking-distance tables do not.
type EMD struct {
	Lines  int // displacement classes (the lines along this axis)
	Pieces int // pieces on the board
	Moved  int // pieces one perpendicular shift moves (= Lines)
	// Dist is indexed by the mixed-radix index of the first Lines−1
	// counts (radix Pieces+1); Unreached marks no tuple.
	Dist   []uint8
	Tuples int   // reachable tuples
	Counts []int // tuples per distance
	mul    [MaxSide]int
	// Down[d] and Up[d] are the index change when a piece at
	// displacement d moves one line down (displacement d−1) or up.
	Down, Up [MaxSide]int
}

// emdMaxIndex bounds the index space of a table built in memory.
const emdMaxIndex = 1 << 22

// NewEMD builds the table for a board with `lines` lines along the axis
// and `perLine` pieces in each.
func NewEMD(lines, perLine int) (*EMD, error) {
	if lines < 2 || perLine < 2 || lines > MaxSide || perLine > MaxSide {
		return nil, fmt.Errorf("enhanced Manhattan distance %d×%d: sides must be 2..%d", lines, perLine, MaxSide)
	}
	t := &EMD{Lines: lines, Pieces: lines * perLine, Moved: lines}
	size := 1
	for i := 0; i < lines-1; i++ {
		t.mul[i] = size
		size *= t.Pieces + 1
		if size > emdMaxIndex {
			return nil, fmt.Errorf("enhanced Manhattan distance %d lines of %d: %d^%d tuples exceed the %d-entry limit", lines, perLine, t.Pieces+1, lines-1, emdMaxIndex)
		}
	}
	for d := 0; d < lines; d++ {
		dn, up := (d+lines-1)%lines, (d+1)%lines
		t.Down[d] = t.mul[dn] - t.mul[d]
		t.Up[d] = t.mul[up] - t.mul[d]
	}
	if err := t.fill(size); err != nil {
		return nil, fmt.Errorf("enhanced Manhattan distance %d×%d: %w", lines, perLine, err)
	}
	return t, nil
}

// Index is the table index of displacement counts a (len Lines).
func (t *EMD) Index(a []int) int {
	x := 0
	for d := 0; d < t.Lines-1; d++ {
		x += a[d] * t.mul[d]
	}
	return x
}

// fill labels every reachable tuple with its distance from the goal (all
// pieces home), by internal/bfs's serial filler over the tuples' indices.
func (t *EMD) fill(size int) error {
	L := t.Lines
	goal := make([]int, L)
	goal[0] = t.Pieces
	var a [MaxSide]int
	dist, counts, err := bfs.Serial(size, []int{t.Index(goal)},
		func(x int, out []int) []int {
			// The tuple from its index: the last class holds the rest.
			rest := t.Pieces
			for k := 0; k < L-1; k++ {
				a[k] = x / t.mul[k] % (t.Pieces + 1)
				rest -= a[k]
			}
			a[L-1] = rest
			for _, delta := range [][MaxSide]int{t.Down, t.Up} {
				// Choose how many of the Moved pieces come from each class.
				var rec func(d, left, y int)
				rec = func(d, left, y int) {
					if d == L-1 {
						if left <= a[d] {
							out = append(out, y+left*delta[d])
						}
						return
					}
					for k := 0; k <= min(left, a[d]); k++ {
						rec(d+1, left-k, y+k*delta[d])
					}
				}
				rec(0, t.Moved, x)
				if L == 2 {
					break // on two lines down and up are the same shift
				}
			}
			return out
		})
	if err != nil {
		return err
	}
	t.Dist = dist
	for _, c := range counts {
		t.Counts = append(t.Counts, int(c))
		t.Tuples += int(c)
	}
	return nil
}
