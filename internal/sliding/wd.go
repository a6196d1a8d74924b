package sliding

import (
	"fmt"
	"sort"

	"github.com/tessera-solver/tessera/internal/bfs"
)

// WD is takaken's walking distance for one axis of a sliding board.
//
// For the vertical axis of an H×W board, a pattern is the H×H matrix
// M[r][g] = number of tiles in row r whose goal row is g, plus the row of
// the blank. A vertical move carries one tile of some goal row g across the
// blank's row boundary, so BFS over patterns gives the least number of
// vertical moves any tile arrangement with that pattern needs: a lower bound
// on vertical moves that dominates the vertical part of Manhattan distance.
// The horizontal axis is the same table built for the transposed board
// (columns as lines, tiles grouped by goal column).
//
// Link makes the per-move update one array read: moving a tile whose goal
// line is g from the line next to the blank into the blank's line turns
// pattern p into Link[(p*2+dir)*Lines+g], dir 0 = the blank moves to the
// next line (+1), dir 1 = to the previous line (−1).
type WD struct {
	Lines   int // lines along this axis (rows for vertical)
	PerLine int // cells per line
	Dist    []uint8
	Link    []uint32
	Goal    uint32   // pattern index of the goal
	keys    []uint64 // sorted packed patterns; Index finds a root pattern by binary search
}

// NoLink marks a move that the pattern does not allow (no tile of that goal
// line next to the blank, or the blank at the board edge).
const NoLink = ^uint32(0)

// Patterns is the number of distinct patterns.
func (t *WD) Patterns() int { return len(t.Dist) }

// Bytes is the memory the table holds.
func (t *WD) Bytes() int { return len(t.Dist) + 4*len(t.Link) }

// wdMaxLines bounds the packed key: lines×(lines−1) counts of 3 bits plus
// the blank's line fit 64 bits for up to 5 lines of up to 7 cells.
const (
	wdMaxLines   = 5
	wdMaxPerLine = 7
)

// NewWD builds the walking-distance table for a board of `lines` lines of
// `perLine` cells each, blank in the last line of the goal.
func NewWD(lines, perLine int) (*WD, error) {
	if lines < 2 || lines > wdMaxLines || perLine < 2 || perLine > wdMaxPerLine {
		return nil, fmt.Errorf("walking distance: %d lines of %d cells unsupported (want 2..%d lines of 2..%d)", lines, perLine, wdMaxLines, wdMaxPerLine)
	}
	L := lines
	// key packs M[r][g] for g < L−1 (the last column follows from the row
	// sums) in 3 bits each, then the blank line.
	encode := func(m *[wdMaxLines][wdMaxLines]int, blank int) uint64 {
		var k uint64
		for r := 0; r < L; r++ {
			for g := 0; g < L-1; g++ {
				k = k<<3 | uint64(m[r][g])
			}
		}
		return k<<3 | uint64(blank)
	}
	decode := func(k uint64, m *[wdMaxLines][wdMaxLines]int) int {
		blank := int(k & 7)
		k >>= 3
		for r := L - 1; r >= 0; r-- {
			sum := 0
			for g := L - 2; g >= 0; g-- {
				m[r][g] = int(k & 7)
				sum += m[r][g]
				k >>= 3
			}
			n := perLine
			if r == blank {
				n--
			}
			m[r][L-1] = n - sum
		}
		return blank
	}
	var m [wdMaxLines][wdMaxLines]int
	// neighbours calls f with the key of each pattern one move from m's
	// (the blank in line blank): a tile of goal line g comes into the
	// blank's line from line blank+1 (dir 0) or blank−1 (dir 1). m is
	// as it was when f runs.
	neighbours := func(blank int, f func(dir, g int, key uint64)) {
		for dir, nb := range [2]int{blank + 1, blank - 1} {
			if nb < 0 || nb >= L {
				continue
			}
			for g := 0; g < L; g++ {
				if m[nb][g] == 0 {
					continue
				}
				m[nb][g]--
				m[blank][g]++
				k := encode(&m, nb)
				m[nb][g]++
				m[blank][g]--
				f(dir, g, k)
			}
		}
	}
	for r := 0; r < L; r++ {
		m[r][r] = perLine
	}
	m[L-1][L-1]--
	goal := encode(&m, L-1)

	// BFS over packed keys (internal/bfs's serial filler), each numbered
	// the first time it is met: its id indexes keys and the depths. The
	// key-to-id map is a flat open-addressing table.
	set := newKeySet(1 << 12)
	set.id(goal, 0)
	keys := []uint64{goal}
	depth, _, err := bfs.Serial(1, []int{0}, func(x int, out []int) []int {
		neighbours(decode(keys[x], &m), func(_, _ int, k uint64) {
			id, added := set.id(k, len(keys))
			if added {
				keys = append(keys, k)
			}
			out = append(out, id)
		})
		return out
	})
	if err != nil {
		return nil, fmt.Errorf("walking distance: %d lines of %d cells: %w", lines, perLine, err)
	}

	// Index patterns in key order so the table does not depend on BFS order.
	n := len(keys)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	sorted := make([]uint64, n)
	t := &WD{Lines: L, PerLine: perLine, Dist: make([]uint8, n), Link: make([]uint32, n*2*L), keys: sorted}
	for i, o := range order {
		sorted[i] = keys[o]
		t.Dist[i] = depth[o]
	}
	index := t.lookup
	for i := range t.Link {
		t.Link[i] = NoLink
	}
	for p := 0; p < n; p++ {
		neighbours(decode(sorted[p], &m), func(dir, g int, k uint64) {
			t.Link[(p*2+dir)*L+g] = index(k)
		})
	}
	t.Goal = index(goal)
	return t, nil
}

// Index returns the pattern index of a board along this axis: line[i] and
// goal[i] are the current and goal line of tile i (blank excluded), and
// blankLine the blank's current line. It is for search roots, not per node.
func (t *WD) Index(line, goal []int, blankLine int) (uint32, error) {
	var m [wdMaxLines][wdMaxLines]int
	L := t.Lines
	for i := range line {
		if line[i] < 0 || line[i] >= L || goal[i] < 0 || goal[i] >= L {
			return 0, fmt.Errorf("walking distance: line out of range")
		}
		m[line[i]][goal[i]]++
	}
	var k uint64
	for r := 0; r < L; r++ {
		for g := 0; g < L-1; g++ {
			k = k<<3 | uint64(m[r][g])
		}
	}
	k = k<<3 | uint64(blankLine)
	p := t.lookup(k)
	if p == NoLink {
		return 0, fmt.Errorf("walking distance: pattern not reachable")
	}
	return p, nil
}

func (t *WD) lookup(k uint64) uint32 {
	i := sort.Search(len(t.keys), func(j int) bool { return t.keys[j] >= k })
	if i == len(t.keys) || t.keys[i] != k {
		return NoLink
	}
	return uint32(i)
}

// keySet is an open-addressing map of uint64 keys to ids.
type keySet struct {
	slots []uint64
	ids   []int
	used  []bool
	n     int
}

func newKeySet(size int) *keySet {
	return &keySet{slots: make([]uint64, size), ids: make([]int, size), used: make([]bool, size)}
}

// id is k's id, or next, which k gets, when k is new (added).
func (s *keySet) id(k uint64, next int) (id int, added bool) {
	if 2*(s.n+1) > len(s.slots) {
		old, oldIDs, oldUsed := s.slots, s.ids, s.used
		s.slots, s.ids, s.used, s.n = make([]uint64, 2*len(old)), make([]int, 2*len(old)), make([]bool, 2*len(old)), 0
		for i, u := range oldUsed {
			if u {
				s.id(old[i], oldIDs[i])
			}
		}
	}
	mask := uint64(len(s.slots) - 1)
	for i := mix(k) & mask; ; i = (i + 1) & mask {
		if !s.used[i] {
			s.used[i], s.slots[i], s.ids[i] = true, k, next
			s.n++
			return next, true
		}
		if s.slots[i] == k {
			return s.ids[i], false
		}
	}
}

func mix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	return k
}
