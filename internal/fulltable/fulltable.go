// Package fulltable computes exact distance tables of small permutation puzzles
// (sliding and Loopover boards of at most 12 cells) by a level-synchronous
// breadth-first search from the goal over every reachable state, and solves
// optimally from them by descent.
//
// The table stores 4 bits per state: the distance modulo 15, with 15
// marking "not reached yet" during the build. Neighbours of a state at
// distance d are at d−1, d or d+1, three distinct residues, so a neighbour
// holding (v−1) mod 15 is exactly one move closer: descent needs no more.
// When the deepest state is under 15 moves the entry is the distance itself.
package fulltable

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// modulus: distances are stored mod 15, so the 16th nibble value is free
// for "unvisited" (internal/bfs's Wrap).
const modulus = 15

// Table is the exact distance of every reachable state of one puzzle. It
// is read-only once built and safe for concurrent use.
type Table struct {
	Spec puzzle.Spec
	// Packed holds one 4-bit entry per state index (see Index): entry i is
	// bits 4·(i mod 16) … of Packed[i/16] (on little-endian machines that is
	// byte i/2, low nibble first). The value is the distance mod 15; padding
	// entries past Size() are 15.
	Packed []uint64
	// Counts[d] is the number of states at distance d; len(Counts)−1 is the
	// deepest distance.
	Counts []int64

	sp *space
}

// Build runs the breadth-first search for spec on every core
// (GOMAXPROCS workers). Boards of up to 10 cells are quick; the 12-cell
// ones hold 120 MB (sliding 3x4) or 240 MB (Loopover 3x4) and take a while
// (docs/BENCHMARKS.md). Errors wrap puzzle.ErrMalformed for
// swap boards and boards of more than MaxCells cells.
func Build(spec puzzle.Spec) (*Table, error) {
	return BuildContext(context.Background(), spec)
}

// BuildContext is Build, stopping with ctx's error when it is cancelled
// (checked every few thousand states, so large builds stop promptly).
func BuildContext(ctx context.Context, spec puzzle.Spec) (*Table, error) {
	if err := supported(spec); err != nil {
		return nil, err
	}
	t := &Table{Spec: spec, sp: newSpace(spec)}
	if err := t.build(ctx); err != nil {
		return nil, fmt.Errorf("bfs %s: %w", spec, err)
	}
	return t, nil
}

func supported(spec puzzle.Spec) error {
	if err := spec.Validate(); err != nil {
		return fmt.Errorf("bfs: %w", err)
	}
	switch spec.Family().SpaceIndex() {
	case puzzle.BlankAndTiles, puzzle.PieceOrder: // the indexes space implements
	default:
		return fmt.Errorf("bfs %s: no whole-space index for %s boards (only sliding and loopover boards have BFS tables): %w",
			spec, spec.Family().Name(), puzzle.ErrMalformed)
	}
	if spec.Cells() > MaxCells {
		return fmt.Errorf("bfs %s: %d cells, at most %d fit a full table: %w", spec, spec.Cells(), MaxCells, puzzle.ErrMalformed)
	}
	return nil
}

// New wraps a table built earlier (for example read back from a file):
// packed and counts as in Table. It checks only the sizes and that counts
// sum to the number of states; the caller vouches for the contents.
func New(spec puzzle.Spec, packed []uint64, counts []int64) (*Table, error) {
	if err := supported(spec); err != nil {
		return nil, err
	}
	sp := newSpace(spec)
	if want := (sp.size + 15) / 16; uint64(len(packed)) != want {
		return nil, fmt.Errorf("bfs %s: table has %d words, want %d", spec, len(packed), want)
	}
	var total int64
	for _, n := range counts {
		total += n
	}
	if len(counts) == 0 || counts[0] != 1 || uint64(total) != sp.size {
		return nil, fmt.Errorf("bfs %s: depth counts sum to %d, want %d states with one goal", spec, total, sp.size)
	}
	return &Table{Spec: spec, Packed: packed, Counts: counts, sp: sp}, nil
}

// MaxDepth is the largest distance of any state (God's number of the board).
func (t *Table) MaxDepth() int { return len(t.Counts) - 1 }

// Size is the number of reachable states, which is also the number of
// table entries (the index has no holes).
func (t *Table) Size() uint64 { return t.sp.size }

// Index is the table index of a board, and false if cells is not a
// reachable state of the table's puzzle.
func (t *Table) Index(cells []uint8) (uint64, bool) {
	b, ok, reach := t.sp.check(cells)
	if !ok || !reach {
		return 0, false
	}
	return t.sp.rank(&b), true
}

// Cells writes the board of index idx (< Size()) into dst, which must hold
// Spec.Cells() cells.
func (t *Table) Cells(idx uint64, dst []uint8) {
	var b board
	t.sp.unrank(idx, &b)
	copy(dst, b[:t.sp.n])
}

func (t *Table) entry(idx uint64) uint8 {
	return uint8(t.Packed[idx>>4]>>((idx&15)<<2)) & 15
}

// Distance is the number of moves of an optimal solution of cells, and
// false if cells is not a reachable state of the table's puzzle.
func (t *Table) Distance(cells []uint8) (int, bool) {
	b, ok, reach := t.sp.check(cells)
	if !ok || !reach {
		return 0, false
	}
	idx := t.sp.rank(&b)
	if t.MaxDepth() < modulus {
		return int(t.entry(idx)), true
	}
	// The residue alone is ambiguous: walk down to the goal and count.
	d := 0
	for e := t.entry(idx); idx != t.sp.goalIndex; d++ {
		idx, e, _ = t.down(&b, idx, e)
	}
	return d, true
}

// Solve returns an optimal move list for cells: from the state it
// repeatedly takes a move to a neighbour one step closer to the goal.
// Errors wrap puzzle.ErrMalformed (not a board of this puzzle) or
// puzzle.ErrUnsolvable (a board that cannot reach the goal).
func (t *Table) Solve(cells []uint8) ([]puzzle.Move, error) {
	b, ok, reach := t.sp.check(cells)
	if !ok {
		return nil, fmt.Errorf("bfs %s: %v is not a board of %d cells with each piece once: %w", t.Spec, cells, t.sp.n, puzzle.ErrMalformed)
	}
	if !reach {
		return nil, fmt.Errorf("bfs %s: %v: %w", t.Spec, cells, puzzle.ErrUnsolvable)
	}
	idx := t.sp.rank(&b)
	// The answer is at most MaxDepth moves: one allocation instead of a
	// slice grown six times over an 8-puzzle's 22 moves.
	n := min(t.MaxDepth(), 1024)
	if t.MaxDepth() < modulus {
		n = int(t.entry(idx)) // the exact length
	}
	out := make([]puzzle.Move, 0, n)
	for e := t.entry(idx); idx != t.sp.goalIndex; {
		var m puzzle.Move
		idx, e, m = t.down(&b, idx, e)
		out = append(out, m)
	}
	return out, nil
}

// down moves b (of index idx, entry e) to a neighbour one step closer to
// the goal and returns the neighbour's index, its entry and the move. idx
// must not be the goal. The caller passes the entry it already has (the
// last step's): the table's reads are most of the walk's time.
func (t *Table) down(b *board, idx uint64, e uint8) (uint64, uint8, puzzle.Move) {
	s := t.sp
	want := (e + modulus - 1) % modulus
	if s.sliding {
		// The tries in a fixed order (up, down, left, right: the tests'
		// slidingTarget), so every answer is reproducible; the blank's row
		// and column are divided out once a step, not once a try (hardware
		// divides are a large part of the walk). Sideways the tile sequence
		// is unchanged: the neighbour's index is idx ± stride (see space),
		// no rank to compute.
		blank := s.blankOf(b)
		row, col := blank/s.cols, blank%s.cols
		for d := puzzle.Up; d <= puzzle.Right; d++ {
			var nb int
			var n uint64
			switch d {
			case puzzle.Up: // the tile below moves up
				if row+1 >= s.rows {
					continue
				}
				nb = blank + s.cols
			case puzzle.Down:
				if row == 0 {
					continue
				}
				nb = blank - s.cols
			case puzzle.Left: // the tile to the right moves left
				if col+1 >= s.cols {
					continue
				}
				nb, n = blank+1, idx+uint64(s.stride)
			case puzzle.Right:
				if col == 0 {
					continue
				}
				nb, n = blank-1, idx-uint64(s.stride)
			}
			if d == puzzle.Up || d == puzzle.Down {
				b[blank], b[nb] = b[nb], 0
				n = s.rankSliding(b)
				b[nb], b[blank] = b[blank], 0
			}
			if t.entry(n) == want {
				b[blank], b[nb] = b[nb], 0
				return n, want, puzzle.Move{Dir: d}
			}
		}
	} else {
		for _, m := range s.moves {
			s.shift(b, m)
			if n := s.rankLoopover(b); t.entry(n) == want {
				return n, want, m
			}
			s.unshift(b, m)
		}
	}
	// Every non-goal state of a finished BFS has a closer neighbour.
	panic(fmt.Sprintf("bfs %s: index %d has no neighbour one step closer: corrupt table", t.Spec, idx))
}

// SampleAtDepth draws k distinct states at distance exactly d uniformly
// (reservoir sampling over one scan), as indices; all of them when fewer
// than k exist. It holds k indices, never the whole depth.
func (t *Table) SampleAtDepth(d, k int, rng *rand.Rand) []uint64 {
	if d < 0 || d > t.MaxDepth() || k <= 0 {
		return nil
	}
	out := make([]uint64, 0, min(int64(k), t.Counts[d]))
	want := uint8(d % modulus)
	cells := make([]uint8, t.sp.n)
	seen := 0
	for idx := range t.Size() {
		if t.entry(idx) != want {
			continue
		}
		if t.MaxDepth() >= modulus {
			t.Cells(idx, cells)
			if got, ok := t.Distance(cells); !ok || got != d {
				continue
			}
		}
		seen++
		if len(out) < k {
			out = append(out, idx)
		} else if j := rng.IntN(seen); j < k {
			out[j] = idx
		}
	}
	return out
}
