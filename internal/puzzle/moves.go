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
		ms, err = appendToken(spec, ms, text[i:j])
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

// Token syntax errors, built once: ParseMoves is called on every answer.
var (
	errSlidingToken  = fmt.Errorf("want U, D, L or R (the direction the tile moves), optionally with a repeat count (R3): %w", ErrMalformed)
	errLoopoverToken = fmt.Errorf("want <n>R, <n>L (row n) or <n>U, <n>D (column n), optionally with a repeat count (2R3): %w", ErrMalformed)
	errSwapToken     = fmt.Errorf("want <row>,<col>R or <row>,<col>D, optionally with a repeat count (1,2R2): %w", ErrMalformed)
)

func appendToken(spec Spec, ms []Move, tok string) ([]Move, error) {
	switch spec.Kind {
	case Sliding:
		for i := 0; i < len(tok); {
			d, ok := dirOf(tok[i])
			if !ok {
				return ms, errSlidingToken
			}
			count, next, err := readCount(tok, i+1)
			if err != nil {
				return ms, err
			}
			if ms, err = appendRepeat(ms, Move{Dir: d}, count); err != nil {
				return ms, err
			}
			i = next
		}
		return ms, nil
	case Loopover:
		bad := errLoopoverToken
		line, i, ok := readNum(tok, 0)
		if !ok || i >= len(tok) {
			return ms, bad
		}
		d, ok := dirOf(tok[i])
		if !ok {
			return ms, bad
		}
		count, i, err := readCount(tok, i+1)
		if err != nil {
			return ms, err
		}
		if i != len(tok) {
			return ms, bad
		}
		what, lim := "row", spec.Rows
		if d == Up || d == Down {
			what, lim = "column", spec.Cols
		}
		if line < 1 || line > lim {
			return ms, fmt.Errorf("%s %d is off the board (1..%d): %w", what, line, lim, ErrMalformed)
		}
		return appendRepeat(ms, Move{Dir: d, Line: line - 1}, count)
	case Swap:
		bad := errSwapToken
		r, i, ok := readNum(tok, 0)
		if !ok || i >= len(tok) || tok[i] != ',' {
			return ms, bad
		}
		c, i, ok := readNum(tok, i+1)
		if !ok || i >= len(tok) {
			return ms, bad
		}
		d, ok := dirOf(tok[i])
		if !ok || (d != Right && d != Down) {
			return ms, bad
		}
		count, i, err := readCount(tok, i+1)
		if err != nil {
			return ms, err
		}
		if i != len(tok) {
			return ms, bad
		}
		if r < 1 || r > spec.Rows || c < 1 || c > spec.Cols {
			return ms, fmt.Errorf("cell (%d,%d) is off the %dx%d board: %w", r, c, spec.Rows, spec.Cols, ErrMalformed)
		}
		if d == Right && c == spec.Cols {
			return ms, fmt.Errorf("cell (%d,%d) is in the last column and has no right neighbour: %w", r, c, ErrMalformed)
		}
		if d == Down && r == spec.Rows {
			return ms, fmt.Errorf("cell (%d,%d) is in the last row and has no neighbour below: %w", r, c, ErrMalformed)
		}
		return appendRepeat(ms, Move{Dir: d, Line: r - 1, Col: c - 1}, count)
	}
	return ms, fmt.Errorf("unknown puzzle kind %v: %w", spec.Kind, ErrMalformed)
}

// FormatMoves is the canonical move string: one token per move, single
// spaces, no repeat counts. ParseMoves(spec, FormatMoves(spec, ms)) == ms
// for moves on the board.
func FormatMoves(spec Spec, moves []Move) string {
	var b strings.Builder
	per := 2
	if spec.Kind != Sliding {
		per = 4
	}
	b.Grow(per * len(moves))
	var buf [24]byte
	for i, m := range moves {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.Write(appendMove(buf[:0], spec.Kind, m))
	}
	return b.String()
}

func appendMove(dst []byte, k Kind, m Move) []byte {
	switch k {
	case Loopover:
		dst = strconv.AppendInt(dst, int64(m.Line)+1, 10)
	case Swap:
		dst = strconv.AppendInt(dst, int64(m.Line)+1, 10)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, int64(m.Col)+1, 10)
	}
	return append(dst, m.Dir.Letter())
}

func moveText(k Kind, m Move) string {
	var buf [24]byte
	return string(appendMove(buf[:0], k, m))
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
	for i, m := range ms {
		if err := s.apply(m); err != nil {
			return fmt.Errorf("move %d (%s): %w", i+1, moveText(s.Spec.Kind, m), err)
		}
	}
	return nil
}

func (s *State) apply(m Move) error {
	sp := s.Spec
	w, h := sp.Cols, sp.Rows
	if w < 1 || h < 1 || len(s.Cells) != w*h {
		return fmt.Errorf("%s state has %s, want %d: %w", sp, plural(len(s.Cells), "cell"), sp.Cells(), ErrMalformed)
	}
	c := s.Cells
	switch sp.Kind {
	case Sliding:
		b := BlankIndex(*s)
		if b < 0 {
			return fmt.Errorf("%s state has no blank: %w", sp, ErrMalformed)
		}
		r, col := b/w, b%w
		src := -1
		var why string
		switch m.Dir {
		case Up: // the tile below the blank moves up
			src, why = b+w, "no tile below the blank"
			if r+1 >= h {
				src = -1
			}
		case Down:
			src, why = b-w, "no tile above the blank"
			if r == 0 {
				src = -1
			}
		case Left: // the tile right of the blank moves left
			src, why = b+1, "no tile right of the blank"
			if col+1 >= w {
				src = -1
			}
		case Right:
			src, why = b-1, "no tile left of the blank"
			if col == 0 {
				src = -1
			}
		default:
			why = "unknown direction"
		}
		if src < 0 {
			return fmt.Errorf("%s (blank at row %d, column %d): %w", why, r+1, col+1, ErrIllegalMove)
		}
		c[b], c[src] = c[src], 0
		return nil
	case Loopover:
		switch m.Dir {
		case Left, Right:
			if m.Line < 0 || m.Line >= h {
				return fmt.Errorf("row %d is off the board (1..%d): %w", m.Line+1, h, ErrIllegalMove)
			}
			row := c[m.Line*w : m.Line*w+w]
			if m.Dir == Left { // every cell takes its right neighbour's piece
				t := row[0]
				copy(row, row[1:])
				row[w-1] = t
			} else {
				t := row[w-1]
				copy(row[1:], row[:w-1])
				row[0] = t
			}
		case Up, Down:
			if m.Line < 0 || m.Line >= w {
				return fmt.Errorf("column %d is off the board (1..%d): %w", m.Line+1, w, ErrIllegalMove)
			}
			col := m.Line
			if m.Dir == Up { // every cell takes the piece below it
				t := c[col]
				for r := 0; r+1 < h; r++ {
					c[r*w+col] = c[(r+1)*w+col]
				}
				c[(h-1)*w+col] = t
			} else {
				t := c[(h-1)*w+col]
				for r := h - 1; r > 0; r-- {
					c[r*w+col] = c[(r-1)*w+col]
				}
				c[col] = t
			}
		default:
			return fmt.Errorf("unknown direction: %w", ErrIllegalMove)
		}
		return nil
	case Swap:
		r, col := m.Line, m.Col
		if r < 0 || r >= h || col < 0 || col >= w {
			return fmt.Errorf("cell (%d,%d) is off the %dx%d board: %w", r+1, col+1, h, w, ErrIllegalMove)
		}
		i := r*w + col
		switch m.Dir {
		case Right:
			if col+1 >= w {
				return fmt.Errorf("cell (%d,%d) has no right neighbour: %w", r+1, col+1, ErrIllegalMove)
			}
			c[i], c[i+1] = c[i+1], c[i]
		case Down:
			if r+1 >= h {
				return fmt.Errorf("cell (%d,%d) has no neighbour below: %w", r+1, col+1, ErrIllegalMove)
			}
			c[i], c[i+w] = c[i+w], c[i]
		default:
			return fmt.Errorf("swap moves are R or D: %w", ErrIllegalMove)
		}
		return nil
	}
	return fmt.Errorf("unknown puzzle kind %v: %w", sp.Kind, ErrMalformed)
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
	sp := s.Spec
	w, h := sp.Cols, sp.Rows
	if w < 1 || h < 1 || len(s.Cells) != w*h {
		return nil
	}
	var ms []Move
	switch sp.Kind {
	case Sliding:
		b := BlankIndex(s)
		if b < 0 {
			return nil
		}
		r, c := b/w, b%w
		if r+1 < h {
			ms = append(ms, Move{Dir: Up})
		}
		if r > 0 {
			ms = append(ms, Move{Dir: Down})
		}
		if c+1 < w {
			ms = append(ms, Move{Dir: Left})
		}
		if c > 0 {
			ms = append(ms, Move{Dir: Right})
		}
	case Loopover:
		ms = make([]Move, 0, 2*(h+w))
		for r := 0; r < h; r++ {
			ms = append(ms, Move{Dir: Left, Line: r}, Move{Dir: Right, Line: r})
		}
		for c := 0; c < w; c++ {
			ms = append(ms, Move{Dir: Up, Line: c}, Move{Dir: Down, Line: c})
		}
	case Swap:
		for i, v := range s.Cells {
			r, c := i/w, i%w
			if c+1 < w && s.Cells[i+1] != v {
				ms = append(ms, Move{Dir: Right, Line: r, Col: c})
			}
			if r+1 < h && s.Cells[i+w] != v {
				ms = append(ms, Move{Dir: Down, Line: r, Col: c})
			}
		}
	}
	return ms
}

// InvertMoves returns the moves that undo ms: reversed, each move
// inverted (sliding and Loopover: the opposite direction on the same
// line; a swap is its own inverse).
func InvertMoves(spec Spec, ms []Move) []Move {
	out := make([]Move, len(ms))
	for i, m := range ms {
		if spec.Kind != Swap {
			m.Dir = m.Dir.Opposite()
		}
		out[len(ms)-1-i] = m
	}
	return out
}
