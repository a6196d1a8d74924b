package pdb

import (
	_ "embed"
	"strings"
	"sync"
)

// fsm is a pruning machine over move directions: a path is searched only
// while the machine accepts it. allow[s] has bit d set when direction d
// may follow in state s, and next[s][d] is the state after it. State 0 is
// the start.
type fsm struct {
	allow []uint8
	next  [][4]int32
}

// newFSM is the Aho–Corasick automaton of the forbidden move strings: it
// is in a dead state (left out) as soon as the path ends with one of them.
func newFSM(forbidden [][]uint8) *fsm {
	type node struct {
		child [4]int32
		fail  int32
		dead  bool
	}
	nodes := []node{{child: [4]int32{-1, -1, -1, -1}}}
	for _, s := range forbidden {
		at := int32(0)
		for _, d := range s {
			if nodes[at].child[d] < 0 {
				nodes[at].child[d] = int32(len(nodes))
				nodes = append(nodes, node{child: [4]int32{-1, -1, -1, -1}})
			}
			at = nodes[at].child[d]
		}
		nodes[at].dead = true
	}
	// Breadth first: a node's fail link is the longest proper suffix of
	// its string that is in the trie; missing children become the fail
	// link's transition.
	queue := []int32{}
	for d := range 4 {
		if c := nodes[0].child[d]; c >= 0 {
			queue = append(queue, c)
		} else {
			nodes[0].child[d] = 0
		}
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		nodes[u].dead = nodes[u].dead || nodes[nodes[u].fail].dead
		for d := range 4 {
			c := nodes[u].child[d]
			if c >= 0 {
				nodes[c].fail = nodes[nodes[u].fail].child[d]
				queue = append(queue, c)
			} else {
				nodes[u].child[d] = nodes[nodes[u].fail].child[d]
			}
		}
	}
	// Number the live nodes, the root first.
	id := make([]int32, len(nodes))
	live := int32(0)
	for i := range nodes {
		id[i] = -1
		if !nodes[i].dead {
			id[i] = live
			live++
		}
	}
	m := &fsm{allow: make([]uint8, live), next: make([][4]int32, live)}
	for i := range nodes {
		if nodes[i].dead {
			continue
		}
		s := id[i]
		for d := range 4 {
			if t := nodes[i].child[d]; !nodes[t].dead {
				m.allow[s] |= 1 << d
				m.next[s][d] = id[t]
			}
		}
	}
	return m
}

// Duplicate paths. Two move strings with the same effect (the same blank
// displacement and the same permutation of the tiles it passes) lead from
// a state to the same state. If string B has such a twin A that is
// shorter, or as long and lexicographically smaller, and A's blank stays
// within the rectangle B's blank spans (so A is possible wherever B is),
// then every path through B has a shortlex-smaller twin, and the
// shortlex-least optimal solution contains no such B: pruning every path
// that contains one keeps it, and with it every prefix of f ≤ optimum, so
// IDA* stays optimal (and its bound updates never pass the optimum). The
// strings are found on an unbounded board, so they hold on every board.
// Moves are tile directions (the blank goes the other way); a move undone
// ("UD") is the length-2 case.

// duplicates.txt lists every minimal duplicate string up to 12 moves
// (2,540 of them, in shortlex order; TestDuplicateStrings regenerates it):
// longer ones prune little more (a 14-move list cuts Korf's 100 by about
// 2% more nodes for a machine seven times larger).
//
//go:embed duplicates.txt
var duplicatesText string

var duplicateFSM = sync.OnceValue(func() *fsm {
	return newFSM(parseMoves(duplicatesText))
})

// parseMoves reads one move string per line in the letters of moveLetters
// ('#' lines are comments).
func parseMoves(text string) [][]uint8 {
	var out [][]uint8
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		s := make([]uint8, len(line))
		for i := range line {
			d := strings.IndexByte(moveLetters, line[i])
			if d < 0 {
				panic("pdb: bad move letter in duplicates.txt: " + line)
			}
			s[i] = uint8(d)
		}
		out = append(out, s)
	}
	return out
}

// moveLetters names the tile directions Up, Down, Left, Right.
const moveLetters = "UDLR"
