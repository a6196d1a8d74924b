package puzzle

import (
	"math/big"
	"math/rand/v2"
	"strings"
)

// Family is one puzzle family's rules, declared once in its own file
// (family_sliding.go, family_loopover.go, family_swap.go): limits, cell
// syntax, goal, solvability, move grammar, apply, format and scramble.
// How tessera treats a family's boards (routes, default budgets, chunk
// sizes, lanes) is policy, in internal/policy. The rest of the code asks a
// spec's family instead of switching on its kind; adding a family is one
// new file, a Kind and one row in families (docs/ARCHITECTURE.md lists
// what its policy and solver need besides).
//
// The unexported methods make the set closed: only this package declares
// families. Hot loops stay concrete: ApplyMoves, scrambles and walks make
// one call into the family, which loops over its own moves.
type Family interface {
	Kind() Kind
	// Name is the kind's word in a spec ("sliding" in "sliding:4x4").
	Name() string
	// MaxSide is the longest board side the family accepts.
	MaxSide() int
	// TakesGoal reports whether a state's goal depends on the state, so a
	// job or command may name its own target (swap boards: any board with
	// as many ones). The others have one goal per board shape.
	TakesGoal() bool
	// Arrangements is the number of distinct boards of the goal's cells,
	// solvable or not: what enumerating the whole space walks through.
	Arrangements(sp Spec) *big.Int
	// SpaceIndex is how internal/fulltable names every state of a board
	// small enough for an exact whole-space distance table, or NoSpaceIndex
	// when such tables do not apply to the family.
	SpaceIndex() SpaceIndex
	// PathParity reports whether every path from the goal to a state has
	// the parity of its distance, so a scramble walk's length may only be
	// changed by even steps.
	PathParity() bool
	// cellRange is the range of a cell's value on a board of n cells.
	cellRange(n int) (lo, hi int)
	// distinct: every value appears exactly once (a permutation board).
	distinct() bool
	// tileName names value v in an error message.
	tileName(v int) string
	// isRun reports whether tok is a run of one-character cells.
	isRun(tok string) bool
	// rowRun reports whether a row's only token is read character by
	// character.
	rowRun(tok string, cols int) bool
	// letters: single letters A.. name cells 1...
	letters() bool
	// cellWant is what a cell token should be, for an error message.
	cellWant() string
	// writeState appends the canonical text of a well-shaped board.
	writeState(b *strings.Builder, s State)

	goal(sp Spec) State
	stateGoal(s State) State
	isGoal(c []uint8) bool
	checkGoal(s, goal State) error
	solvable(s State) error

	appendToken(sp Spec, ms []Move, tok string) ([]Move, error)
	appendMove(dst []byte, m Move) []byte
	// moveBytes is a formatted move's usual length with its separator.
	moveBytes() int
	apply(sp Spec, c []uint8, m Move) error
	// applyMoves applies ms in order and on an illegal move returns its
	// index and error; s then holds the position before it.
	applyMoves(sp Spec, c []uint8, ms []Move) (int, error)
	legalMoves(s State) []Move
	// selfInverse: every move undoes itself (else its opposite direction
	// on the same line does).
	selfInverse() bool
	// fixParity turns a shuffled board s into a solvable one, keeping the
	// draw uniform over solvable boards.
	fixParity(s State)
	walk(s State, rng *rand.Rand, length int, ms []Move, record bool) []Move
}

// families is the fixed table of families, indexed by Kind: built from
// constants, never changed.
var families = [...]Family{Sliding: slidingRules, Loopover: loopoverRules, Swap: swapRules}

// facts are the plain facts of a family, one literal in its file; a
// family embeds them for the methods of Family that only report them.
type facts struct {
	kind       Kind
	name       string
	maxSide    int
	takesGoal  bool
	space      SpaceIndex
	pathParity bool
	unique     bool   // distinct: each value once
	letterRuns bool   // letters: single letters name cells
	involution bool   // selfInverse: every move undoes itself
	want       string // cellWant
	moveLen    int    // moveBytes
}

func (f facts) Kind() Kind             { return f.kind }
func (f facts) Name() string           { return f.name }
func (f facts) MaxSide() int           { return f.maxSide }
func (f facts) TakesGoal() bool        { return f.takesGoal }
func (f facts) SpaceIndex() SpaceIndex { return f.space }
func (f facts) PathParity() bool       { return f.pathParity }
func (f facts) distinct() bool         { return f.unique }
func (f facts) letters() bool          { return f.letterRuns }
func (f facts) selfInverse() bool      { return f.involution }
func (f facts) cellWant() string       { return f.want }
func (f facts) moveBytes() int         { return f.moveLen }

// SpaceIndex names a perfect index of a family's reachable states, which
// internal/fulltable implements one by one: a family whose states need
// another gets a new value here and its own index there, never a
// neighbour's by default.
type SpaceIndex uint8

const (
	// NoSpaceIndex: no whole-space tables for the family.
	NoSpaceIndex SpaceIndex = iota
	// BlankAndTiles: the blank's cell and the rank of the tiles' order
	// (half of the orders are reachable for each blank cell).
	BlankAndTiles
	// PieceOrder: the rank of the pieces' order (half of them on odd×odd
	// boards, where every move is an even permutation).
	PieceOrder
)

// Family returns the rules of kind k, or nil for a kind that names no
// family (the zero Kind or one out of range).
func (k Kind) Family() Family {
	if int(k) >= len(families) {
		return nil
	}
	return families[k]
}

// Family returns the rules of s's kind, or nil when it names none; a spec
// that passed Validate always has one.
func (s Spec) Family() Family { return s.Kind.Family() }

// arrangementsOf is n! as a big integer: the arrangements of n distinct cells.
func arrangementsOf(n int) *big.Int { return new(big.Int).MulRange(1, int64(n)) }

// cellCount is the number of cells of sp, 0 for a negative shape.
func cellCount(sp Spec) int {
	n := sp.Cells()
	if n < 0 || sp.Rows < 0 {
		return 0
	}
	return n
}
