package puzzle

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestRandomSolvableDeterministic(t *testing.T) {
	specs := []Spec{{Swap, 12, 12}, {Swap, 37, 5}}
	for _, k := range []Kind{Sliding, Loopover, Swap} {
		for r := 2; r <= 8; r++ {
			for c := 2; c <= 8; c++ {
				specs = append(specs, Spec{k, r, c})
			}
		}
	}
	for _, sp := range specs {
		a := rand.New(rand.NewPCG(7, uint64(sp.Cells())))
		b := rand.New(rand.NewPCG(7, uint64(sp.Cells())))
		for i := 0; i < 10; i++ {
			s := Random(sp, a)
			if err := Solvable(s); err != nil {
				t.Fatalf("%s: Random gave %v: %v", sp, s, err)
			}
			if sp.Kind == Swap && countOnes(s.Cells) != sp.Cells()/2 {
				t.Fatalf("%s: Random has %d ones, want %d", sp, countOnes(s.Cells), sp.Cells()/2)
			}
			if u := Random(sp, b); !u.Equal(s) {
				t.Fatalf("%s: same seed, different boards %v and %v", sp, s, u)
			}
		}
	}
	if s := Random(Spec{Sliding, 3, 3}, nil); Solvable(s) != nil {
		t.Errorf("Random with nil rng: %v", s)
	}
}

// chiSquare draws samples and checks that every one of want states shows
// up about equally often. The bound is 6 standard deviations above the
// mean of the chi-square distribution; the seed is fixed, so the test is
// deterministic, and a biased parity fix (e.g. always swapping tiles 1
// and 2) fails it by orders of magnitude.
func chiSquare(t *testing.T, sp Spec, want, perState int, draw func(*rand.Rand) State) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 13))
	counts := map[string]int{}
	n := want * perState
	for i := 0; i < n; i++ {
		s := draw(rng)
		if err := Solvable(s); err != nil {
			t.Fatalf("%s: %v: %v", sp, s, err)
		}
		counts[s.String()]++
	}
	if len(counts) != want {
		t.Fatalf("%s: %d distinct states, want %d", sp, len(counts), want)
	}
	e := float64(perState)
	chi := 0.0
	for _, o := range counts {
		chi += (float64(o) - e) * (float64(o) - e) / e
	}
	dof := float64(want - 1)
	if limit := dof + 6*math.Sqrt(2*dof); chi > limit {
		t.Errorf("%s: chi-square %.1f over %d states exceeds %.1f: not uniform", sp, chi, want, limit)
	}
	t.Logf("%s: chi-square %.1f, %d degrees of freedom", sp, chi, want-1)
}

func TestRandomUniform(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		states int
	}{
		{"sliding:2x3", 360},
		{"sliding:3x2", 360},
		{"sliding:2x2", 12},
		{"loopover:2x2", 24},
		{"loopover:2x3", 720},
		{"swap:2x3", 20},
		{"swap:3x3", 126},
	} {
		sp := mustSpec(t, tc.spec)
		chiSquare(t, sp, tc.states, 100, func(r *rand.Rand) State { return Random(sp, r) })
	}
	// 3x3 Loopover: 181440 states, too many to count; check the parity
	// fix does not favour the first two cells' order.
	sp := mustSpec(t, "loopover:3x3")
	rng := rand.New(rand.NewPCG(1, 1))
	less := 0
	const n = 20000
	for i := 0; i < n; i++ {
		s := Random(sp, rng)
		if err := Solvable(s); err != nil {
			t.Fatal(err)
		}
		if s.Cells[0] < s.Cells[1] {
			less++
		}
	}
	if math.Abs(float64(less)-n/2) > 6*math.Sqrt(n/4) {
		t.Errorf("loopover:3x3: first cell < second in %d of %d samples", less, n)
	}
}

func TestRandomWalk(t *testing.T) {
	for _, name := range []string{"sliding:2x2", "8", "15", "sliding:2x5", "loopover:2x2", "loopover:2x3", "loopover:3x3", "loopover:5x5", "swap:2x2", "swap:4x4", "swap:37x5", "swap:200x200"} {
		sp := mustSpec(t, name)
		for _, length := range []int{0, 1, 2, 17, 200} {
			seed := uint64(length*31 + sp.Cells())
			s, ms := RandomWalkMoves(sp, rand.New(rand.NewPCG(seed, 1)), length)
			if len(ms) != length {
				t.Fatalf("%s: walk of %d made %d moves", sp, length, len(ms))
			}
			if u := RandomWalk(sp, rand.New(rand.NewPCG(seed, 1)), length); !u.Equal(s) {
				t.Fatalf("%s: RandomWalk and RandomWalkMoves disagree", sp)
			}
			if err := Solvable(s); err != nil {
				t.Fatalf("%s: walk ended unsolvable: %v", sp, err)
			}
			// Replay: no move illegal, none undoes the one before, none is a
			// no-op; the end is the returned board.
			cur := Goal(sp)
			prev := State{}
			for i, m := range ms {
				before := cur.Clone()
				if err := cur.Apply(m); err != nil {
					t.Fatalf("%s: move %d %s: %v", sp, i+1, FormatMoves(sp, []Move{m}), err)
				}
				if cur.Equal(before) {
					t.Fatalf("%s: move %d is a no-op", sp, i+1)
				}
				if cur.Equal(prev) {
					t.Fatalf("%s: move %d %s undoes move %d", sp, i+1, FormatMoves(sp, ms[i-1:i+1]), i)
				}
				prev = before
			}
			if !cur.Equal(s) {
				t.Fatalf("%s: replaying the walk gives %v, RandomWalk gave %v", sp, cur, s)
			}
		}
	}
	// Every first move occurs: a 2x2 Loopover has 4 distinct moves.
	sp := mustSpec(t, "loopover:2x2")
	seen := map[string]bool{}
	rng := rand.New(rand.NewPCG(2, 2))
	for i := 0; i < 200; i++ {
		seen[RandomWalk(sp, rng, 1).String()] = true
	}
	if len(seen) != 4 {
		t.Errorf("loopover:2x2 one-move walks reach %d states, want 4", len(seen))
	}
}
