package construct

import "github.com/tessera-solver/tessera/internal/puzzle"

// shift is a cyclic shift of one board line by k cells: a row (each cell
// takes the piece k cells to its right, so k > 0 is Left) or a column
// (each cell takes the piece k cells below it, so k > 0 is Up).
type shift struct {
	col  bool
	line int8
	k    int8
}

// run is the net effect of consecutive shifts of lines of one kind; they
// commute, so only the net amount per line matters.
type run struct {
	col bool
	amt [puzzle.MaxSide]int8
}

func (r *run) zero() bool {
	for _, a := range r.amt {
		if a != 0 {
			return false
		}
	}
	return true
}

// compress merges shifts into runs: shifts of a line merge across shifts
// of parallel lines (they commute), and a run that cancels completely lets
// its neighbours merge, so no run could be replaced by a cheaper one.
func compress(rows, cols int, in []shift, runs []run) []run {
	runs = runs[:0]
	for _, m := range in {
		n := cols
		if m.col {
			n = rows
		}
		for {
			top := len(runs) - 1
			if top >= 0 && runs[top].col == m.col {
				runs[top].amt[m.line] = int8(mod(int(runs[top].amt[m.line])+int(m.k), n))
				break
			}
			if top >= 0 && runs[top].zero() {
				runs = runs[:top]
				continue
			}
			runs = append(runs, run{col: m.col})
			runs[top+1].amt[m.line] = int8(mod(int(m.k), n))
			break
		}
	}
	return runs
}

// movesLen is the number of unit moves simplify makes of in.
func movesLen(rows, cols int, in []shift, scr *scratch) int {
	scr.runs = compress(rows, cols, in, scr.runs)
	total := 0
	for _, r := range scr.runs {
		n := cols
		if r.col {
			n = rows
		}
		for _, a := range r.amt {
			total += dist(int(a), n)
		}
	}
	return total
}

// simplify appends to dst the unit moves of in, compressed, each line's
// net shift going the short way round.
func simplify(rows, cols int, in []shift, scr *scratch, dst []puzzle.Move) []puzzle.Move {
	scr.runs = compress(rows, cols, in, scr.runs)
	for _, r := range scr.runs {
		n, fwd, back := cols, puzzle.Left, puzzle.Right
		if r.col {
			n, fwd, back = rows, puzzle.Up, puzzle.Down
		}
		for line, a := range r.amt {
			k := short(int(a), n)
			d := fwd
			if k < 0 {
				d, k = back, -k
			}
			for ; k > 0; k-- {
				dst = append(dst, puzzle.Move{Dir: d, Line: line})
			}
		}
	}
	return dst
}

// mod is x mod n in [0, n); arguments are small multiples of n, so a loop
// beats the division.
func mod(x, n int) int {
	for x < 0 {
		x += n
	}
	for x >= n {
		x -= n
	}
	return x
}

// short is the shift equivalent to k on a line of n cells with the least
// magnitude (n/2 rather than −n/2 on even lines).
func short(k, n int) int {
	k = mod(k, n)
	if 2*k > n {
		k -= n
	}
	return k
}

// dist is the number of unit moves a shift by k costs on a line of n.
func dist(k, n int) int {
	k = mod(k, n)
	return min(k, n-k)
}
