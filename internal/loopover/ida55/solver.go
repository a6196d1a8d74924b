// Package ida55 is the optimal 5×5 Loopover search over the walking
// distance of a table file (Kind, loopover-5x5-wd), maxed where
// loopover-5x5-p7 is built with that two-phase table read through 50
// symmetries of the torus (pattern.go). It is pure: no I/O.
package ida55

import (
	"fmt"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// The 5×5 walking-distance search, specialised: the general dfs serves
// every shape through per-move cell lists, variable line counts and an
// array of children sized for 8×8 that it clears at every node. Here the
// sizes are constants, a line's labels are read once for both directions,
// the line codes are 16-bit, the children of each depth live in the
// search's own buffer, and the fifth line's codes are not kept (dfs55).
// Same bound, same move rules, same order of children as dfs, so the same
// nodes (TestDFS55MatchesGeneral).

const nCodes55 = 126 // label multisets of a 5-cell line over 5 labels

// codes55 are the codes of the first four lines of an axis.
type codes55 [side - 1]uint16

// kid55 is a child within the bound: the changed axis's line codes and
// pattern index, its move, run and bound, and the axis's bound at the
// parent.
type kid55 struct {
	codes          codes55
	x              uint32
	m, run, h, old uint8
}

// kids55 is one depth's children: at most the five lines of each axis,
// both ways.
type kids55 [4 * side]kid55

// Solver is the 5×5 walking-distance search (dfs55) over one table for
// both axes, with the bound, move rules and order of children of
// loopover.Solver, maxed with a pattern bound where one is given. It is
// immutable and safe for concurrent use.
type Solver struct {
	g   *loopover.Solver // the general search over the same table
	pat *pat55           // nil: walking distance alone
}

// work is one 5×5 search: the general search's counters and path, and
// dfs55's per-depth children and their pattern states.
type work struct {
	loopover.Work
	pat *pat55
	k55 []kids55           // dfs55's children per depth
	n55 [][4 * side]node55 // and their pattern states, with a pattern bound
}

// New is the 5×5 search over wd (BuildWDTable's, e.g. a mapped table
// file; it is only read), which serves both axes.
func New(wd *loopover.WD) (*Solver, error) {
	g, err := loopover.NewWDSolverWith(side, side, wd, wd)
	if err != nil {
		return nil, err
	}
	return &Solver{g: g}, nil
}

// NewWithPattern is New maxed with a phase-1 table of the two-phase solver
// (six or seven pieces, e.g. the mapped file of loopover-5x5-p7; it is
// only read) through its first slots symmetries (1..200).
func NewWithPattern(wd *loopover.WD, pattern []byte, slots int) (*Solver, error) {
	s, err := New(wd)
	if err != nil {
		return nil, err
	}
	if s.pat, err = newPat55(pattern, slots); err != nil {
		return nil, err
	}
	return s, nil
}

// Prepare does nothing: the constructor was given every table. It is there
// for loopover.Optimal.
func (s *Solver) Prepare() {}

// Name describes the heuristic, for a Result's solver field.
func (s *Solver) Name() string {
	if s.pat != nil {
		return fmt.Sprintf("ida*(loopover-wd+p%d)", s.pat.k)
	}
	return s.g.Name()
}

// Moves converts a path of move codes to puzzle moves.
func (s *Solver) Moves(path []uint8) []puzzle.Move { return s.g.Moves(path) }
