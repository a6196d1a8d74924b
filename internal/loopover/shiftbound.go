package loopover

// ShiftBound is a cheap admissible bound for any board size (cells 1..n):
// a column shift moves exactly rows pieces one row each, so the column
// shifts are at least the pieces' cyclic row distances summed over rows,
// and at least the largest one; row shifts likewise. When a side is even
// the permutation's parity fixes the parity of some move count, as in the
// walking-distance bound.
func ShiftBound(rows, cols int, cells []uint8) int {
	var sumR, sumC, maxR, maxC int
	perm := make([]uint8, len(cells))
	for i, v := range cells {
		p := int(v) - 1
		perm[i] = uint8(p)
		dr := cyc(i/cols-p/cols, rows)
		dc := cyc(i%cols-p%cols, cols)
		sumR, sumC = sumR+dr, sumC+dc
		maxR, maxC = max(maxR, dr), max(maxC, dc)
	}
	hr := max((sumR+rows-1)/rows, maxR) // column shifts
	hc := max((sumC+cols-1)/cols, maxC) // row shifts
	par := permParity(perm)
	switch {
	case rows%2 == 0 && cols%2 == 0:
		h := hr + hc
		return h + (h^par)&1
	case cols%2 == 0: // row shifts are odd permutations, column shifts even
		hc += (hc ^ par) & 1
	case rows%2 == 0:
		hr += (hr ^ par) & 1
	}
	return hr + hc
}

// cyc is the distance between two positions d apart on a cycle of n.
func cyc(d, n int) int {
	d = (d%n + n) % n
	return min(d, n-d)
}
