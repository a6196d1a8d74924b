// Package familytest holds a toy puzzle family declared outside
// internal/puzzle, with the solver that answers it: the proof, run by its
// tests, that a family is its rules, its solver and their two
// declarations (puzzle.Declare, one solve.Entry), and that it then goes
// through parse, solve, replay and the pipeline with no other edit.
//
// The toy is the pancake stack: the cells of an R×C board, read row by
// row, are a stack of R·C pancakes of sizes 1..R·C from the top; a move
// "<k>F" flips the top k pancakes (2 ≤ k ≤ R·C), and the goal is the
// stack sorted, smallest on top. Every stack can be sorted.
package familytest

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"
)

// Kind is the pancake family's kind.
const Kind = puzzle.FirstDeclared

// MaxSide is the longest side of a board; the solver's table holds
// stacks of at most MaxTable.
const MaxSide = 4

// MaxTable is the largest stack the table solver answers (9! stacks).
const MaxTable = 9

// Pancake is the family's rules. A move is puzzle.Move{Line: k}: flip the
// top k.
type Pancake struct{}

// Declare adds the family to puzzle's table (idempotent).
func Declare() error { return puzzle.Declare(Pancake{}) }

func (Pancake) Kind() puzzle.Kind                         { return Kind }
func (Pancake) Name() string                              { return "pancake" }
func (Pancake) MaxSide() int                              { return MaxSide }
func (Pancake) TakesGoal() bool                           { return false }
func (Pancake) SpaceIndex() puzzle.SpaceIndex             { return puzzle.NoSpaceIndex }
func (Pancake) PathParity() bool                          { return false }
func (Pancake) CellRange(n int) (lo, hi int)              { return 1, n }
func (Pancake) Distinct() bool                            { return true }
func (Pancake) TileName(v int) string                     { return "pancake " + strconv.Itoa(v) }
func (Pancake) IsRun(string) bool                         { return false }
func (Pancake) RowRun(string, int) bool                   { return false }
func (Pancake) Letters() bool                             { return false }
func (Pancake) CellWant() string                          { return "a pancake size" }
func (Pancake) MoveBytes() int                            { return 3 }
func (Pancake) SelfInverse() bool                         { return true }
func (Pancake) Solvable(puzzle.State) error               { return nil }
func (Pancake) FixParity(puzzle.State)                    {}
func (p Pancake) GoalOfState(s puzzle.State) puzzle.State { return p.GoalOf(s.Spec) }

func (Pancake) Arrangements(sp puzzle.Spec) *big.Int {
	return new(big.Int).MulRange(1, int64(sp.Cells()))
}

// WriteState writes rows of numbers: "2 1 3/4 6 5".
func (Pancake) WriteState(b *strings.Builder, s puzzle.State) {
	for i, v := range s.Cells {
		switch {
		case i == 0:
		case i%s.Spec.Cols == 0:
			b.WriteByte('/')
		default:
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(int(v)))
	}
}

func (Pancake) GoalOf(sp puzzle.Spec) puzzle.State {
	c := make([]uint8, sp.Cells())
	for i := range c {
		c[i] = uint8(i + 1)
	}
	return puzzle.State{Spec: sp, Cells: c}
}

func (Pancake) IsGoal(c []uint8) bool {
	for i, v := range c {
		if v != uint8(i+1) {
			return false
		}
	}
	return true
}

func (p Pancake) CheckGoal(s, goal puzzle.State) error {
	if !slices.Equal(goal.Cells, p.GoalOf(s.Spec).Cells) {
		return fmt.Errorf("a pancake stack has one goal, sorted: %w", puzzle.ErrMalformed)
	}
	return nil
}

// AppendToken reads "<k>F" with an optional repeat count ("3F2").
func (Pancake) AppendToken(sp puzzle.Spec, ms []puzzle.Move, tok string) ([]puzzle.Move, error) {
	k, rest, ok := strings.Cut(strings.ToUpper(tok), "F")
	n, err := strconv.Atoi(k)
	if !ok || err != nil {
		return ms, fmt.Errorf("want <k>F (flip the top k), optionally with a repeat count (3F2): %w", puzzle.ErrMalformed)
	}
	if n < 2 || n > sp.Cells() {
		return ms, fmt.Errorf("flip of %d: a stack of %d flips 2 to %d: %w", n, sp.Cells(), sp.Cells(), puzzle.ErrMalformed)
	}
	count := 1
	if rest != "" {
		if count, err = strconv.Atoi(rest); err != nil || count < 1 || count > 99 {
			return ms, fmt.Errorf("repeat count %q: want 1..99: %w", rest, puzzle.ErrMalformed)
		}
	}
	for range count {
		ms = append(ms, puzzle.Move{Line: n})
	}
	return ms, nil
}

func (Pancake) AppendMove(dst []byte, m puzzle.Move) []byte {
	return append(strconv.AppendInt(dst, int64(m.Line), 10), 'F')
}

func (Pancake) ApplyMove(sp puzzle.Spec, c []uint8, m puzzle.Move) error {
	if m.Line < 2 || m.Line > len(c) {
		return fmt.Errorf("flip of %d on a stack of %d: %w", m.Line, len(c), puzzle.ErrIllegalMove)
	}
	slices.Reverse(c[:m.Line])
	return nil
}

func (p Pancake) ApplyAll(sp puzzle.Spec, c []uint8, ms []puzzle.Move) (int, error) {
	for i, m := range ms {
		if err := p.ApplyMove(sp, c, m); err != nil {
			return i, err
		}
	}
	return 0, nil
}

// LegalMoves: every flip, smallest first.
func (Pancake) LegalMoves(s puzzle.State) []puzzle.Move {
	var out []puzzle.Move
	for k := 2; k <= len(s.Cells); k++ {
		out = append(out, puzzle.Move{Line: k})
	}
	return out
}

// Walk never repeats the flip just made (which would undo it).
func (Pancake) Walk(s puzzle.State, rng *rand.Rand, length int, ms []puzzle.Move, record bool) []puzzle.Move {
	n, last := len(s.Cells), 0
	for range length {
		k := 2 + rng.IntN(n-1)
		if k == last && n > 2 {
			k = 2 + (k-2+1+rng.IntN(n-2))%(n-1)
		}
		slices.Reverse(s.Cells[:k])
		last = k
		if record {
			ms = append(ms, puzzle.Move{Line: k})
		}
	}
	return ms
}

// Entry is the solver registry's row for the family: a distance table
// of the whole stack, built by breadth-first search on first use.
func Entry() solve.Entry {
	return solve.Entry{
		Name:   "pancake table",
		Serves: func(sp puzzle.Spec, _ result.Mode) bool { return sp.Kind == Kind },
		New: func(sp puzzle.Spec) (search.Algorithm, error) {
			if sp.Cells() > MaxTable {
				return nil, fmt.Errorf("a stack of %d: the table holds stacks of at most %d", sp.Cells(), MaxTable)
			}
			return NewTable(sp), nil
		},
	}
}

// Table is the distance of every stack of one board, keyed by its cells.
type Table struct {
	dist map[string]uint8
}

// NewTable searches every stack of sp from the goal, breadth first (flips
// are their own inverses, so a distance from the goal is one to it).
func NewTable(sp puzzle.Spec) *Table {
	g := Pancake{}.GoalOf(sp).Cells
	t := &Table{dist: map[string]uint8{string(g): 0}}
	for frontier, d := [][]uint8{g}, uint8(1); len(frontier) > 0; d++ {
		var next [][]uint8
		for _, c := range frontier {
			for k := 2; k <= len(c); k++ {
				x := slices.Clone(c)
				slices.Reverse(x[:k])
				if _, seen := t.dist[string(x)]; !seen {
					t.dist[string(x)] = d
					next = append(next, x)
				}
			}
		}
		frontier = next
	}
	return t
}

// Answer descends the table: at each stack, a flip to one a move closer.
func (t *Table) Answer(req search.Request) (search.Answer, error) {
	c := slices.Clone(req.State.Cells)
	d, ok := t.dist[string(c)]
	if !ok {
		return search.Answer{}, fmt.Errorf("stack %v is not in the table", c)
	}
	a := search.Answer{Optimal: true, LowerBound: int(d), Solver: "pancake table", Nodes: 1}
	for d > 0 {
		step := 0
		for k := 2; k <= len(c) && step == 0; k++ {
			slices.Reverse(c[:k])
			a.Nodes++
			if t.dist[string(c)] == d-1 {
				step = k
			} else {
				slices.Reverse(c[:k])
			}
		}
		if step == 0 {
			return search.Answer{}, fmt.Errorf("stack %v at distance %d has no neighbour closer", c, d)
		}
		a.Moves = append(a.Moves, puzzle.Move{Line: step})
		d--
	}
	return a, nil
}

// Distance is the table's distance of a stack (−1: not a stack of it).
func (t *Table) Distance(c []uint8) int {
	if d, ok := t.dist[string(c)]; ok {
		return int(d)
	}
	return -1
}
