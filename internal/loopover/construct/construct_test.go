package construct

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

func spec(r, c int) puzzle.Spec { return puzzle.Spec{Kind: puzzle.Loopover, Rows: r, Cols: c} }

// randomCells is a uniformly random reachable board: a shuffle, with two
// pieces swapped when an odd×odd board got an odd permutation.
func randomCells(rng *rand.Rand, r, c int) []uint8 {
	cells := puzzle.Goal(spec(r, c)).Cells
	rng.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
	if r%2 == 1 && c%2 == 1 && oddPerm(cells) {
		cells[0], cells[1] = cells[1], cells[0]
	}
	return cells
}

func oddPerm(cells []uint8) bool {
	inv := 0
	for i := range cells {
		for j := i + 1; j < len(cells); j++ {
			if cells[j] < cells[i] {
				inv++
			}
		}
	}
	return inv%2 == 1
}

// solveAndCheck solves cells and checks the answer: it reaches the goal
// when replayed (and as text, through puzzle.Verify), it leaves the input
// alone, and it is in the simplified form: no line is shifted by more
// than half its length between moves of the crossing lines, and never
// both ways.
func solveAndCheck(t *testing.T, r, c int, cells []uint8) []puzzle.Move {
	t.Helper()
	in := slices.Clone(cells)
	ms, err := Solve(r, c, cells)
	if err != nil {
		t.Fatalf("%dx%d %v: %v", r, c, cells, err)
	}
	if !slices.Equal(in, cells) {
		t.Fatalf("%dx%d: Solve changed its input", r, c)
	}
	st := puzzle.State{Spec: spec(r, c), Cells: slices.Clone(cells)}
	if err := st.ApplyMoves(ms); err != nil {
		t.Fatalf("%dx%d %v: replay: %v", r, c, cells, err)
	}
	if !st.IsGoal() {
		t.Fatalf("%dx%d %v: %d moves end at %v, not the goal", r, c, cells, len(ms), st.Cells)
	}
	if err := puzzle.Verify(puzzle.State{Spec: spec(r, c), Cells: cells}, puzzle.FormatMoves(spec(r, c), ms)); err != nil {
		t.Fatalf("%dx%d: Verify: %v", r, c, err)
	}
	// Net shift per line within each run of parallel moves.
	var net [2][puzzle.MaxSide]int
	var dirs [2][puzzle.MaxSide]puzzle.Dir
	runCol := -1
	flush := func() {
		for k := range net {
			for line, n := range net[k] {
				size := c
				if k == 1 {
					size = r
				}
				if 2*n > size {
					t.Fatalf("%dx%d: line %d shifted %d times in a run, more than half its %d cells: %s",
						r, c, line+1, n, size, puzzle.FormatMoves(spec(r, c), ms))
				}
				net[k][line] = 0
			}
		}
	}
	for _, m := range ms {
		k := 0
		if m.Dir == puzzle.Up || m.Dir == puzzle.Down {
			k = 1
		}
		if k != runCol {
			flush()
			runCol = k
		}
		if net[k][m.Line] > 0 && dirs[k][m.Line] != m.Dir {
			t.Fatalf("%dx%d: line %d shifted both ways in one run: %s", r, c, m.Line+1, puzzle.FormatMoves(spec(r, c), ms))
		}
		net[k][m.Line]++
		dirs[k][m.Line] = m.Dir
	}
	flush()
	return ms
}

// states per size: thousands in all, fewer on big boards.
func statesFor(r, c int) int {
	n := 6000 / (r * c)
	if testing.Short() {
		n /= 5
	}
	return max(n, 8)
}

func TestRandomAllSizes(t *testing.T) {
	for r := puzzle.MinSide; r <= puzzle.MaxSide; r++ {
		for c := puzzle.MinSide; c <= puzzle.MaxSide; c++ {
			t.Run(fmt.Sprintf("%dx%d", r, c), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(r), uint64(c)))
				for range statesFor(r, c) {
					solveAndCheck(t, r, c, randomCells(rng, r, c))
				}
			})
		}
	}
}

func TestGoal(t *testing.T) {
	for r := puzzle.MinSide; r <= puzzle.MaxSide; r++ {
		for c := puzzle.MinSide; c <= puzzle.MaxSide; c++ {
			if ms := solveAndCheck(t, r, c, puzzle.Goal(spec(r, c)).Cells); len(ms) != 0 {
				t.Errorf("%dx%d goal: %d moves, want none", r, c, len(ms))
			}
		}
	}
}

// Every board one move from the goal is solved in one move.
func TestOneMove(t *testing.T) {
	for r := puzzle.MinSide; r <= puzzle.MaxSide; r++ {
		for c := puzzle.MinSide; c <= puzzle.MaxSide; c++ {
			for _, m := range puzzle.LegalMoves(puzzle.Goal(spec(r, c))) {
				st := puzzle.Goal(spec(r, c))
				if err := st.Apply(m); err != nil {
					t.Fatal(err)
				}
				if ms := solveAndCheck(t, r, c, st.Cells); len(ms) != 1 {
					t.Errorf("%dx%d after %s: %d moves %s, want 1", r, c,
						puzzle.FormatMoves(spec(r, c), []puzzle.Move{m}), len(ms), puzzle.FormatMoves(spec(r, c), ms))
				}
			}
		}
	}
}

// Scrambles of a few moves: lightly scrambled boards take the undo search
// (undo.go); two moves are always undone in at most two.
func TestRandomWalks(t *testing.T) {
	for _, sz := range [][2]int{{2, 5}, {3, 3}, {4, 4}, {5, 5}, {4, 7}, {6, 6}, {7, 7}, {8, 8}, {8, 3}} {
		r, c := sz[0], sz[1]
		rng := rand.New(rand.NewPCG(7, uint64(r*10+c)))
		for length := 1; length <= 12; length++ {
			for range 10 {
				st := puzzle.RandomWalk(spec(r, c), rng, length)
				ms := solveAndCheck(t, r, c, st.Cells)
				if length <= 2 && len(ms) > length {
					t.Errorf("%dx%d, %d-move scramble %v: %d moves %s", r, c, length, st.Cells, len(ms), puzzle.FormatMoves(spec(r, c), ms))
				}
			}
		}
	}
}

// On a line of two cells L and R (U and D) are the same move: answers
// never make it twice in a row (solveAndCheck), whatever the board.
func TestTwoWide(t *testing.T) {
	for n := puzzle.MinSide; n <= puzzle.MaxSide; n++ {
		for _, sz := range [][2]int{{2, n}, {n, 2}} {
			r, c := sz[0], sz[1]
			rng := rand.New(rand.NewPCG(11, uint64(n)))
			for range 200 {
				solveAndCheck(t, r, c, randomCells(rng, r, c))
			}
		}
	}
}

// Swapping two pieces is an odd permutation: unreachable when both sides
// are odd, reachable otherwise.
func TestParity(t *testing.T) {
	for r := puzzle.MinSide; r <= puzzle.MaxSide; r++ {
		for c := puzzle.MinSide; c <= puzzle.MaxSide; c++ {
			cells := puzzle.Goal(spec(r, c)).Cells
			cells[0], cells[len(cells)-1] = cells[len(cells)-1], cells[0]
			if r%2 == 0 || c%2 == 0 {
				solveAndCheck(t, r, c, cells)
				continue
			}
			ms, err := Solve(r, c, cells)
			if !errors.Is(err, puzzle.ErrUnsolvable) || ms != nil {
				t.Errorf("%dx%d with two pieces swapped: %v, %v; want ErrUnsolvable", r, c, ms, err)
			}
		}
	}
}

func TestMalformed(t *testing.T) {
	goal := func(r, c int) []uint8 { return puzzle.Goal(spec(r, c)).Cells }
	dup := goal(3, 4)
	dup[5] = dup[6]
	zero := goal(4, 4)
	zero[3] = 0
	big := goal(2, 3)
	big[0] = 7
	cases := []struct {
		name  string
		r, c  int
		cells []uint8
	}{
		{"nil cells", 3, 3, nil},
		{"too few cells", 3, 3, goal(3, 3)[:8]},
		{"too many cells", 2, 2, append(goal(2, 2), 5)},
		{"duplicate", 3, 4, dup},
		{"zero piece", 4, 4, zero},
		{"piece out of range", 2, 3, big},
		{"one row", 1, 4, []uint8{1, 2, 3, 4}},
		{"one column", 4, 1, []uint8{1, 2, 3, 4}},
		{"nine columns", 2, 9, goal(2, 9)},
		{"nine rows", 9, 2, goal(9, 2)},
		{"no rows", 0, 5, nil},
		{"negative", -3, 3, nil},
		{"huge", 1 << 40, 1 << 40, nil},
	}
	for _, tc := range cases {
		ms, err := Solve(tc.r, tc.c, tc.cells)
		if !errors.Is(err, puzzle.ErrMalformed) || ms != nil {
			t.Errorf("%s: %v, %v; want ErrMalformed", tc.name, ms, err)
		}
	}
}

var fact = [...]int{1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880}

// The finishing tables have an entry for every arrangement of the right
// parity, so the last phases can never get stuck.
func TestTablesComplete(t *testing.T) {
	check := func(name string, size int, next []uint8, evenOnly bool) {
		for r := range fact[size] {
			// The parity of a permutation is that of its Lehmer digits' sum.
			odd, x := false, r
			for k := 2; k <= size; k++ {
				odd = odd != (x%k%2 == 1)
				x /= k
			}
			want := r != 0 && (!odd || !evenOnly)
			if got := next[r] != noMacro; got != want {
				t.Fatalf("%s: arrangement %d (odd %v) has an entry: %v, want %v", name, r, odd, got, want)
			}
		}
	}
	// Line tables: rotations of an odd line and 3-cycles are even.
	for n := 3; n <= puzzle.MaxSide; n++ {
		check(fmt.Sprintf("line %d", n), n+1, lineTableFor(n).next, n%2 == 1)
	}
	// L tables: a side of even length has an odd rotation.
	for r := puzzle.MinSide; r <= puzzle.MaxSide; r++ {
		for c := r; r+c-1 <= maxL; c++ {
			check(fmt.Sprintf("L %dx%d", r, c), r+c-1, lTableFor(r, c).next, r%2 == 1 && c%2 == 1)
		}
	}
}

func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(99, uint64(g)))
			for range 50 {
				r, c := 2+rng.IntN(7), 2+rng.IntN(7)
				cells := randomCells(rng, r, c)
				ms, err := Solve(r, c, cells)
				if err != nil {
					t.Error(err)
					return
				}
				st := puzzle.State{Spec: spec(r, c), Cells: cells}
				if err := st.ApplyMoves(ms); err != nil || !st.IsGoal() {
					t.Errorf("%dx%d: answer does not reach the goal", r, c)
					return
				}
			}
		})
	}
	wg.Wait()
}

func FuzzSolve(f *testing.F) {
	f.Add(uint8(4), uint8(4), true, []byte("a shuffle drawn from these bytes"))
	f.Add(uint8(3), uint8(5), true, []byte{1, 2, 3})
	f.Add(uint8(8), uint8(8), true, []byte{})
	f.Add(uint8(2), uint8(2), false, []byte{2, 1, 3, 4})
	f.Add(uint8(3), uint8(3), false, []byte{2, 1, 3, 4, 5, 6, 7, 8, 9})
	f.Add(uint8(2), uint8(3), false, []byte{1, 1, 2, 3, 4, 5})
	f.Add(uint8(9), uint8(1), false, []byte{1})
	f.Fuzz(func(t *testing.T, rows, cols uint8, shuffle bool, data []byte) {
		r, c := int(rows%10), int(cols%10) // sides 0..9: some invalid
		cells := data
		if shuffle && r >= puzzle.MinSide && c >= puzzle.MinSide && r <= puzzle.MaxSide && c <= puzzle.MaxSide {
			// A permutation drawn from the bytes (Fisher–Yates), mostly
			// valid boards.
			cells = puzzle.Goal(spec(r, c)).Cells
			for i := len(cells) - 1; i > 0; i-- {
				b := 0
				if len(data) > 0 {
					b = int(data[i%len(data)]) + i*int(data[0])
				}
				j := b % (i + 1)
				cells[i], cells[j] = cells[j], cells[i]
			}
		}
		in := slices.Clone(cells)
		ms, err := Solve(r, c, cells)
		if !slices.Equal(in, cells) {
			t.Fatal("Solve changed its input")
		}
		if err != nil {
			if !errors.Is(err, puzzle.ErrMalformed) && !errors.Is(err, puzzle.ErrUnsolvable) {
				t.Fatalf("%dx%d %v: error wraps neither ErrMalformed nor ErrUnsolvable: %v", r, c, cells, err)
			}
			return
		}
		st := puzzle.State{Spec: spec(r, c), Cells: slices.Clone(cells)}
		if err := st.ApplyMoves(ms); err != nil || !st.IsGoal() {
			t.Fatalf("%dx%d %v: answer %s does not reach the goal", r, c, cells, puzzle.FormatMoves(spec(r, c), ms))
		}
	})
}

// BenchmarkSolve reports the time per solve and the mean and longest
// answer (moves/op, max-moves) over 1024 random boards of each size.
func BenchmarkSolve(b *testing.B) {
	sizes := [][2]int{{2, 2}, {2, 3}, {3, 3}, {3, 4}, {4, 4}, {4, 5}, {5, 5}, {6, 6}, {7, 7}, {8, 8}, {2, 8}, {8, 3}}
	for _, sz := range sizes {
		r, c := sz[0], sz[1]
		b.Run(fmt.Sprintf("%dx%d", r, c), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(5, uint64(r*10+c)))
			boards := make([][]uint8, 1024)
			total, longest := 0, 0
			for i := range boards { // also builds the tables, untimed
				boards[i] = randomCells(rng, r, c)
				ms, err := Solve(r, c, boards[i])
				if err != nil {
					b.Fatal(err)
				}
				total += len(ms)
				longest = max(longest, len(ms))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Solve(r, c, boards[i%len(boards)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(total)/float64(len(boards)), "moves/op")
			b.ReportMetric(float64(longest), "max-moves")
		})
	}
}
