package puzzle

import (
	"testing"
)

func mustSpec(t testing.TB, s string) Spec {
	t.Helper()
	sp, err := ParseSpec(s)
	if err != nil {
		t.Fatalf("ParseSpec(%q): %v", s, err)
	}
	return sp
}

func mustParse(t testing.TB, sp Spec, text string) State {
	t.Helper()
	st, err := Parse(sp, text)
	if err != nil {
		t.Fatalf("Parse(%s, %q): %v", sp, text, err)
	}
	return st
}

// key packs a board of at most 16 cells with values below 16.
func key(c []uint8) uint64 {
	var k uint64
	for _, v := range c {
		k = k<<4 | uint64(v)
	}
	return k
}

// allMoves lists every move of sp regardless of legality, built by hand
// (not by LegalMoves) so that the BFS oracle does not trust it; a family
// it does not know is walked by its LegalMoves from the goal.
func allMoves(sp Spec) []Move {
	var ms []Move
	switch sp.Kind {
	case Sliding:
		ms = []Move{{Dir: Up}, {Dir: Down}, {Dir: Left}, {Dir: Right}}
	case Loopover:
		for r := 0; r < sp.Rows; r++ {
			ms = append(ms, Move{Dir: Left, Line: r}, Move{Dir: Right, Line: r})
		}
		for c := 0; c < sp.Cols; c++ {
			ms = append(ms, Move{Dir: Up, Line: c}, Move{Dir: Down, Line: c})
		}
	case Swap:
		for r := 0; r < sp.Rows; r++ {
			for c := 0; c < sp.Cols; c++ {
				if c+1 < sp.Cols {
					ms = append(ms, Move{Dir: Right, Line: r, Col: c})
				}
				if r+1 < sp.Rows {
					ms = append(ms, Move{Dir: Down, Line: r, Col: c})
				}
			}
		}
	default:
		ms = LegalMoves(Goal(sp))
	}
	return ms
}

// bfs returns the distance of every state reachable from start, keyed by
// key(cells), and the number of states at each depth.
func bfs(t testing.TB, start State) (map[uint64]int, []int) {
	t.Helper()
	moves := allMoves(start.Spec)
	dist := map[uint64]int{key(start.Cells): 0}
	counts := []int{1}
	frontier := []State{start}
	for d := 1; len(frontier) > 0; d++ {
		var next []State
		for _, s := range frontier {
			for _, m := range moves {
				n := s.Clone()
				if n.Apply(m) != nil {
					continue
				}
				k := key(n.Cells)
				if _, seen := dist[k]; seen {
					continue
				}
				dist[k] = d
				next = append(next, n)
			}
		}
		if len(next) > 0 {
			counts = append(counts, len(next))
		}
		frontier = next
	}
	return dist, counts
}

// permutations calls f with every permutation of c (Heap's algorithm); f
// must not keep the slice.
func permutations(c []uint8, f func([]uint8)) {
	n := len(c)
	idx := make([]int, n)
	f(c)
	for i := 0; i < n; {
		if idx[i] < i {
			if i%2 == 0 {
				c[0], c[i] = c[i], c[0]
			} else {
				c[idx[i]], c[i] = c[i], c[idx[i]]
			}
			f(c)
			idx[i]++
			i = 0
		} else {
			idx[i] = 0
			i++
		}
	}
}

func factorial(n int) int {
	f := 1
	for i := 2; i <= n; i++ {
		f *= i
	}
	return f
}
