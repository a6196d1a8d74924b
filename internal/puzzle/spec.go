// Package puzzle models the permutation puzzles tessera solves: sliding-tile
// boards, Loopover boards and 0/1 transposition (swap) boards. It parses and
// formats the text formats of the design contract, validates input with
// errors that name the problem, applies and verifies move strings, decides
// solvability and draws random scrambles. It is pure: no I/O beyond strings.
package puzzle

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind is a puzzle family (the constants, with the table they index, are
// in family.go).
type Kind uint8

func (k Kind) String() string {
	if f := k.Family(); f != nil {
		return f.Name()
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Board side limits. Sliding and Loopover boards hold at most 64 cells so a
// cell value always fits a byte; swap boards are 0/1 and may be far larger.
const (
	MinSide     = 2
	MaxSide     = 8
	MaxSwapSide = 1000
)

// Spec names a puzzle: its kind and its board shape.
type Spec struct {
	Kind       Kind
	Rows, Cols int
}

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrMalformed: the input cannot be read as a state or move string of the puzzle.
	ErrMalformed = errors.New("malformed input")
	// ErrUnsolvable: a well-formed state that cannot reach the goal.
	ErrUnsolvable = errors.New("unsolvable")
)

// ParseSpec reads "KIND:ROWSxCOLS" (e.g. "sliding:4x4", "loopover:5x5",
// "swap:12x12") or one of the aliases 8, 15, 24 (sliding 3x3, 4x4, 5x5).
func ParseSpec(s string) (Spec, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "8":
		return Spec{Sliding, 3, 3}, nil
	case "15":
		return Spec{Sliding, 4, 4}, nil
	case "24":
		return Spec{Sliding, 5, 5}, nil
	}
	kind, dims, ok := strings.Cut(t, ":")
	if !ok {
		return Spec{}, fmt.Errorf("puzzle %q: want KIND:ROWSxCOLS (e.g. sliding:4x4) or 8, 15, 24: %w", s, ErrMalformed)
	}
	var sp Spec
	for _, f := range allFamilies() {
		if f.Name() == kind {
			sp.Kind = f.Kind()
		}
	}
	if sp.Kind == 0 {
		return Spec{}, fmt.Errorf("puzzle %q: unknown kind %q (want %s): %w", s, kind, familyNames(), ErrMalformed)
	}
	rs, cs, ok := strings.Cut(dims, "x")
	if !ok {
		return Spec{}, fmt.Errorf("puzzle %q: want ROWSxCOLS after the colon: %w", s, ErrMalformed)
	}
	r, err1 := strconv.Atoi(rs)
	c, err2 := strconv.Atoi(cs)
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("puzzle %q: rows and columns must be whole numbers: %w", s, ErrMalformed)
	}
	sp.Rows, sp.Cols = r, c
	if err := sp.Validate(); err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// Validate checks the board shape against the limits of the kind.
func (s Spec) Validate() error {
	f := s.Family()
	if f == nil {
		return fmt.Errorf("puzzle: unknown kind %d: %w", s.Kind, ErrMalformed)
	}
	max := f.MaxSide()
	if s.Rows < MinSide || s.Cols < MinSide || s.Rows > max || s.Cols > max {
		return fmt.Errorf("puzzle %s: board sides must be between %d and %d: %w", s, MinSide, max, ErrMalformed)
	}
	return nil
}

// String is the canonical spec text, e.g. "sliding:4x4".
func (s Spec) String() string {
	if int(s.Kind) < len(specNames) && uint(s.Rows) < uint(len(specNames[0])) && uint(s.Cols) < uint(len(specNames[0][0])) {
		return specNames[s.Kind][s.Rows][s.Cols]
	}
	return specName(s)
}

func specName(s Spec) string {
	return s.Kind.String() + ":" + strconv.Itoa(s.Rows) + "x" + strconv.Itoa(s.Cols)
}

// specNames are the names of every family's specs with sides up to 8,
// made once: every result carries its puzzle's name, and building it per
// result would be an allocation per result.
var specNames = func() (t [len(builtin)][9][9]string) {
	for k := range t {
		for r := range t[k] {
			for c := range t[k][r] {
				t[k][r][c] = specName(Spec{Kind: Kind(k), Rows: r, Cols: c})
			}
		}
	}
	return t
}()

// Cells is the number of cells on the board.
func (s Spec) Cells() int { return s.Rows * s.Cols }

// familyNames lists the kinds' words for an error: "sliding, loopover or swap".
func familyNames() string {
	var names []string
	for _, f := range allFamilies() {
		names = append(names, f.Name())
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
