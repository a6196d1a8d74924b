package sliding_test

// Admissibility and consistency of the sliding heuristics against exact
// distances from the BFS tables of internal/fulltable. This is an external
// test package so that it uses only what the searcher exports.
//
// What each heuristic must satisfy, for every state s with distance d(s)
// and every neighbour s′ (one move away):
//
//   - Manhattan (MD): h ≤ d. A move carries one tile one cell, so MD changes
//     by exactly ±1; hence |h(s) − h(s′)| = 1 and h ≡ d (mod 2).
//   - MD + exact linear conflict (LC): h ≤ d, and also exactly ±1 per move.
//     A vertical move leaves every column's tile order (blank ignored)
//     unchanged, so only the two rows' conflicts can change, and only when
//     one of them is the moving tile's goal row: leaving that row raises
//     vertical MD by 1 and lowers its 2·(n − LIS) by 0 or 2; entering it
//     lowers MD by 1 and raises the conflict by 0 or 2; otherwise only MD
//     changes. Either way the total moves by ±1 (horizontal moves
//     likewise), so h ≡ d.
//   - Walking distance (WD, vertical + horizontal): each axis is a BFS
//     distance in an abstraction whose moves are exactly the board's moves
//     along that axis, and the abstract graph is layered (every edge joins
//     adjacent depths, TestWDGolden), so the sum moves by exactly ±1 per
//     move: h ≤ d, |Δh| = 1, h ≡ d. Each axis dominates that axis of MD.
//   - Inversion distance (ID): a vertical move changes the row-major
//     inversion count by at most w−1 and leaves the column-major one alone
//     (horizontal moves the reverse), and InversionBound(x) ≤
//     InversionBound(x′) + 1 whenever x′ is one such step from x. So
//     |Δh| ≤ 1; no parity claim (on odd widths a vertical move may change
//     the count by 0).
//   - sliding.Searcher.Heuristic: per axis max(WD, ID), summed, raised to the
//     parity of the blank's distance to its goal cell (≡ d). It is ≤ d,
//     ≡ d, changes by exactly ±1 per move, and dominates WD and ID.
//
// Every heuristic is 0 at the goal (covered by the enumeration), equals d
// on some non-goal state, and on the exhaustively checked boards its
// maximum is pinned, so a heuristic that returns 0 (or anything too small)
// everywhere fails.

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/sliding"
)

const (
	hMD = iota
	hMDLC
	hID
	hWD
	hComb
	nH
)

var hName = [nH]string{"manhattan", "manhattan+linear conflict", "inversion distance", "walking distance", "sliding.Searcher.Heuristic"}

// exactStep: the heuristic changes by exactly ±1 per move (hence has the
// parity of the distance); the others change by at most 1.
var exactStep = [nH]bool{hMD: true, hMDLC: true, hID: false, hWD: true, hComb: true}

type hvals [nH]int8

// board is one sliding shape with its searcher (for the combined bound).
type board struct {
	w, h int // columns, rows
	s    *sliding.Searcher
}

// refManhattan and refLinearConflict are straightforward reimplementations
// (goal cell of tile t is t−1; exact LC by an O(n²) LIS per line), so that
// the package's versions are checked against a second reading of the
// definition, not only bounded.
func refManhattan(w int, cells []uint8) int {
	md := 0
	for i, t := range cells {
		if t != 0 {
			md += absDiff(i/w, int(t-1)/w) + absDiff(i%w, int(t-1)%w)
		}
	}
	return md
}

func refLinearConflict(w, h int, cells []uint8) int {
	lc := 0
	line := func(at func(k int) int, n, lineNo int, goalLine, goalPos func(t int) int) {
		var pos []int
		for k := 0; k < n; k++ {
			if t := at(k); t != 0 && goalLine(t) == lineNo {
				pos = append(pos, goalPos(t))
			}
		}
		best := 0
		lis := make([]int, len(pos))
		for i := range pos {
			lis[i] = 1
			for j := 0; j < i; j++ {
				if pos[j] < pos[i] && lis[j]+1 > lis[i] {
					lis[i] = lis[j] + 1
				}
			}
			best = max(best, lis[i])
		}
		lc += 2 * (len(pos) - best)
	}
	row := func(t int) int { return (t - 1) / w }
	col := func(t int) int { return (t - 1) % w }
	for r := 0; r < h; r++ {
		line(func(k int) int { return int(cells[r*w+k]) }, w, r, row, col)
	}
	for c := 0; c < w; c++ {
		line(func(k int) int { return int(cells[k*w+c]) }, h, c, col, row)
	}
	return lc
}

func absDiff(a, b int) int {
	if a < b {
		return b - a
	}
	return a - b
}

// eval computes every heuristic of cells and checks the relations between
// them that hold state by state; it returns a description of the first
// violation, or "".
func (b *board) eval(cells []uint8) (hvals, string) {
	w, h := b.w, b.h
	var v hvals
	md := sliding.Manhattan(h, w, cells)
	mdv, mdh := sliding.ManhattanAxes(h, w, cells)
	lc := sliding.LinearConflict(h, w, cells)
	lcr, lcc := sliding.LinearConflictAxes(h, w, cells)
	iv, ih := sliding.InversionAxes(h, w, cells)
	id := sliding.InversionDistance(h, w, cells)
	wdv, wdh, vok, hok := sliding.WalkingAxes(h, w, cells)
	comb := b.s.Heuristic(cells)
	idv, idh := sliding.InversionBound(iv, w-1), sliding.InversionBound(ih, h-1)
	v[hMD], v[hMDLC], v[hID], v[hWD], v[hComb] = int8(md), int8(md+lc), int8(id), int8(wdv+wdh), int8(comb)
	switch {
	case md != refManhattan(w, cells):
		return v, fmt.Sprintf("Manhattan %d, reference %d", md, refManhattan(w, cells))
	case lc != refLinearConflict(w, h, cells):
		return v, fmt.Sprintf("LinearConflict %d, reference %d", lc, refLinearConflict(w, h, cells))
	case mdv+mdh != md || lcr+lcc != lc:
		return v, fmt.Sprintf("axes do not add up: md %d = %d+%d, lc %d = %d+%d", md, mdv, mdh, lc, lcr, lcc)
	case lc%2 != 0:
		return v, fmt.Sprintf("odd linear conflict %d", lc)
	case id != idv+idh:
		return v, fmt.Sprintf("InversionDistance %d ≠ InversionBound(%d, %d) + InversionBound(%d, %d) = %d + %d", id, iv, w-1, ih, h-1, idv, idh)
	case !vok || !hok:
		return v, fmt.Sprintf("no walking-distance table (vertical %v, horizontal %v)", vok, hok)
	case wdv < mdv || wdh < mdh:
		return v, fmt.Sprintf("walking distance %d+%d below Manhattan %d+%d", wdv, wdh, mdv, mdh)
	case comb < max(wdv, idv)+max(wdh, idh):
		return v, fmt.Sprintf("combined %d below per-axis max(WD, ID) = max(%d,%d)+max(%d,%d)", comb, wdv, idv, wdh, idh)
	}
	return v, ""
}

// neighbours calls f with each board one move from cells (in scratch).
func neighbours(w, h int, cells, scratch []uint8, f func(nb []uint8)) {
	b := 0
	for i, t := range cells {
		if t == 0 {
			b = i
		}
	}
	r, c := b/w, b%w
	for _, src := range [4]int{b - w, b + w, b - 1, b + 1} {
		if (src == b-w && r == 0) || (src == b+w && r == h-1) || (src == b-1 && c == 0) || (src == b+1 && c == w-1) {
			continue
		}
		copy(scratch, cells)
		scratch[b], scratch[src] = scratch[src], 0
		f(scratch)
	}
}

// stats gathers per-heuristic aggregates over the checked states.
type stats struct {
	mu     sync.Mutex
	max    [nH]int
	exact  [nH]int64 // non-goal states with h = d
	sum    [nH]int64
	states int64
}

func (s *stats) add(v hvals, d int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states++
	for k := range nH {
		s.max[k] = max(s.max[k], int(v[k]))
		s.sum[k] += int64(v[k])
		if d > 0 && int(v[k]) == d {
			s.exact[k]++
		}
	}
}

// golden pins the maximum and the sum of each heuristic over all states of
// the exhaustively checked boards (order of hName). MD, MD+LC, ID and WD
// are defined quantities, so any change is a bug; the combined bound may
// only grow. The Manhattan sums agree with the closed form (each tile's
// expected distance to its goal cell from a uniform cell, summed: 3x3 has
// mean 14 exactly). Transposed boards have the same figures by symmetry.
var golden = map[string]struct{ max, sum [nH]int64 }{
	"sliding:2x3": {[nH]int64{12, 13, 15, 15, 15}, [nH]int64{2460, 2778, 2700, 2948, 3186}},
	"sliding:3x2": {[nH]int64{12, 13, 15, 15, 15}, [nH]int64{2460, 2778, 2700, 2948, 3186}},
	"sliding:3x3": {[nH]int64{22, 28, 28, 28, 28}, [nH]int64{2540160, 2743200, 2540160, 2845584, 2934996}},
	"sliding:2x4": {[nH]int64{21, 23, 28, 28, 28}, [nH]int64{241920, 276096, 295680, 311264, 327808}},
	"sliding:4x2": {[nH]int64{21, 23, 28, 28, 28}, [nH]int64{241920, 276096, 295680, 311264, 327808}},
}

func TestHeuristicsAdmissible(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rows, cols  int
		full, short int // states checked (≥ the state count: all)
	}{
		{2, 3, 1 << 30, 1 << 30},
		{3, 2, 1 << 30, 1 << 30},
		{3, 3, 1 << 30, 20000},
		{2, 4, 1 << 30, 4000},
		{4, 2, 1 << 30, 4000},
		{2, 5, 20000, 0},
		{5, 2, 20000, 0},
	} {
		sp := puzzle.Spec{Kind: puzzle.Sliding, Rows: c.rows, Cols: c.cols}
		t.Run(sp.String(), func(t *testing.T) {
			t.Parallel()
			n := samples(t, c.full, c.short)
			tb, err := fulltable.Build(sp)
			if err != nil {
				t.Fatal(err)
			}
			s, err := sliding.NewSearcher(c.rows, c.cols)
			if err != nil {
				t.Fatal(err)
			}
			b := &board{w: c.cols, h: c.rows, s: s}
			idx := sampleIndices(tb.Size(), n)
			exhaustive := uint64(len(idx)) == tb.Size()
			checkBoard(t, b, tb, idx, exhaustive)
		})
	}
}

func checkBoard(t *testing.T, b *board, tb *fulltable.Table, idx []uint64, exhaustive bool) {
	sp := tb.Spec
	workers := runtime.GOMAXPROCS(0)
	cellsBuf := make([][]uint8, workers)
	nbBuf := make([][]uint8, workers)
	for w := range cellsBuf {
		cellsBuf[w], nbBuf[w] = make([]uint8, sp.Cells()), make([]uint8, sp.Cells())
	}
	var fail failures
	fail.t = t
	var st stats

	// Exhaustive boards evaluate each state once and look neighbours up by
	// table index; sampled ones evaluate the neighbours directly.
	var cache []hvals
	if exhaustive {
		cache = make([]hvals, tb.Size())
	}
	eachState(tb, idx, &fail, func(w, i int, cells []uint8, d int) {
		v, why := b.eval(cells)
		if why != "" {
			fail.errorf("%s %v: %s", sp, cells, why)
		}
		for k := range nH {
			h := int(v[k])
			if h < 0 || h > d {
				fail.errorf("%s %v: %s %d exceeds the distance %d", sp, cells, hName[k], h, d)
			}
			if exactStep[k] && (d-h)%2 != 0 {
				fail.errorf("%s %v: %s %d, distance %d: parities differ", sp, cells, hName[k], h, d)
			}
		}
		st.add(v, d)
		if exhaustive {
			cache[idx[i]] = v
			return
		}
		neighbours(b.w, b.h, cells, nbBuf[w], func(nb []uint8) {
			u, why := b.eval(nb)
			if why != "" {
				fail.errorf("%s %v: %s", sp, nb, why)
			}
			checkStep(&fail, sp, cells, nb, v, u)
		})
	})
	if exhaustive && !t.Failed() {
		parallel(len(idx), fail.stop, func(w, i int) {
			cells := cellsBuf[w]
			tb.Cells(idx[i], cells)
			neighbours(b.w, b.h, cells, nbBuf[w], func(nb []uint8) {
				j, ok := tb.Index(nb)
				if !ok {
					fail.errorf("%s %v: neighbour %v not in the table", sp, cells, nb)
					return
				}
				checkStep(&fail, sp, cells, nb, cache[idx[i]], cache[j])
			})
		})
	}
	if t.Failed() {
		return
	}

	for k := range nH {
		switch {
		case exhaustive && st.exact[k] == 0:
			t.Errorf("%s: %s is below the distance on every non-goal state", sp, hName[k])
		case !exhaustive && 2*st.max[k] < tb.MaxDepth():
			t.Errorf("%s: %s is at most %d on the sample, under half of the deepest distance %d", sp, hName[k], st.max[k], tb.MaxDepth())
		}
	}
	t.Logf("%s: %d states (exhaustive %v); max %v, mean %v (distance: max %d), h = d on %v sum %v",
		sp, st.states, exhaustive, st.max, means(st.sum, st.states), tb.MaxDepth(), st.exact, st.sum)
	if !exhaustive {
		return
	}
	want, ok := golden[sp.String()]
	if !ok {
		t.Errorf("%s: no golden maxima", sp)
		return
	}
	for k := range nH {
		gotMax, gotSum := int64(st.max[k]), st.sum[k]
		if k == hComb {
			if gotMax < want.max[k] || gotSum < want.sum[k] {
				t.Errorf("%s: %s over all states: max %d sum %d, weaker than the recorded max %d sum %d",
					sp, hName[k], gotMax, gotSum, want.max[k], want.sum[k])
			}
		} else if gotMax != want.max[k] || gotSum != want.sum[k] {
			t.Errorf("%s: %s over all states: max %d sum %d, want max %d sum %d",
				sp, hName[k], gotMax, gotSum, want.max[k], want.sum[k])
		}
	}
}

func checkStep(fail *failures, sp puzzle.Spec, cells, nb []uint8, v, u hvals) {
	for k := range nH {
		delta := int(v[k]) - int(u[k])
		if delta < -1 || delta > 1 || (exactStep[k] && delta == 0) {
			fail.errorf("%s %v → %v: %s goes %d → %d (one move may change it by %s)",
				sp, cells, nb, hName[k], v[k], u[k], map[bool]string{true: "exactly 1", false: "at most 1"}[exactStep[k]])
		}
	}
}

func means(sum [nH]int64, n int64) [nH]string {
	var out [nH]string
	for k := range sum {
		out[k] = fmt.Sprintf("%.2f", float64(sum[k])/float64(n))
	}
	return out
}
