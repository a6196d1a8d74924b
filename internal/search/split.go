package search

import (
	"errors"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// ErrPrefix is returned for a subtree whose prefix is not a node of the
// iteration: a move that is impossible, pruned as a duplicate, or that
// leads beyond the bound.
var ErrPrefix = errors.New("split search: prefix is not a node of the iteration")

// A split search: one IDA* iteration cut, at a depth of the
// tree, into subtrees that other processes search, each named by the
// moves from the root to its node. A Splitter is a search that can do it;
// the coordination (which iteration, which subtrees are answered) is the
// caller's.

// Splitter is a tree search whose iterations can be split into subtrees.
// Its methods are safe for concurrent use.
type Splitter interface {
	// Root is the admissible bound of cells: the first iteration's bound
	// and the lower bound proved before any iteration.
	Root(cells []uint8) (int, error)
	// Frontier walks the iteration to bound down to the shallowest depth,
	// from from on, that holds at least want subtrees.
	Frontier(cells []uint8, bound, from int, want int64, b Budget) (Frontier, error)
	// SearchSubtree searches the subtree below the node that prefix
	// reaches from cells, to bound, as the unsplit iteration would.
	SearchSubtree(cells []uint8, prefix []uint8, bound int, b Budget) (Subtree, error)
	// Expand walks the subtree below prefix down to depth: the walk
	// counts the prefix's node and those above depth, and the subtrees at
	// depth it returns expand, with it, exactly the subtree's nodes.
	Expand(cells []uint8, prefix []uint8, bound, depth int, b Budget) (Frontier, error)
	// Moves are the puzzle moves of a solution's path.
	Moves(path []uint8) []puzzle.Move
	// Name is the searcher, for a Result's solver field.
	Name() string
}

// Frontier is the top of one iteration: the subtrees at Depth, or, when
// the walk above Depth was the whole iteration (Done), its outcome.
type Frontier struct {
	Depth    int       // the split depth: every prefix has this many moves
	Subtrees [][]uint8 // the prefixes, in the order the unsplit search meets them
	Above    int64     // nodes above Depth (the unsplit iteration's share there)
	Walked   int64     // nodes of every walk made to choose Depth (its cost)
	Next     int       // the least f above the bound of the nodes cut above Depth
	Done     bool      // no subtree to search: Pass says how the iteration ended
	Pass     Pass
}

// Subtree is what the search of one subtree found.
type Subtree struct {
	Nodes   int64   // nodes of the subtree, its own node included
	Next    int     // the least f above the bound in it (NoNext: none)
	OK      bool    // the goal was reached
	Stopped bool    // the budget ran out first
	Path    []uint8 // the solution from the root (the prefix included), when OK
}
