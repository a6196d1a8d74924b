package swap

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// parse reads "0110/1001" into rows, cols and row-major cells.
func parse(t testing.TB, s string) (int, int, []uint8) {
	t.Helper()
	lines := strings.Split(s, "/")
	var cells []uint8
	for _, l := range lines {
		if len(l) != len(lines[0]) {
			t.Fatalf("ragged board %q", s)
		}
		for _, ch := range l {
			cells = append(cells, uint8(ch-'0'))
		}
	}
	return len(lines), len(lines[0]), cells
}

// sortedGoal puts the ones of board in its first cells.
func sortedGoal(board []uint8) []uint8 {
	k := 0
	for _, b := range board {
		k += int(b)
	}
	g := make([]uint8, len(board))
	for i := range k {
		g[i] = 1
	}
	return g
}

func randomBoard(r *rand.Rand, n, ones int) []uint8 {
	b := make([]uint8, n)
	for i := range ones {
		b[i] = 1
	}
	r.Shuffle(n, func(i, j int) { b[i], b[j] = b[j], b[i] })
	return b
}

func mask(cells []uint8) uint32 {
	var m uint32
	for i, c := range cells {
		m |= uint32(c) << i
	}
	return m
}

func unmask(m uint32, n int) []uint8 {
	c := make([]uint8, n)
	for i := range c {
		c[i] = uint8(m >> i & 1)
	}
	return c
}

// bfs returns the swap distance of every bitmask board from goal (-1 for
// boards with a different number of ones), by plain breadth-first search.
func bfs(rows, cols int, goal uint32) []int8 {
	n := rows * cols
	var pairs [][2]int
	for r := range rows {
		for c := range cols {
			i := r*cols + c
			if c+1 < cols {
				pairs = append(pairs, [2]int{i, i + 1})
			}
			if r+1 < rows {
				pairs = append(pairs, [2]int{i, i + cols})
			}
		}
	}
	dist := make([]int8, 1<<n)
	for i := range dist {
		dist[i] = -1
	}
	dist[goal] = 0
	q := []uint32{goal}
	for len(q) > 0 {
		m := q[0]
		q = q[1:]
		for _, p := range pairs {
			if m>>p[0]&1 == m>>p[1]&1 {
				continue
			}
			x := m ^ (1 << p[0]) ^ (1 << p[1])
			if dist[x] < 0 {
				dist[x] = dist[m] + 1
				q = append(q, x)
			}
		}
	}
	return dist
}

// hungarian is the O(n²m) assignment algorithm with potentials; cost is
// n×m with n ≤ m. It returns the minimum total cost.
func hungarian(cost [][]int) int {
	n, m := len(cost), len(cost[0])
	const big = 1 << 60
	u := make([]int, n+1)
	v := make([]int, m+1)
	p := make([]int, m+1)
	way := make([]int, m+1)
	minv := make([]int, m+1)
	used := make([]bool, m+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = big
			used[j] = false
		}
		for p[j0] != 0 {
			used[j0] = true
			i0, delta, j1 := p[j0], big, 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				cur := cost[i0-1][j-1] - u[i0] - v[j]
				if cur < minv[j] {
					minv[j] = cur
					way[j] = j0
				}
				if minv[j] < delta {
					delta = minv[j]
					j1 = j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	total := 0
	for j := 1; j <= m; j++ {
		if p[j] != 0 {
			total += cost[p[j]-1][j-1]
		}
	}
	return total
}

// matchCost is the Hungarian matching of ones to goal cells with Manhattan
// costs; misplacedOnly drops the cells where board and goal agree.
func matchCost(cols int, board, goal []uint8, misplacedOnly bool) int {
	var from, to []int
	for i := range board {
		if misplacedOnly && board[i] == goal[i] {
			continue
		}
		if board[i] == 1 {
			from = append(from, i)
		}
		if goal[i] == 1 {
			to = append(to, i)
		}
	}
	if len(from) == 0 {
		return 0
	}
	cost := make([][]int, len(from))
	for a, f := range from {
		cost[a] = make([]int, len(to))
		for b, g := range to {
			dr := f/cols - g/cols
			dc := f%cols - g%cols
			cost[a][b] = max(dr, -dr) + max(dc, -dc)
		}
	}
	return hungarian(cost)
}

// replay plays moves on board and checks that each is on the board and
// swaps a 1 with a 0, that the end is goal and that there are want moves.
func replay(rows, cols int, board, goal []uint8, moves []puzzle.Move, want int) error {
	if len(moves) != want {
		return fmt.Errorf("%d moves, want %d", len(moves), want)
	}
	b := append([]uint8(nil), board...)
	for k, m := range moves {
		if m.Line < 0 || m.Line >= rows || m.Col < 0 || m.Col >= cols {
			return fmt.Errorf("move %d %+v off the board", k, m)
		}
		i := m.Line*cols + m.Col
		var j int
		switch m.Dir {
		case puzzle.Right:
			if m.Col+1 >= cols {
				return fmt.Errorf("move %d %+v off the board", k, m)
			}
			j = i + 1
		case puzzle.Down:
			if m.Line+1 >= rows {
				return fmt.Errorf("move %d %+v off the board", k, m)
			}
			j = i + cols
		default:
			return fmt.Errorf("move %d %+v: direction must be Right or Down", k, m)
		}
		if b[i] == b[j] {
			return fmt.Errorf("move %d %+v swaps two equal cells", k, m)
		}
		b[i], b[j] = b[j], b[i]
	}
	for i := range b {
		if b[i] != goal[i] {
			return fmt.Errorf("after the moves cell %d is %d, goal %d", i, b[i], goal[i])
		}
	}
	return nil
}

// solveChecked runs Distance and Solve and replays the answer.
func solveChecked(t testing.TB, rows, cols int, board, goal []uint8) int {
	t.Helper()
	d, err := Distance(rows, cols, board, goal)
	if err != nil {
		t.Fatalf("Distance(%v → %v): %v", board, goal, err)
	}
	moves, err := Solve(rows, cols, board, goal)
	if err != nil {
		t.Fatalf("Solve(%v → %v): %v", board, goal, err)
	}
	if err := replay(rows, cols, board, goal, moves, d); err != nil {
		t.Fatalf("%dx%d %v → %v: %v", rows, cols, board, goal, err)
	}
	return d
}

// modes runs a test body with the default solver, with cold starts only
// (plain successive shortest paths) and with the coarse warm start forced
// on boards of every size, so that each oracle checks every code path.
func modes(t *testing.T, body func(t *testing.T)) {
	defer func(m bool, c int) { multiscale, coarseMin = m, c }(multiscale, coarseMin)
	for _, m := range []struct {
		name       string
		multiscale bool
		coarseMin  int
	}{{"default", true, coarseMin}, {"cold", false, coarseMin}, {"warm", true, 2}} {
		multiscale, coarseMin = m.multiscale, m.coarseMin
		t.Run(m.name, body)
	}
}

func TestSeedExamples(t *testing.T) { modes(t, testSeedExamples) }

func testSeedExamples(t *testing.T) {
	cases := []struct {
		board string
		want  int
	}{
		{"1101/0110/0100/1010", 8},
		{"001101011000/011100000011/011001011111/011010111111/000000101110/000110001010/" +
			"000100101101/010001110001/111100100011/001011100001/110010100101/010111111101", 267},
	}
	for _, c := range cases {
		rows, cols, board := parse(t, c.board)
		goal := sortedGoal(board)
		if got := solveChecked(t, rows, cols, board, goal); got != c.want {
			t.Errorf("%s: distance %d, want %d", c.board, got, c.want)
		}
		if h := matchCost(cols, board, goal, false); h != c.want {
			t.Errorf("%s: Hungarian %d, want %d", c.board, h, c.want)
		}
	}
	// The 12x12 goal is six full rows.
	_, _, board := parse(t, cases[1].board)
	if g := sortedGoal(board); g[71] != 1 || g[72] != 0 {
		t.Errorf("12x12 board does not have 72 ones")
	}
}

// Every 4x4 board with 8 ones and every 3x4 board against BFS.
func TestAgainstBFS(t *testing.T) { modes(t, testAgainstBFS) }

func testAgainstBFS(t *testing.T) {
	for _, sh := range []struct{ rows, cols int }{{4, 4}, {3, 4}, {2, 5}, {1, 7}, {5, 2}} {
		n := sh.rows * sh.cols
		for k := 0; k <= n; k++ {
			if sh.rows == 4 && sh.cols == 4 && k != 8 {
				continue
			}
			goal := unmask(1<<k-1, n)
			dist := bfs(sh.rows, sh.cols, 1<<k-1)
			for m := uint32(0); m < 1<<n; m++ {
				if bits.OnesCount32(m) != k {
					continue
				}
				board := unmask(m, n)
				if got := solveChecked(t, sh.rows, sh.cols, board, goal); got != int(dist[m]) {
					t.Fatalf("%dx%d %v: distance %d, BFS %d", sh.rows, sh.cols, board, got, dist[m])
				}
			}
		}
	}
}

// Arbitrary goal patterns: BFS from a random goal, every board with the
// same number of ones.
func TestExplicitGoalsAgainstBFS(t *testing.T) { modes(t, testExplicitGoalsAgainstBFS) }

func testExplicitGoalsAgainstBFS(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range []struct{ rows, cols, goals int }{{4, 4, 4}, {3, 5, 4}, {2, 8, 3}, {3, 3, 10}} {
		n := sh.rows * sh.cols
		for range sh.goals {
			k := 1 + r.IntN(n-1)
			goal := randomBoard(r, n, k)
			dist := bfs(sh.rows, sh.cols, mask(goal))
			for m := uint32(0); m < 1<<n; m++ {
				if dist[m] < 0 {
					continue
				}
				board := unmask(m, n)
				if got := solveChecked(t, sh.rows, sh.cols, board, goal); got != int(dist[m]) {
					t.Fatalf("%dx%d %v → %v: distance %d, BFS %d", sh.rows, sh.cols, board, goal, got, dist[m])
				}
			}
		}
	}
}

// The flow agrees with the Hungarian method over all ones (no reduction)
// and over the misplaced ones only, which checks the claim that ones on
// goal cells may stay matched to themselves.
func TestAgainstHungarian(t *testing.T) { modes(t, testAgainstHungarian) }

func testAgainstHungarian(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	shapes := []struct{ rows, cols int }{{5, 5}, {6, 9}, {10, 10}, {12, 12}, {1, 40}, {13, 7}}
	reps := 30
	if !testing.Short() {
		shapes = append(shapes, struct{ rows, cols int }{20, 20})
	}
	for _, sh := range shapes {
		n := sh.rows * sh.cols
		for rep := range reps {
			k := r.IntN(n + 1)
			board := randomBoard(r, n, k)
			goal := sortedGoal(board)
			if rep%2 == 1 {
				goal = randomBoard(r, n, k)
			}
			d := solveChecked(t, sh.rows, sh.cols, board, goal)
			full := matchCost(sh.cols, board, goal, false)
			part := matchCost(sh.cols, board, goal, true)
			if d != full || d != part {
				t.Fatalf("%dx%d %v → %v: flow %d, Hungarian all ones %d, misplaced only %d", sh.rows, sh.cols, board, goal, d, full, part)
			}
		}
	}
}

// On a single row the optimal matching pairs the i-th one with the i-th
// goal cell.
func TestOneRow(t *testing.T) { modes(t, testOneRow) }

func testOneRow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		n := 1 + r.IntN(60)
		k := r.IntN(n + 1)
		board, goal := randomBoard(r, n, k), randomBoard(r, n, k)
		want := 0
		var a, b []int
		for i := range n {
			if board[i] == 1 {
				a = append(a, i)
			}
			if goal[i] == 1 {
				b = append(b, i)
			}
		}
		for i := range a {
			want += max(a[i]-b[i], b[i]-a[i])
		}
		if got := solveChecked(t, 1, n, board, goal); got != want {
			t.Fatalf("1x%d %v → %v: %d, want %d", n, board, goal, got, want)
		}
		// The same board as a column.
		if got := solveChecked(t, n, 1, board, goal); got != want {
			t.Fatalf("%dx1 %v → %v: %d, want %d", n, board, goal, got, want)
		}
	}
}

// Large boards: the answer replays, and the warm-started solver agrees
// with plain successive shortest paths (checked against the oracles above).
func TestLargeBoardsReplay(t *testing.T) {
	defer func(m bool) { multiscale = m }(multiscale)
	r := rand.New(rand.NewPCG(7, 8))
	sizes := []struct{ rows, cols int }{{50, 50}, {30, 70}, {100, 100}}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, sh := range sizes {
		n := sh.rows * sh.cols
		for _, frac := range []int{2, 5} {
			board := randomBoard(r, n, n/frac)
			for _, goal := range [][]uint8{sortedGoal(board), randomBoard(r, n, n/frac)} {
				multiscale = true
				warm := solveChecked(t, sh.rows, sh.cols, board, goal)
				multiscale = false
				cold, err := Distance(sh.rows, sh.cols, board, goal)
				if err != nil || cold != warm {
					t.Fatalf("%dx%d 1/%d ones: warm start %d, cold %d (%v)", sh.rows, sh.cols, frac, warm, cold, err)
				}
			}
		}
	}
}

// Far-travelling and symmetric boards with closed-form distances.
func TestAdversarialShapes(t *testing.T) { modes(t, testAdversarialShapes) }

func testAdversarialShapes(t *testing.T) {
	for _, sh := range []struct{ rows, cols int }{{40, 40}, {2, 200}, {200, 2}, {30, 17}} {
		n := sh.rows * sh.cols
		// Reversed: the bottom half rows of ones move up rows/2 each.
		board := make([]uint8, n)
		for i := n / 2; i < n; i++ {
			board[i] = 1
		}
		d := solveChecked(t, sh.rows, sh.cols, board, sortedGoal(board))
		if want := sh.rows / 2 * sh.rows / 2 * sh.cols; d != want {
			t.Fatalf("%dx%d reversed: %d, want %d", sh.rows, sh.cols, d, want)
		}
		if h := matchCost(sh.cols, board, sortedGoal(board), true); h != d {
			t.Fatalf("%dx%d reversed: flow %d, Hungarian %d", sh.rows, sh.cols, d, h)
		}
		// Checkerboard to its complement: every one moves exactly once.
		for i := range board {
			board[i] = uint8((i/sh.cols + i%sh.cols) % 2)
		}
		goal := make([]uint8, n)
		for i := range goal {
			goal[i] = 1 - board[i]
		}
		if n%2 == 0 {
			if d := solveChecked(t, sh.rows, sh.cols, board, goal); d != n/2 {
				t.Fatalf("%dx%d checkerboard: %d, want %d", sh.rows, sh.cols, d, n/2)
			}
		}
	}
}

// Pooled solvers are reused across goroutines: concurrent calls must not
// share state (run with -race).
func TestConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	type job struct {
		rows, cols  int
		board, goal []uint8
		want        int
	}
	var jobs []job
	for i := range 16 {
		rows, cols := 3+i, 20-i
		n := rows * cols
		board := randomBoard(r, n, n/3)
		goal := randomBoard(r, n, n/3)
		want, err := Distance(rows, cols, board, goal)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{rows, cols, board, goal, want})
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for k := range 40 {
				j := jobs[(g*7+k)%len(jobs)]
				moves, err := Solve(j.rows, j.cols, j.board, j.goal)
				if err == nil {
					err = replay(j.rows, j.cols, j.board, j.goal, moves, j.want)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestBadInput(t *testing.T) {
	ok := []uint8{1, 0, 0, 1}
	cases := []struct {
		name        string
		rows, cols  int
		board, goal []uint8
		msg         string
	}{
		{"zero rows", 0, 2, nil, nil, "sides must be between 1 and 1000"},
		{"negative cols", 2, -2, ok, ok, "sides must be between 1 and 1000"},
		{"huge", 1 << 40, 1 << 40, nil, nil, "sides must be between 1 and 1000"},
		{"short board", 2, 2, []uint8{1, 0, 0}, ok, "board has 3 cells, want 4"},
		{"long goal", 2, 2, ok, []uint8{1, 0, 0, 1, 0}, "goal has 5 cells, want 4"},
		{"bad board value", 2, 2, []uint8{1, 2, 0, 1}, ok, "board cell row 1 col 2 is 2"},
		{"bad goal value", 2, 2, ok, []uint8{1, 0, 0, '1'}, "goal cell row 2 col 2 is 49"},
		{"different ones", 2, 2, ok, []uint8{1, 1, 0, 1}, "board has 2 ones, goal has 3"},
	}
	for _, c := range cases {
		_, err := Distance(c.rows, c.cols, c.board, c.goal)
		_, err2 := Solve(c.rows, c.cols, c.board, c.goal)
		for _, e := range []error{err, err2} {
			if e == nil || !errors.Is(e, puzzle.ErrMalformed) || !strings.Contains(e.Error(), c.msg) {
				t.Errorf("%s: error %v, want ErrMalformed naming %q", c.name, e, c.msg)
			}
		}
	}
}

func TestTrivial(t *testing.T) {
	for _, b := range [][]uint8{{0}, {1}, {0, 0, 0, 0}, {1, 1, 1, 1}, {1, 0, 0, 1}} {
		moves, err := Solve(1, len(b), b, b)
		if err != nil || moves == nil || len(moves) != 0 {
			t.Errorf("Solve(%v → itself) = %v, %v; want no moves", b, moves, err)
		}
	}
}

// FuzzSolve reads arbitrary bytes as a board and a goal (the goal keeps
// the board's count of ones), replays the answer and compares with BFS
// when the board is small.
func FuzzSolve(f *testing.F) {
	f.Add(uint8(4), uint8(4), []byte{1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0}, []byte{3, 1, 4, 1, 5})
	f.Add(uint8(1), uint8(1), []byte{1}, []byte{})
	f.Add(uint8(3), uint8(5), []byte{0xff, 0x0f}, []byte{9, 9, 9})
	defer func(m bool, c int) { multiscale, coarseMin = m, c }(multiscale, coarseMin)
	f.Fuzz(func(t *testing.T, rows, cols uint8, bs, perm []byte) {
		// The top bits pick the solver path: default, cold, forced warm.
		multiscale, coarseMin = rows&0x80 == 0, 256
		if cols&0x80 != 0 {
			multiscale, coarseMin = true, 2
		}
		r, c := int(rows%12)+1, int(cols%12)+1
		n := r * c
		board := make([]uint8, n)
		for i := range board {
			if i < len(bs) {
				board[i] = bs[i] & 1
			}
		}
		goal := append([]uint8(nil), board...)
		for i, p := range perm {
			j := (i * 7) % n
			k := int(p) % n
			goal[j], goal[k] = goal[k], goal[j]
		}
		d := solveChecked(t, r, c, board, goal)
		if n <= 16 {
			if want := bfs(r, c, mask(goal))[mask(board)]; int(want) != d {
				t.Fatalf("%dx%d %v → %v: %d, BFS %d", r, c, board, goal, d, want)
			}
		} else if n <= 64 {
			if h := matchCost(c, board, goal, false); h != d {
				t.Fatalf("%dx%d %v → %v: %d, Hungarian %d", r, c, board, goal, d, h)
			}
		}
	})
}
