package loopover

import "fmt"

// WD is the walking-distance table of one axis of a Loopover board, the
// double-coset bound of the seed text: pieces are labelled by their goal
// line only, and each line's contents are a multiset of labels. A shift of
// a perpendicular line carries one piece from every line into the next one
// (cyclically) and a shift along the axis changes no multiset, so the
// distance between label patterns, by BFS over patterns, is a lower bound
// on the number of perpendicular shifts. The table of rows (lines = rows,
// labels = goal rows) bounds column moves; the table of columns bounds row
// moves; the two add up.
//
// A pattern is indexed by the multiset codes of its first Lines−1 lines in
// mixed radix (the last line holds whatever is left), so the per-move
// update is one Trans read per line and the index a few multiply-adds.
type WD struct {
	Lines   int // lines along this axis, and as many labels
	PerLine int // cells per line, and pieces per label
	Codes   int // label multisets of one line
	// Trans[(code*Lines+out)*Lines+in] is the code after a piece labelled
	// out leaves a line of multiset code and one labelled in arrives;
	// NoCode where the line holds no piece labelled out.
	Trans []uint16
	// Dist is the bound per pattern index; Unreached marks indices that
	// are no pattern (more pieces of a label than exist).
	Dist     []uint8
	Patterns int   // reachable patterns
	Counts   []int // patterns per distance
	goalCode []uint16
	radix    [MaxSide]int
	// Mul is the radix of each line with the last line's 0: an index in
	// one pass over every line's code.
	Mul    [MaxSide]int
	counts [][MaxSide]uint8          // the label counts of each code
	code   map[[MaxSide]uint8]uint16 // counts → code, for a search's root only
}

// NoCode marks a transition from a line that lacks the leaving label.
const NoCode = ^uint16(0)

// Unreached marks a Dist entry that is not a pattern.
const Unreached = 0xff

// wdMaxIndex bounds the mixed-radix index space (and so the table's bytes)
// of a table built in memory on first use.
const wdMaxIndex = 1 << 22

// WDSize is the number of Dist entries of the table for lines×perLine, or
// an error when it is larger than NewWD builds.
func WDSize(lines, perLine int) (int, error) {
	if lines < 2 || perLine < 2 || lines > MaxSide || perLine > MaxSide {
		return 0, fmt.Errorf("walking distance %d×%d: sides must be 2..%d", lines, perLine, MaxSide)
	}
	codes := binom(perLine+lines-1, lines-1)
	size := 1
	for i := 0; i < lines-1; i++ {
		size *= codes
		if size > wdMaxIndex {
			return 0, fmt.Errorf("walking distance %d lines of %d: %d^%d patterns exceed the %d-entry limit", lines, perLine, codes, lines-1, wdMaxIndex)
		}
	}
	return size, nil
}

func binom(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// newWDIndex is a table without distances: its line codes, transitions
// and index radices.
func newWDIndex(lines, perLine int) *WD {
	t := &WD{Lines: lines, PerLine: perLine}
	t.enumerate()
	t.radix[0] = 1
	for i := 1; i < lines; i++ {
		t.radix[i] = t.radix[i-1] * t.Codes
	}
	copy(t.Mul[:lines-1], t.radix[:lines-1])
	return t
}

// enumerate lists every label-count vector of one line (counts summing to
// PerLine) and the transitions between them.
func (t *WD) enumerate() {
	L := t.Lines
	var cur [MaxSide]uint8
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == L-1 {
			cur[i] = uint8(left)
			t.counts = append(t.counts, cur)
			return
		}
		for v := left; v >= 0; v-- {
			cur[i] = uint8(v)
			rec(i+1, left-v)
		}
	}
	rec(0, t.PerLine)
	t.Codes = len(t.counts)
	code := make(map[[MaxSide]uint8]uint16, t.Codes)
	t.code = code
	for i, c := range t.counts {
		code[c] = uint16(i)
	}
	t.Trans = make([]uint16, t.Codes*L*L)
	for i, c := range t.counts {
		for out := 0; out < L; out++ {
			for in := 0; in < L; in++ {
				k := (i*L+out)*L + in
				if c[out] == 0 {
					t.Trans[k] = NoCode
					continue
				}
				n := c
				n[out]--
				n[in]++
				t.Trans[k] = code[n]
			}
		}
	}
	t.goalCode = make([]uint16, L)
	for l := 0; l < L; l++ {
		var g [MaxSide]uint8
		g[l] = uint8(t.PerLine)
		t.goalCode[l] = code[g]
	}
}

// Index is the pattern index of per-line codes (only the first Lines−1
// are read).
func (t *WD) Index(codes *[MaxSide]uint16) int {
	x := 0
	for i := 0; i < t.Lines-1; i++ {
		x += int(codes[i]) * t.radix[i]
	}
	return x
}

// index is Index over the search's wider codes.
func (t *WD) index(codes *[MaxSide]uint32) int {
	x := 0
	for i := 0; i < t.Lines-1; i++ {
		x += int(codes[i]) * t.radix[i]
	}
	return x
}

// decode fills codes from an index and derives the last line; false when
// the index is no pattern.
func (t *WD) decode(x int, codes *[MaxSide]uint16) bool {
	L := t.Lines
	var left [MaxSide]int
	for l := 0; l < L; l++ {
		left[l] = t.PerLine
	}
	for i := 0; i < L-1; i++ {
		codes[i] = uint16(x % t.Codes)
		x /= t.Codes
		c := &t.counts[codes[i]]
		for l := 0; l < L; l++ {
			if left[l] -= int(c[l]); left[l] < 0 {
				return false
			}
		}
	}
	var last [MaxSide]uint8
	for l := 0; l < L; l++ {
		last[l] = uint8(left[l])
	}
	codes[L-1] = t.code[last]
	return true
}

// LineCode is the code of one line whose pieces have the given labels.
func (t *WD) LineCode(labels []uint8) uint16 {
	var c [MaxSide]uint8
	for _, l := range labels {
		c[l]++
	}
	return t.code[c]
}

// Goal reports the code of line l in the goal pattern.
func (t *WD) Goal(l int) uint16 { return t.goalCode[l] }

// MeanPattern is the plain mean bound over patterns (not weighted by how
// many arrangements fall in each).
func (t *WD) MeanPattern() float64 {
	var s int
	for d, n := range t.Counts {
		s += d * n
	}
	return float64(s) / float64(t.Patterns)
}
