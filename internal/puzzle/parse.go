package puzzle

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads a state of spec in the text format of the design contract
// and checks that it can reach its goal.
//
// Rows are separated by '/', cells by spaces and/or commas; surrounding
// whitespace is ignored. Sliding cells are 0..N−1 (0 = blank); Loopover
// cells are 1..N or letters A.. (A = 1, case-insensitive), and a Loopover
// row may be written as one run of letters ("ABC"); swap rows are digit
// strings ("1101") or separated digits ("1 1 0 1"). A board given on one
// line without any '/' is read row-major when it holds exactly N cells
// (or, for swap and letter rows, N characters).
//
// Errors wrap ErrMalformed and name the problem (row count, cell count of
// a row, value out of range, duplicate or missing tile, junk token), or
// wrap ErrUnsolvable and explain the parity rule (see Solvable). Parse
// never panics.
func Parse(spec Spec, text string) (State, error) {
	s, err := ParseUnchecked(spec, text)
	if err != nil {
		return State{}, err
	}
	if err := Solvable(s); err != nil {
		return State{}, err
	}
	return s, nil
}

// ParseUnchecked is Parse without the solvability check, for tooling that
// reports unsolvable states separately (or replays moves on them).
func ParseUnchecked(spec Spec, text string) (State, error) {
	if err := spec.Validate(); err != nil {
		return State{}, err
	}
	f := spec.Family()
	lo, hi := f.CellRange(spec.Cells())
	p := parser{spec: spec, fam: f, lo: lo, hi: hi, letters: f.Letters(), cells: make([]uint8, spec.Cells())}
	if err := p.parse(strings.TrimSpace(text)); err != nil {
		return State{}, err
	}
	s := State{Spec: spec, Cells: p.cells}
	if err := s.Validate(); err != nil {
		return State{}, err
	}
	return s, nil
}

// Validate checks that s is a well-formed board of its spec: the right
// number of cells, every value in range, and for sliding and Loopover each
// tile exactly once. It does not check solvability (see Solvable).
func (s State) Validate() error {
	sp := s.Spec
	if err := sp.Validate(); err != nil {
		return err
	}
	n := sp.Cells()
	if len(s.Cells) != n {
		return fmt.Errorf("%s state: %s, want %d: %w", sp, plural(len(s.Cells), "cell"), n, ErrMalformed)
	}
	f := sp.Family()
	lo, hi := f.CellRange(n)
	distinct := f.Distinct()
	// at[v] is 1 + the first index holding v; Spec.Validate keeps sliding
	// and Loopover boards within 64 cells, so v ≤ 64 and i+1 ≤ 64.
	var at [MaxSide*MaxSide + 1]uint8
	dupAt, dupFirst := -1, -1
	for i, v := range s.Cells {
		if int(v) < lo || int(v) > hi {
			return fmt.Errorf("%s state: row %d, column %d: %d is out of range %d..%d: %w",
				sp, i/sp.Cols+1, i%sp.Cols+1, v, lo, hi, ErrMalformed)
		}
		if !distinct {
			continue
		}
		if at[v] != 0 {
			if dupAt < 0 {
				dupAt, dupFirst = i, int(at[v]-1)
			}
			continue
		}
		at[v] = uint8(i + 1)
	}
	if dupAt < 0 {
		return nil
	}
	v := s.Cells[dupAt]
	msg := fmt.Sprintf("%s appears twice (row %d, column %d and row %d, column %d)",
		f.TileName(int(v)), dupFirst/sp.Cols+1, dupFirst%sp.Cols+1, dupAt/sp.Cols+1, dupAt%sp.Cols+1)
	for m := lo; m <= hi; m++ {
		if at[m] == 0 {
			msg += "; " + f.TileName(m) + " is missing"
			break
		}
	}
	return fmt.Errorf("%s state: %s: %w", sp, msg, ErrMalformed)
}

type parser struct {
	spec    Spec
	fam     Family
	lo, hi  int  // a cell's range, asked of the family once
	letters bool // single letters name cells (Loopover)
	cells   []uint8
	toks    []string // reused across rows
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s state: %s: %w", p.spec, fmt.Sprintf(format, args...), ErrMalformed)
}

func (p *parser) parse(t string) error {
	rows := p.spec.Rows
	if t == "" {
		return p.errorf("empty; want %d rows separated by '/'", rows)
	}
	got := strings.Count(t, "/") + 1
	if got == 1 {
		return p.parseFlat(t)
	}
	if got != rows {
		return p.errorf("got %d rows, want %d (rows are separated by '/')", got, rows)
	}
	rest := t
	for r := 0; ; r++ {
		line, after, found := strings.Cut(rest, "/")
		if err := p.fillRow(r, p.tokens(line)); err != nil {
			return err
		}
		if !found {
			return nil
		}
		rest = after
	}
}

// parseFlat reads a board written on one line without '/'.
func (p *parser) parseFlat(t string) error {
	rows, cols, n := p.spec.Rows, p.spec.Cols, p.spec.Cells()
	toks := p.tokens(t)
	switch {
	case len(toks) == n:
		for r := 0; r < rows; r++ {
			if err := p.fillRow(r, toks[r*cols:(r+1)*cols]); err != nil {
				return err
			}
		}
		return nil
	case len(toks) == 1 && len(toks[0]) == n && p.fam.IsRun(toks[0]):
		tok := toks[0]
		for r := 0; r < rows; r++ {
			if err := p.fillRow(r, []string{tok[r*cols : (r+1)*cols]}); err != nil {
				return err
			}
		}
		return nil
	}
	return p.errorf("got 1 row, want %d (rows are separated by '/'; a board on one line must hold all %d cells)", rows, n)
}

func (p *parser) tokens(line string) []string {
	toks := p.toks[:0]
	for i := 0; i < len(line); {
		for i < len(line) && isSep(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSep(line[j]) {
			j++
		}
		if j > i {
			toks = append(toks, line[i:j])
		}
		i = j
	}
	p.toks = toks
	return toks
}

func (p *parser) fillRow(r int, toks []string) error {
	cols := p.spec.Cols
	dst := p.cells[r*cols : (r+1)*cols]
	if len(toks) == 1 && p.fam.RowRun(toks[0], cols) {
		run := toks[0]
		if len(run) != cols {
			return p.errorf("row %d has %s, want %d", r+1, plural(len(run), "cell"), cols)
		}
		for c := 0; c < cols; c++ {
			v, err := p.cell(r, c, run[c:c+1])
			if err != nil {
				return err
			}
			dst[c] = v
		}
		return nil
	}
	if len(toks) != cols {
		return p.errorf("row %d has %s, want %d", r+1, plural(len(toks), "cell"), cols)
	}
	for c, tok := range toks {
		v, err := p.cell(r, c, tok)
		if err != nil {
			return err
		}
		dst[c] = v
	}
	return nil
}

// cell reads one cell value and checks its range.
func (p *parser) cell(r, c int, tok string) (uint8, error) {
	lo, hi := p.lo, p.hi
	v := -1
	switch {
	case allBytes(tok, isDigit):
		v = 0
		for i := 0; i < len(tok); i++ {
			v = min(v*10+int(tok[i]-'0'), 1<<20) // saturate: only the range check matters
		}
	case p.letters && len(tok) == 1 && isLetter(tok[0]):
		v = int(tok[0]|0x20-'a') + 1
		if v > hi {
			return 0, p.errorf("row %d, column %d: letter %s is out of range A..%c", r+1, c+1, tok, 'A'+hi-1)
		}
	}
	if v < 0 {
		return 0, p.errorf("row %d, column %d: %s is not %s", r+1, c+1, quoteShort(tok), p.fam.CellWant())
	}
	if v < lo || v > hi {
		return 0, p.errorf("row %d, column %d: %s is out of range %d..%d", r+1, c+1, quoteShort(tok), lo, hi)
	}
	return uint8(v), nil
}

// quoteShort quotes tok for an error message, cutting very long junk.
func quoteShort(tok string) string {
	const max = 24
	if len(tok) > max {
		return strconv.Quote(tok[:max]) + "…"
	}
	return strconv.Quote(tok)
}

func isSep(b byte) bool {
	return b == ' ' || b == ',' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

func isDigit(b byte) bool  { return '0' <= b && b <= '9' }
func isLetter(b byte) bool { return 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' }

func allBytes(s string, f func(byte) bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}
