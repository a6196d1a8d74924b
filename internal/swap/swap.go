// Package swap solves 0/1 transposition ("swap") boards exactly: one
// move swaps two orthogonally adjacent cells, and the goal is a 0/1 pattern
// with the same number of ones (the puzzle's standard goal puts the ones in
// the first cells row-major).
//
// Why the answer is a matching. A swap of two equal values changes nothing,
// so in a shortest solution every swap exchanges a 1 with a 0 and moves
// exactly one "1" by one step. Following each one through the solution
// pairs the ones with the goal cells, and each one travels at least its
// Manhattan distance: the minimum-cost perfect matching of ones to goal
// cells with Manhattan costs is a lower bound. Solve attains it, so it is
// the distance.
//
// How it is computed. The matching is a transportation problem on the grid
// graph (every grid edge costs 1, so grid shortest paths are Manhattan
// distances): surplus cells (board 1, goal 0) send one unit each to deficit
// cells (board 0, goal 1). Cells already right need not take part: with a
// metric cost, a one sitting on a goal cell can be matched to that cell in
// some optimal matching (if p on goal g is matched to g' and q to g,
// rematching p→g, q→g' costs d(q,g') ≤ d(q,p)+d(p,g'), no more), so
// only the cells where board and goal differ carry supply or demand.
//
// The minimum-cost flow is found by primal-dual successive shortest paths
// on the grid itself (Θ(cells) arcs, never the k² matching costs): a
// bucketed Dijkstra on reduced costs moves the node potentials so that
// the shortest augmenting paths have zero reduced cost, then a maximum
// flow with distance labels (ISAP) saturates those arcs. The shortest augmenting
// cost never exceeds the board's diameter and only grows, so a cold start
// needs at most rows+cols phases; large boards instead first solve the
// board coarsened by 2×2 blocks (recursively) and start from its doubled
// potentials, which leaves a handful of phases per level. Any potentials
// with non-negative reduced costs are a valid start for the zero flow, so
// the warm start affects speed, never the answer (the tests run every
// oracle with and without it).
//
// How moves are produced (the seed's relabelling argument, made concrete).
// The optimal flow has no cycles (every edge costs 1), so it splits into
// paths, one per surplus cell, of total length equal to the cost. For one
// path s=v0..vL=t with a 1 on s and a 0 on t, the ones on v0..vL-1 are
// shifted one slot along the path: the last of them slides forward through
// zeros into t, the one before it into the slot just vacated, and so on.
// That takes exactly L swaps, each a 1 with a 0, and leaves every cell but
// s and t as it was, so paths can be played one after another in any order.
package swap

import (
	"fmt"
	"sync"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

var pool = sync.Pool{New: func() any { return new(solver) }}

// Distance returns the minimal number of adjacent swaps turning board into
// goal (both row-major 0/1, same length rows*cols, same count of ones); the
// error wraps puzzle.ErrMalformed if shapes or ones differ or values are not
// 0/1.
func Distance(rows, cols int, board, goal []uint8) (int, error) {
	k, err := check(rows, cols, board, goal)
	if err != nil {
		return 0, err
	}
	if k == 0 {
		return 0, nil
	}
	s := pool.Get().(*solver)
	defer pool.Put(s)
	if err := s.load(rows, cols, board, goal); err != nil {
		return 0, err
	}
	return s.cost(), nil
}

// Solve returns a shortest move list: puzzle.Move with Dir Right or Down,
// Line the 0-based row and Col the 0-based column of the left or top cell of
// the swapped pair. Its length is exactly Distance.
func Solve(rows, cols int, board, goal []uint8) ([]puzzle.Move, error) {
	k, err := check(rows, cols, board, goal)
	if err != nil {
		return nil, err
	}
	if k == 0 {
		return []puzzle.Move{}, nil
	}
	s := pool.Get().(*solver)
	defer pool.Put(s)
	if err := s.load(rows, cols, board, goal); err != nil {
		return nil, err
	}
	return s.moves(board, make([]puzzle.Move, 0, s.cost()))
}

// check validates the input and returns the number of surplus cells
// (board 1, goal 0).
func check(rows, cols int, board, goal []uint8) (int, error) {
	if rows < 1 || cols < 1 || rows > puzzle.MaxSwapSide || cols > puzzle.MaxSwapSide {
		return 0, fmt.Errorf("swap board %dx%d: sides must be between 1 and %d: %w", rows, cols, puzzle.MaxSwapSide, puzzle.ErrMalformed)
	}
	n := rows * cols
	if len(board) != n {
		return 0, fmt.Errorf("swap board %dx%d: board has %d cells, want %d: %w", rows, cols, len(board), n, puzzle.ErrMalformed)
	}
	if len(goal) != n {
		return 0, fmt.Errorf("swap board %dx%d: goal has %d cells, want %d: %w", rows, cols, len(goal), n, puzzle.ErrMalformed)
	}
	ones, goalOnes, surplus := 0, 0, 0
	for i := range n {
		b, g := board[i], goal[i]
		if b > 1 {
			return 0, fmt.Errorf("swap board: board cell row %d col %d is %d, want 0 or 1: %w", i/cols+1, i%cols+1, b, puzzle.ErrMalformed)
		}
		if g > 1 {
			return 0, fmt.Errorf("swap board: goal cell row %d col %d is %d, want 0 or 1: %w", i/cols+1, i%cols+1, g, puzzle.ErrMalformed)
		}
		ones += int(b)
		goalOnes += int(g)
		surplus += int(b &^ g)
	}
	if ones != goalOnes {
		return 0, fmt.Errorf("swap board: board has %d ones, goal has %d: %w", ones, goalOnes, puzzle.ErrMalformed)
	}
	return surplus, nil
}
