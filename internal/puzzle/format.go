package puzzle

import (
	"strconv"
	"strings"
)

// String is the canonical text of s: sliding and Loopover cells as decimal
// numbers separated by single spaces, swap rows as digit strings ("1101");
// rows separated by '/'. Parse(spec, s.String()) returns s again.
func (s State) String() string {
	rows, cols := s.Spec.Rows, s.Spec.Cols
	if rows <= 0 || cols <= 0 || len(s.Cells) != rows*cols {
		// Not a board of its spec (built by hand): show what is there
		// rather than panic in a log line.
		return "<" + s.Spec.String() + " state with " + strconv.Itoa(len(s.Cells)) + " cells>"
	}
	var b strings.Builder
	if s.Spec.Kind == Swap {
		b.Grow(len(s.Cells) + rows)
		for i, v := range s.Cells {
			if i > 0 && i%cols == 0 {
				b.WriteByte('/')
			}
			if v <= 9 {
				b.WriteByte('0' + v)
			} else {
				b.WriteByte('?')
			}
		}
		return b.String()
	}
	b.Grow(3 * len(s.Cells))
	var buf [3]byte
	for i, v := range s.Cells {
		if i > 0 {
			if i%cols == 0 {
				b.WriteByte('/')
			} else {
				b.WriteByte(' ')
			}
		}
		b.Write(strconv.AppendUint(buf[:0], uint64(v), 10))
	}
	return b.String()
}
