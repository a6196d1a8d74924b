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
	if f := spec.Family(); f != nil {
		f.FixParity(s)
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
	if f := spec.Family(); f != nil {
		ms = f.Walk(s, rng, length, ms, record)
	}
	return s, ms
}
