package loopover

import (
	"context"
	"fmt"

	"github.com/tessera-solver/tessera/internal/bfs"
	"github.com/tessera-solver/tessera/internal/nibble"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// Walking-distance tables too large to build at request time (5×5: 126^4
// indices, 22 M patterns, minutes of BFS) are built once by `solverd
// tables build` and mapped: the payload is WD.Dist, one byte per index,
// Unreached where the index is no pattern.

// WDGenerator versions BuildWDTable's layout for the table files of the
// 5×5 search (ida55.Kind): bump it when the index or the entries change
// meaning.
const WDGenerator = 1

// WDTableEntries is the index size of the lines×perLine table, with no
// limit on what a process would build in memory.
func WDTableEntries(lines, perLine int) int {
	size := 1
	for i := 0; i < lines-1; i++ {
		size *= binom(perLine+lines-1, lines-1)
	}
	return size
}

// BuildWDTable computes the walking-distance table of lines×perLine with
// internal/bfs's builder over patterns (pushed at every level: most of the
// index is no pattern, so pulling would scan holes). It returns the
// payload (one byte per index, as WD.Dist) and the patterns per distance.
// When maxDepth is not negative it stops after that level: every index
// not labelled by then holds maxDepth+1, still a lower bound for the
// patterns among them (the tests' small stand-in for the 5×5 table file).
// progress, if not nil, is told the patterns labelled so far before the
// first level and after each.
func BuildWDTable(ctx context.Context, lines, perLine, workers, maxDepth int, progress func(done, total uint64)) ([]byte, []int64, error) {
	if lines < 2 || perLine < 2 || lines > MaxSide || perLine > MaxSide {
		return nil, nil, fmt.Errorf("walking distance %d×%d: sides must be 2..%d: %w", lines, perLine, MaxSide, puzzle.ErrMalformed)
	}
	t := newWDIndex(lines, perLine)
	size := uint64(WDTableEntries(lines, perLine))
	var goal [MaxSide]uint16
	copy(goal[:], t.goalCode)
	tb, err := bfs.Build(ctx, bfs.Spec{Size: size, Reached: t.patternCount(), Goals: []uint64{uint64(t.Index(&goal))},
		Workers: workers, MaxDepth: maxDepth, Progress: progress},
		func() bfs.Walker { return t.expander() })
	if err != nil {
		return nil, nil, fmt.Errorf("walking distance %d×%d: %w", lines, perLine, err)
	}
	out := make([]byte, size)
	for i := range out {
		v := uint8(tb.Packed[i>>4] >> ((i & 15) << 2) & 15)
		if v == nibble.Unreached {
			v = Unreached // no pattern (a capped build filled these with maxDepth+1)
		}
		out[i] = v
	}
	return out, tb.Counts, nil
}

// NewWD builds the table of `lines` lines of `perLine` cells by BFS over
// patterns from the goal (every line holding its own perLine pieces).
func NewWD(lines, perLine int) (*WD, error) {
	size, err := WDSize(lines, perLine)
	if err != nil {
		return nil, err
	}
	// The one table builder (internal/bfs), as for the 5×5 table file:
	// these tables are at most 2^22 entries and 8 levels deep.
	dist, counts, err := BuildWDTable(context.Background(), lines, perLine, 0, -1, nil)
	if err != nil {
		return nil, err
	}
	t := newWDIndex(lines, perLine)
	t.Dist = dist[:size]
	for _, c := range counts {
		t.Counts = append(t.Counts, int(c))
		t.Patterns += int(c)
	}
	return t, nil
}

// WDGoalIndex is the index of the goal pattern (distance 0) in the
// lines×perLine table.
func WDGoalIndex(lines, perLine int) int {
	t := newWDIndex(lines, perLine)
	var goal [MaxSide]uint16
	copy(goal[:], t.goalCode)
	return t.Index(&goal)
}

// NewWDFrom wraps the distances of a table built by BuildWDTable (e.g. a
// read-only mapped file; it is only read), refusing one of the wrong size
// or without 0 at the goal.
func NewWDFrom(lines, perLine int, dist []byte) (*WD, error) {
	if lines < 2 || perLine < 2 || lines > MaxSide || perLine > MaxSide {
		return nil, fmt.Errorf("walking distance %d×%d: sides must be 2..%d: %w", lines, perLine, MaxSide, puzzle.ErrMalformed)
	}
	if want := WDTableEntries(lines, perLine); len(dist) != want {
		return nil, fmt.Errorf("walking distance %d×%d: table has %d entries, want %d: %w", lines, perLine, len(dist), want, puzzle.ErrMalformed)
	}
	if dist[WDGoalIndex(lines, perLine)] != 0 {
		return nil, fmt.Errorf("walking distance %d×%d: table does not hold 0 at the goal: %w", lines, perLine, puzzle.ErrMalformed)
	}
	t := newWDIndex(lines, perLine)
	t.Dist = dist
	return t, nil
}

// patternCount is the number of patterns: ways to fill Lines lines of
// PerLine cells with PerLine pieces of each of Lines labels (counted line
// by line over the labels still available).
func (t *WD) patternCount() uint64 {
	L := t.Lines
	type key struct {
		left [MaxSide]uint8
		line int
	}
	memo := map[key]uint64{}
	var count func(line int, left [MaxSide]uint8) uint64
	count = func(line int, left [MaxSide]uint8) uint64 {
		if line == L-1 {
			return 1 // the last line takes what is left, PerLine pieces
		}
		k := key{left, line}
		if v, ok := memo[k]; ok {
			return v
		}
		var n uint64
		for _, c := range t.counts {
			next, ok := left, true
			for l := 0; l < L && ok; l++ {
				ok = c[l] <= left[l]
				next[l] -= c[l]
			}
			if ok {
				n += count(line+1, next)
			}
		}
		memo[k] = n
		return n
	}
	var all [MaxSide]uint8
	for l := 0; l < L; l++ {
		all[l] = uint8(t.PerLine)
	}
	return count(0, all)
}

// wdExpander enumerates a pattern's neighbours without allocating: per
// line, the labels it holds; one perpendicular shift takes one of them
// from every line into the next (down) or previous (up) line.
type wdExpander struct {
	t       *WD
	present [][MaxSide]uint8 // per code: the labels with a count > 0
	npres   []uint8
}

func (t *WD) expander() *wdExpander {
	e := &wdExpander{t: t, present: make([][MaxSide]uint8, t.Codes), npres: make([]uint8, t.Codes)}
	for code, c := range t.counts {
		for l := 0; l < t.Lines; l++ {
			if c[l] > 0 {
				e.present[code][e.npres[code]] = uint8(l)
				e.npres[code]++
			}
		}
	}
	return e
}

// Expand reaches every neighbour of pattern x.
func (e *wdExpander) Expand(x uint64, lv *bfs.Level) {
	t := e.t
	L := t.Lines
	var codes [MaxSide]uint16
	if !t.decode(int(x), &codes) {
		return // padding past the last pattern is never reached
	}
	var idx, pick [MaxSide]int
	for i := 0; i < L; i++ {
		pick[i] = int(e.present[codes[i]][0])
	}
	for {
		for dir := 1; dir < L; dir += L - 2 { // down (+1), then up (L−1 ≡ −1)
			y := 0
			for j := 0; j < L-1; j++ {
				from := (j - dir + L) % L // the line whose piece arrives in j
				y += int(t.Trans[(int(codes[j])*L+pick[j])*L+pick[from]]) * t.radix[j]
			}
			lv.Reach(uint64(y))
			if L == 2 {
				break // on two lines up and down are the same shift
			}
		}
		// Next choice of labels, odometer style.
		i := 0
		for ; i < L; i++ {
			c := codes[i]
			if idx[i]++; idx[i] < int(e.npres[c]) {
				pick[i] = int(e.present[c][idx[i]])
				break
			}
			idx[i] = 0
			pick[i] = int(e.present[c][0])
		}
		if i == L {
			return
		}
	}
}
