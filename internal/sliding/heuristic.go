// Package sliding solves sliding-tile boards: admissible lower bounds
// (Manhattan distance, exact linear conflict, walking distance, inversion
// distance) and IDA* over them; the pattern-database builder and search
// live in the subpackage pdb. Tables are flat arrays built once and shared
// read-only.
package sliding

import (
	"sync"
)

// The helpers below evaluate a whole sliding board (cells row-major, 0 the
// blank, goal 1..N−1 then the blank). They are for search roots and tests;
// the IDA* updates the same quantities incrementally per move.

// goalRC is the goal row and column of tile t on a board of cols columns.
func goalRC(t, cols int) (int, int) { return (t - 1) / cols, (t - 1) % cols }

// ManhattanAxes returns the vertical and horizontal parts of the Manhattan
// distance (blank excluded).
func ManhattanAxes(rows, cols int, cells []uint8) (v, hz int) {
	for i, t := range cells {
		if t == 0 {
			continue
		}
		gr, gc := goalRC(int(t), cols)
		v += abs(i/cols - gr)
		hz += abs(i%cols - gc)
	}
	return v, hz
}

// maxLine bounds the cells of one line (boards are at most 8×8).
const maxLine = 8

// RowConflict is the exact linear-conflict count of row r (in moves).
func RowConflict(cols int, cells []uint8, r int) int {
	var seq [maxLine]int8
	n := 0
	for c := 0; c < cols; c++ {
		t := int(cells[r*cols+c])
		if t == 0 {
			continue
		}
		if gr, gc := goalRC(t, cols); gr == r {
			seq[n] = int8(gc)
			n++
		}
	}
	return 2 * (n - lis(seq[:n]))
}

// ColConflict is the exact linear-conflict count of column c (in moves).
func ColConflict(rows, cols int, cells []uint8, c int) int {
	var seq [maxLine]int8
	n := 0
	for r := 0; r < rows; r++ {
		t := int(cells[r*cols+c])
		if t == 0 {
			continue
		}
		if gr, gc := goalRC(t, cols); gc == c {
			seq[n] = int8(gr)
			n++
		}
	}
	return 2 * (n - lis(seq[:n]))
}

// lis is the length of the longest strictly increasing subsequence
// (patience sorting; lines hold at most 8 values).
func lis(s []int8) int {
	var tails [maxLine]int8
	n := 0
	for _, x := range s {
		i := 0
		for i < n && tails[i] < x {
			i++
		}
		tails[i] = x
		if i == n {
			n++
		}
	}
	return n
}

// InversionBound turns an inversion count into a lower bound on moves along
// one axis. A move along that axis makes the moving tile jump over `span`
// others (cols−1 for vertical moves), so it changes the
// inversion count by one of ±span, ±(span−2), …: at most span, and always
// with the parity of span. k moves fix inv inversions only if k·span ≥ inv
// and, when span is odd, k ≡ inv (mod 2); the least such k is the bound.
// (takaken's 15-puzzle formula inv/3 + inv%3 is the span = 3 case.)
func InversionBound(inv, span int) int {
	k := (inv + span - 1) / span
	if span%2 == 1 && (k-inv)%2 != 0 {
		k++
	}
	return k
}

// InversionAxes returns the vertical and horizontal inversion counts.
// Vertical: tiles read row-major, ordered by goal index (their number).
// Horizontal: tiles read column-major, ordered by their goal cell read
// column-major, so that horizontal moves play the role vertical ones do.
func InversionAxes(rows, cols int, cells []uint8) (v, hz int) {
	n := rows * cols
	for i := 0; i < n; i++ {
		a := cells[i]
		if a == 0 {
			continue
		}
		for j := i + 1; j < n; j++ {
			if b := cells[j]; b != 0 && b < a {
				v++
			}
		}
	}
	for i := 0; i < n; i++ {
		a := cells[(i%rows)*cols+i/rows]
		if a == 0 {
			continue
		}
		ra := ColumnRank(int(a), rows, cols)
		for j := i + 1; j < n; j++ {
			b := cells[(j%rows)*cols+j/rows]
			if b != 0 && ColumnRank(int(b), rows, cols) < ra {
				hz++
			}
		}
	}
	return v, hz
}

// ColumnRank is the index of tile t's goal cell in column-major order.
func ColumnRank(t, rows, cols int) int {
	gr, gc := goalRC(t, cols)
	return gc*rows + gr
}

// WDSupported reports whether a walking-distance table for `lines` lines of
// `perLine` cells is small enough to build on demand (at most a few hundred
// thousand patterns). 5×5 has 65.6 M patterns and 5 lines of 4 has 6 M:
// those axes use Manhattan + linear conflict instead.
func WDSupported(lines, perLine int) bool {
	return lines >= 2 && perLine >= 2 && perLine <= wdMaxPerLine &&
		(lines <= 4 || (lines == 5 && perLine <= 3))
}

var (
	wdMu    sync.Mutex
	wdCache = map[[2]int]*WD{}
)

// SharedWD returns the process-wide walking-distance table for the shape,
// building it on first use (milliseconds for the supported shapes). It
// returns nil when the shape is not supported.
func SharedWD(lines, perLine int) *WD {
	if !WDSupported(lines, perLine) {
		return nil
	}
	wdMu.Lock()
	defer wdMu.Unlock()
	k := [2]int{lines, perLine}
	if t, ok := wdCache[k]; ok {
		return t
	}
	t, err := NewWD(lines, perLine)
	if err != nil {
		return nil // unreachable: shape checked above
	}
	wdCache[k] = t
	return t
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
