package puzzle

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Sentinels of move handling, for errors.Is.
var (
	// ErrIllegalMove: a move that cannot be made on the board (sliding: no
	// tile on that side of the blank; a line or cell off the board).
	ErrIllegalMove = errors.New("illegal move")
	// ErrNotSolved: legal moves that end somewhere other than the goal.
	ErrNotSolved = errors.New("moves do not reach the goal")
)

// MaxMoves bounds the length of a parsed move string, so that a short
// input with large repeat counts cannot exhaust memory.
const MaxMoves = 1 << 24

// maxRepeat bounds one token's repeat count ("R3"): counts are shorthand
// for a few repeats, never thousands.
const maxRepeat = 9999

// ParseMoves reads a move string of spec (notation of the design
// contract): tokens separated by whitespace, one unit move per token, with
// an optional trailing repeat count ("R3" = "R R R", "2L3", "1,2R2").
//   - sliding: U, D, L, R, the direction the TILE moves into the blank.
//     Letters may also be run together: "RRD" and "R2D" are "R R D".
//   - loopover: "<n>R"/"<n>L" shift row n (1-based, top = 1) right/left,
//     "<n>D"/"<n>U" shift column n (1-based, left = 1) down/up.
//   - swap: "<r>,<c>R" swaps cell (r, c) with its right neighbour,
//     "<r>,<c>D" with the one below (1-based).
//
// Letters are case-insensitive. The empty string is no moves. Errors wrap
// ErrMalformed and name the bad token and its position; rows, columns and
// cells off the board are rejected here, since they are illegal whatever
// the state.
func ParseMoves(spec Spec, text string) ([]Move, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	f := spec.Family()
	var ms []Move
	pos := 0
	for i := 0; i < len(text); {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		j := i
		for j < len(text) && !isSpace(text[j]) {
			j++
		}
		if j == i {
			break
		}
		pos++
		var err error
		ms, err = f.AppendToken(spec, ms, text[i:j])
		if err != nil {
			return nil, fmt.Errorf("%s moves: token %d %s: %w", spec, pos, quoteShort(text[i:j]), err)
		}
		i = j
	}
	return ms, nil
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// readNum reads a decimal number at tok[i:], saturating far above any
// meaningful value.
func readNum(tok string, i int) (v, next int, ok bool) {
	j := i
	for j < len(tok) && isDigit(tok[j]) {
		v = min(v*10+int(tok[j]-'0'), 1<<30)
		j++
	}
	return v, j, j > i
}

func dirOf(b byte) (Dir, bool) {
	switch b | 0x20 {
	case 'u':
		return Up, true
	case 'd':
		return Down, true
	case 'l':
		return Left, true
	case 'r':
		return Right, true
	}
	return 0, false
}

// readCount reads an optional repeat count at tok[i:].
func readCount(tok string, i int) (count, next int, err error) {
	n, j, ok := readNum(tok, i)
	if !ok {
		return 1, i, nil
	}
	if n < 1 || n > maxRepeat {
		return 0, j, fmt.Errorf("repeat count must be 1..%d: %w", maxRepeat, ErrMalformed)
	}
	return n, j, nil
}

func appendRepeat(ms []Move, m Move, count int) ([]Move, error) {
	if len(ms)+count > MaxMoves {
		return ms, fmt.Errorf("more than %d moves: %w", MaxMoves, ErrMalformed)
	}
	for k := 0; k < count; k++ {
		ms = append(ms, m)
	}
	return ms, nil
}

// FormatMoves is the canonical move string: one token per move, single
// spaces, no repeat counts. ParseMoves(spec, FormatMoves(spec, ms)) == ms
// for moves on the board.
func FormatMoves(spec Spec, moves []Move) string {
	f := spec.Family()
	if f == nil {
		f = loopoverRules // a kind of no family (built by hand): line and letter
	}
	var b strings.Builder
	b.Grow(f.MoveBytes() * len(moves))
	var buf [24]byte
	for i, m := range moves {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.Write(f.AppendMove(buf[:0], m))
	}
	return b.String()
}

func moveText(k Kind, m Move) string {
	var buf [24]byte
	if f := k.Family(); f != nil {
		return string(f.AppendMove(buf[:0], m))
	}
	return string(append(buf[:0], m.Dir.Letter()))
}

// Apply makes one move in place. It returns an error wrapping
// ErrIllegalMove when the move cannot be made (sliding: no tile on that
// side of the blank; a row, column or cell off the board; swap directions
// other than R and D), or ErrMalformed when s is not a board of its spec;
// s is then unchanged.
func (s *State) Apply(m Move) error {
	if err := s.apply(m); err != nil {
		return fmt.Errorf("%s: %w", moveText(s.Spec.Kind, m), err)
	}
	return nil
}

// ApplyMoves applies ms in order. On an illegal move it stops and returns
// an error naming its 1-based index; s then holds the position after the
// moves before it.
func (s *State) ApplyMoves(ms []Move) error {
	if len(ms) == 0 {
		return nil
	}
	i := 0 // the move that failed
	f, err := s.family()
	if err == nil {
		// One call: the family's loop over the moves is concrete.
		if i, err = f.ApplyAll(s.Spec, s.Cells, ms); err == nil {
			return nil
		}
	}
	return fmt.Errorf("move %d (%s): %w", i+1, moveText(s.Spec.Kind, ms[i]), err)
}

func (s *State) apply(m Move) error {
	f, err := s.family()
	if err != nil {
		return err
	}
	return f.ApplyMove(s.Spec, s.Cells, m)
}

// family is the rules of a state whose cells fit its board, or an error
// wrapping ErrMalformed.
func (s *State) family() (Family, error) {
	sp := s.Spec
	w, h := sp.Cols, sp.Rows
	if w < 1 || h < 1 || len(s.Cells) != w*h {
		return nil, fmt.Errorf("%s state has %s, want %d: %w", sp, plural(len(s.Cells), "cell"), sp.Cells(), ErrMalformed)
	}
	f := sp.Family()
	if f == nil {
		return nil, fmt.Errorf("unknown puzzle kind %v: %w", sp.Kind, ErrMalformed)
	}
	return f, nil
}

// Verify parses moves, replays them on a copy of s and returns nil iff
// they end at s.Goal(). Otherwise the error says what went wrong: a
// malformed move string (ErrMalformed), an illegal move k
// (ErrIllegalMove), or a final board that is not the goal (ErrNotSolved).
func Verify(s State, moves string) error {
	return VerifyTo(s, moves, s.Goal())
}

// VerifyTo is Verify towards an explicit goal (swap boards accept any
// target with the same number of ones; see CheckGoal).
func VerifyTo(s State, moves string, goal State) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if err := CheckGoal(s, goal); err != nil {
		return err
	}
	ms, err := ParseMoves(s.Spec, moves)
	if err != nil {
		return err
	}
	return replay(s, ms, goal)
}

// VerifyMoves replays a move list on a copy of s and returns nil iff it
// ends at goal; errors as Verify's. It is how a solver's answer is checked
// before it is formatted.
func VerifyMoves(s State, ms []Move, goal State) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if err := CheckGoal(s, goal); err != nil {
		return err
	}
	return replay(s, ms, goal)
}

// replay applies ms to a copy of s and compares the result with goal.
func replay(s State, ms []Move, goal State) error {
	c := s.Clone()
	if err := c.ApplyMoves(ms); err != nil {
		return fmt.Errorf("%s: %w", s.Spec, err)
	}
	if slices.Equal(c.Cells, goal.Cells) {
		return nil
	}
	off := 0
	for i := range c.Cells {
		if c.Cells[i] != goal.Cells[i] {
			off++
		}
	}
	return fmt.Errorf("%s: after %s the board is %s with %s out of place, not the goal %s: %w",
		s.Spec, plural(len(ms), "move"), shortText(c.String()), plural(off, "cell"), shortText(goal.String()), ErrNotSolved)
}

// shortText quotes a board for an error message, cutting huge swap boards.
func shortText(t string) string {
	const max = 200
	if len(t) > max {
		return strconv.Quote(t[:max]) + "…"
	}
	return strconv.Quote(t)
}

// LegalMoves returns every legal move from s: sliding up to 4, in the
// order U D L R; Loopover every row L, R then every column U, D (on a line
// of two cells L and R are the same permutation; both are listed); swap
// every adjacent pair whose cells differ, row-major, R before D. It
// allocates: not for hot loops. A malformed s has none.
func LegalMoves(s State) []Move {
	f, err := s.family()
	if err != nil {
		return nil
	}
	return f.LegalMoves(s)
}

// InvertMoves returns the moves that undo ms: reversed, each move
// inverted (sliding and Loopover: the opposite direction on the same
// line; a swap is its own inverse).
func InvertMoves(spec Spec, ms []Move) []Move {
	out := make([]Move, len(ms))
	f := spec.Family()
	self := f != nil && f.SelfInverse()
	for i, m := range ms {
		if !self {
			m.Dir = m.Dir.Opposite()
		}
		out[len(ms)-1-i] = m
	}
	return out
}
