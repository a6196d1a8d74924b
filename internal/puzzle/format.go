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
	if f := s.Spec.Family(); f != nil {
		f.WriteState(&b, s)
	} else {
		writeNumbers(&b, s) // a kind of no family (built by hand): its numbers
	}
	return b.String()
}

// writeNumbers writes cells as decimal numbers, single spaces between them.
func writeNumbers(b *strings.Builder, s State) {
	cols := s.Spec.Cols
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
}
