package puzzle

import "math/rand/v2"

// Random draws a state uniformly from those that reach the goal of spec;
// the same rng state gives the same board. spec must be valid.
//
//   - sliding: a uniform permutation of 0..N−1; when it is unsolvable the
//     tiles in the first two non-blank cells are swapped. That flips the
//     inversion parity and keeps the blank, so it turns an unsolvable board
//     into a solvable one; it is its own inverse (the blank and hence the
//     two cells stay put), so it pairs each solvable board with exactly one
//     unsolvable board and every solvable board has probability 2/N!.
//   - loopover: the same with the first two cells, when both sides are odd
//     (only even permutations reachable); otherwise every permutation is.
//   - swap: a uniform arrangement of N/2 ones (the board Goal(spec) uses).
//
// A nil rng draws from a randomly seeded generator.
func Random(spec Spec, rng *rand.Rand) State {
	if rng == nil {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	s := Goal(spec)
	c := s.Cells
	rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	if len(c) < 3 || spec.Cols < 1 {
		return s
	}
	switch spec.Kind {
	case Sliding:
		inv := inversions(c, true)
		bad := inv%2 == 1
		if spec.Cols%2 == 0 {
			fromBottom := spec.Rows - BlankIndex(s)/spec.Cols
			bad = (inv+fromBottom)%2 == 0
		}
		if bad {
			a := 0
			if c[a] == 0 {
				a++
			}
			b := a + 1
			if c[b] == 0 {
				b++
			}
			c[a], c[b] = c[b], c[a]
		}
	case Loopover:
		if spec.Rows%2 == 1 && spec.Cols%2 == 1 && inversions(c, false)%2 == 1 {
			c[0], c[1] = c[1], c[0]
		}
	}
	return s
}

// RandomWalk applies length random moves to the goal (Goal(spec)), each
// drawn uniformly from the legal moves that do not undo the previous one:
// sliding never moves the tile just moved straight back; Loopover never
// shifts the line just shifted back (on a line of two cells left and right
// are one move, so that line is not shifted twice in a row); swap never
// repeats the swap just made and only swaps cells that differ. The result
// need not be length moves from the goal (later moves may undo earlier
// ones); it is at most length. spec must be valid; a nil rng draws from a
// randomly seeded generator.
func RandomWalk(spec Spec, rng *rand.Rand, length int) State {
	s, _ := walk(spec, rng, length, false)
	return s
}

// RandomWalkMoves is RandomWalk that also returns the moves made: for the
// same rng state it returns the same board as RandomWalk, and
// Goal(spec).ApplyMoves(moves) reproduces it.
func RandomWalkMoves(spec Spec, rng *rand.Rand, length int) (State, []Move) {
	return walk(spec, rng, length, true)
}

func walk(spec Spec, rng *rand.Rand, length int, record bool) (State, []Move) {
	if rng == nil {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	s := Goal(spec)
	w, h := spec.Cols, spec.Rows
	if length <= 0 || w < MinSide || h < MinSide || len(s.Cells) != w*h {
		return s, nil
	}
	var ms []Move
	if record {
		ms = make([]Move, 0, length)
	}
	switch spec.Kind {
	case Sliding:
		c := s.Cells
		b := len(c) - 1
		prev := Dir(255)
		for k := 0; k < length; k++ {
			var cand [4]Dir
			n := 0
			r, col := b/w, b%w
			add := func(d Dir, ok bool) {
				if ok && d != prev.Opposite() {
					cand[n] = d
					n++
				}
			}
			add(Up, r+1 < h)
			add(Down, r > 0)
			add(Left, col+1 < w)
			add(Right, col > 0)
			d := cand[rng.IntN(n)] // a corner still has two moves: n ≥ 1
			src := b
			switch d {
			case Up:
				src = b + w
			case Down:
				src = b - w
			case Left:
				src = b + 1
			case Right:
				src = b - 1
			}
			c[b], c[src] = c[src], 0
			b, prev = src, d
			if record {
				ms = append(ms, Move{Dir: d})
			}
		}
	case Loopover:
		// The distinct generators: a two-cell line has one shift.
		var gen []Move
		for r := 0; r < h; r++ {
			if w > 2 {
				gen = append(gen, Move{Dir: Left, Line: r})
			}
			gen = append(gen, Move{Dir: Right, Line: r})
		}
		for col := 0; col < w; col++ {
			if h > 2 {
				gen = append(gen, Move{Dir: Up, Line: col})
			}
			gen = append(gen, Move{Dir: Down, Line: col})
		}
		excl := -1 // index in gen of the move undoing the previous one
		for k := 0; k < length; k++ {
			var i int
			if excl < 0 {
				i = rng.IntN(len(gen))
			} else {
				i = rng.IntN(len(gen) - 1)
				if i >= excl {
					i++
				}
			}
			m := gen[i]
			_ = s.apply(m) // generators are on the board
			if record {
				ms = append(ms, m)
			}
			excl = i
			lineLen := w
			if m.Dir == Up || m.Dir == Down {
				lineLen = h
			}
			if lineLen > 2 { // the opposite shift sits next to it in gen
				if m.Dir == Left || m.Dir == Up {
					excl = i + 1
				} else {
					excl = i - 1
				}
			}
		}
	case Swap:
		ms = swapWalk(s, rng, length, ms, record)
	}
	return s, ms
}

// swapWalk walks a swap board in place. The swaps that change the board
// are the edges between a one and a zero; it keeps them in an indexed set
// updated locally after each swap, so a step costs O(1) even on 1000x1000
// boards. Edge e = 2·cell + (0 right, 1 down).
func swapWalk(s State, rng *rand.Rand, length int, ms []Move, record bool) []Move {
	c := s.Cells
	w, n := s.Spec.Cols, len(c)
	pos := make([]int32, 2*n) // 1 + index in set, 0 when absent
	set := make([]int32, 0, 64)
	differs := func(e int) bool {
		i := e >> 1
		if e&1 == 0 {
			return i%w+1 < w && c[i] != c[i+1]
		}
		return i+w < n && c[i] != c[i+w]
	}
	update := func(e int) {
		if e < 0 || e >= 2*n {
			return
		}
		in, want := pos[e] != 0, differs(e)
		switch {
		case want && !in:
			set = append(set, int32(e))
			pos[e] = int32(len(set))
		case !want && in:
			k := pos[e] - 1
			last := set[len(set)-1]
			set[k] = last
			pos[last] = k + 1
			set = set[:len(set)-1]
			pos[e] = 0
		}
	}
	for e := 0; e < 2*n; e++ {
		update(e)
	}
	prev := -1
	for k := 0; k < length; k++ {
		var e int
		switch {
		case len(set) == 0:
			return ms // all ones or all zeros: nothing moves
		case prev >= 0 && pos[prev] != 0 && len(set) > 1:
			// Uniform over the set minus prev.
			j := rng.IntN(len(set) - 1)
			if j >= int(pos[prev]-1) {
				j++
			}
			e = int(set[j])
		default:
			// A grid with both sides ≥ 2 is 2-edge-connected, so the one/zero
			// boundary has ≥ 2 edges and this only runs without a prev.
			e = int(set[rng.IntN(len(set))])
		}
		i, j := e>>1, e>>1+1
		m := Move{Dir: Right, Line: i / w, Col: i % w}
		if e&1 == 1 {
			j = i + w
			m.Dir = Down
		}
		c[i], c[j] = c[j], c[i]
		for _, x := range [2]int{i, j} {
			update(2 * x)
			update(2*x + 1)
			if x%w > 0 {
				update(2 * (x - 1))
			}
			update(2*(x-w) + 1)
		}
		prev = e
		if record {
			ms = append(ms, m)
		}
	}
	return ms
}
