package puzzle

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Family is one puzzle family's rules: limits, cell syntax, goal,
// solvability, move grammar, apply, format and scramble. The built-in
// families are declared once each in their own file (family_sliding.go,
// family_loopover.go, family_swap.go); a family outside this package is
// added with Declare. How tessera treats a family's boards (routes,
// default budgets, chunk sizes, lanes) is policy, in internal/policy. The
// rest of the code asks a spec's family instead of switching on its kind
// (docs/ARCHITECTURE.md, "To add …", lists what a new family touches).
//
// Hot loops stay concrete: ApplyMoves, scrambles and walks make one call
// into the family, which loops over its own moves. The methods below
// PathParity are the family-neutral code's questions (parse, format,
// apply, verify, scramble); they are not meant to be called from outside
// this package, which checks its arguments first (a well-shaped board of
// the family, moves on the board).
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
	// CellRange is the range of a cell's value on a board of n cells.
	CellRange(n int) (lo, hi int)
	// Distinct: every value appears exactly once (a permutation board).
	Distinct() bool
	// TileName names value v in an error message.
	TileName(v int) string
	// IsRun reports whether tok is a run of one-character cells.
	IsRun(tok string) bool
	// RowRun reports whether a row's only token is read character by
	// character.
	RowRun(tok string, cols int) bool
	// Letters: single letters A.. name cells 1...
	Letters() bool
	// CellWant is what a cell token should be, for an error message.
	CellWant() string
	// WriteState appends the canonical text of a well-shaped board.
	WriteState(b *strings.Builder, s State)

	// GoalOf is the goal of the board shape sp; GoalOfState the goal of
	// s (its own when the family TakesGoal).
	GoalOf(sp Spec) State
	GoalOfState(s State) State
	// IsGoal reports whether a well-shaped board is a goal.
	IsGoal(c []uint8) bool
	// CheckGoal checks that goal is a target s may be solved to.
	CheckGoal(s, goal State) error
	// Solvable is nil when s can reach its goal, else an error wrapping
	// ErrUnsolvable that says why.
	Solvable(s State) error

	// AppendToken appends the moves of one whitespace-free token of a
	// move string (a repeat count included), or an error wrapping
	// ErrMalformed that names the problem.
	AppendToken(sp Spec, ms []Move, tok string) ([]Move, error)
	// AppendMove appends a move's canonical token: what AppendToken reads.
	AppendMove(dst []byte, m Move) []byte
	// MoveBytes is a formatted move's usual length with its separator.
	MoveBytes() int
	// ApplyMove makes one move on the board c in place, or returns an
	// error wrapping ErrIllegalMove and leaves c unchanged.
	ApplyMove(sp Spec, c []uint8, m Move) error
	// ApplyAll applies ms in order and on an illegal move returns its
	// index and error; s then holds the position before it.
	ApplyAll(sp Spec, c []uint8, ms []Move) (int, error)
	// LegalMoves lists every move that can be made from s.
	LegalMoves(s State) []Move
	// SelfInverse: every move undoes itself (else its opposite direction
	// on the same line does).
	SelfInverse() bool
	// FixParity turns a shuffled board s into a solvable one, keeping the
	// draw uniform over solvable boards.
	FixParity(s State)
	// Walk makes length random moves on s in place, never undoing the
	// move just made where another exists, appending them to ms when
	// record is set.
	Walk(s State, rng *rand.Rand, length int, ms []Move, record bool) []Move
}

// The built-in families' kinds.
const (
	Sliding Kind = iota + 1
	Loopover
	Swap
)

// builtin is the fixed table of the built-in families, indexed by Kind:
// built from constants, never changed.
var builtin = [...]Family{Sliding: slidingRules, Loopover: loopoverRules, Swap: swapRules}

// FirstDeclared is the first Kind a family declared outside this package
// may take; the kinds below are the built-in families' and room for more.
const FirstDeclared Kind = 64

// declared holds the families Declare added, indexed by Kind −
// FirstDeclared: copied on each Declare, so that readers never lock.
var declared atomic.Pointer[[]Family]

// Declare adds a family defined outside this package (a plug-in, a test's
// toy puzzle), so that its specs parse ("name:RxC") and its boards parse,
// format, apply, verify and scramble like the built-in ones. Call it at
// start, before any spec of the family is used (from a main's set-up or a
// test's TestMain), as the solver registry is built: a family is not
// meant to come and go. Its Kind must be FirstDeclared or above, its name
// a word of lower-case letters; declaring the same family again changes
// nothing, and another family under a kind or name in use is refused.
func Declare(f Family) error {
	if f == nil {
		return errors.New("declare a puzzle family: nil")
	}
	k, name := f.Kind(), f.Name()
	switch {
	case k < FirstDeclared:
		return fmt.Errorf("declare puzzle family %q: kind %d is reserved for the built-in families (use %d or above)", name, k, FirstDeclared)
	case name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz") != "":
		return fmt.Errorf("declare puzzle family %q: a name is a word of lower-case letters", name)
	case f.MaxSide() < MinSide:
		return fmt.Errorf("declare puzzle family %q: its longest side %d is below %d", name, f.MaxSide(), MinSide)
	}
	declareMu.Lock()
	defer declareMu.Unlock()
	for _, g := range allFamilies() {
		switch {
		case g == f:
			return nil
		case g.Kind() == k:
			return fmt.Errorf("declare puzzle family %q: kind %d is family %q's", name, k, g.Name())
		case g.Name() == name:
			return fmt.Errorf("declare puzzle family %q: the name is taken", name)
		}
	}
	var now []Family
	if d := declared.Load(); d != nil {
		now = slices.Clone(*d)
	}
	for int(k-FirstDeclared) >= len(now) {
		now = append(now, nil)
	}
	now[k-FirstDeclared] = f
	declared.Store(&now)
	return nil
}

// declareMu serialises Declare's copy and store.
var declareMu sync.Mutex

// allFamilies lists every family, built-in first, in the order of kinds.
func allFamilies() []Family {
	var out []Family
	for _, f := range builtin {
		if f != nil {
			out = append(out, f)
		}
	}
	if d := declared.Load(); d != nil {
		for _, f := range *d {
			if f != nil {
				out = append(out, f)
			}
		}
	}
	return out
}

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
func (f facts) Distinct() bool         { return f.unique }
func (f facts) Letters() bool          { return f.letterRuns }
func (f facts) SelfInverse() bool      { return f.involution }
func (f facts) CellWant() string       { return f.want }
func (f facts) MoveBytes() int         { return f.moveLen }

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
	if int(k) < len(builtin) {
		return builtin[k]
	}
	if d := declared.Load(); d != nil && k >= FirstDeclared && int(k-FirstDeclared) < len(*d) {
		return (*d)[k-FirstDeclared]
	}
	return nil
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
