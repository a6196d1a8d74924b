package pdb

import (
	"context"
	"fmt"
	"testing"
)

// Compressed tables (Felner, Korf, Meshulam and Holte, "Compressed
// pattern databases", 2007), measured, not served: compressMin gives
// the answers a table compressed by k would give, so a search over it
// counts the nodes the compressed table would cost ($PDB_COMPRESS=k in
// storedSolver). The compressed table keeps one entry, the minimum, for
// each k consecutive placements of the pattern's last tile (the rank's
// last digit: the other tiles fixed, the last one on neighbouring free
// cells, whose entries differ little); the search then rounds an entry
// up to the parity of its placement's Manhattan distance, which every
// exact entry has (a pattern tile's move changes it by one), so the
// rounding keeps a lower bound and costs the search only a parity bit a
// pattern to track.

// mdParity is the parity of the Manhattan distance of the pattern's
// tiles, at cells ps (in pattern order), to their homes (tile t at
// cell t−1).
func (p *PDB) mdParity(ps []uint8) byte {
	var s byte
	for i, c := range ps {
		s ^= p.tileParity(i, int(c))
	}
	return s
}

// tileParity is the parity of the Manhattan distance of the pattern's
// i-th tile at cell c to its home.
func (p *PDB) tileParity(i, c int) byte {
	h, w := int(p.tiles[i])-1, p.g.cols
	return byte((c/w + c%w + h/w + h%w) & 1)
}

// compressMin returns p as a table compressed by k answers it (see
// above), in memory of its own. It fails on an entry whose parity is not
// its placement's Manhattan distance's: the rounding would not be sound.
func compressMin(p *PDB, k int) (*PDB, error) {
	if k < 1 {
		return nil, fmt.Errorf("compress by %d", k)
	}
	block := uint64(p.g.n - p.k + 1) // the last digit's values; its multiplier is 1
	out := make([]byte, p.size)
	var ps [MaxCells]uint8
	var par [MaxCells]byte
	for b := uint64(0); b < p.size; b += block {
		used := p.perm.Unrank(b, ps[:p.k])
		used &^= 1 << ps[p.k-1] // the last tile's cell is the block's to vary
		prefix := p.mdParity(ps[:p.k-1])
		// The last tile's free cells in ascending order are its digits.
		d := 0
		for c := range p.g.n {
			if used&(1<<c) != 0 {
				continue
			}
			par[d] = prefix ^ p.tileParity(p.k-1, c)
			d++
		}
		for lo := uint64(0); lo < block; lo += uint64(k) {
			hi := min(lo+uint64(k), block)
			m := byte(Unreached)
			for i := lo; i < hi; i++ {
				v := p.data[b+i]
				if v != Unreached && v&1 != par[i] {
					return nil, fmt.Errorf("pdb %s: entry %d is %d, its Manhattan parity %d", PatternString(p.tiles), b+i, v, par[i])
				}
				m = min(m, v)
			}
			for i := lo; i < hi; i++ {
				v := m
				if v != Unreached {
					v += (v ^ par[i]) & 1
				}
				out[b+i] = v
			}
		}
	}
	q := *p
	q.data = out
	return &q, nil
}

// Compressed entries are lower bounds: never above the exact entry, and
// of its parity; compression by 1 changes nothing.
func TestCompressedKeepsLowerBound(t *testing.T) {
	for _, tc := range []struct {
		rows, cols int
		tiles      []uint8
	}{
		{3, 3, []uint8{1, 2, 3, 4}},
		{3, 4, []uint8{2, 5, 6, 9, 10}},
		{4, 4, []uint8{1, 2, 3, 5}},
	} {
		p, _, err := Build(context.Background(), tc.rows, tc.cols, tc.tiles, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 2, 3, 4, 16} {
			q, err := compressMin(p, k)
			if err != nil {
				t.Fatal(err)
			}
			lowered := 0
			for i, v := range q.data {
				e := p.data[i]
				if v > e || (v^e)&1 != 0 {
					t.Fatalf("%dx%d %s by %d: entry %d is %d, exact %d", tc.rows, tc.cols, PatternString(tc.tiles), k, i, v, e)
				}
				if v < e {
					lowered++
				}
			}
			if (k == 1) != (lowered == 0) {
				t.Errorf("%dx%d %s by %d: %d entries lowered", tc.rows, tc.cols, PatternString(tc.tiles), k, lowered)
			}
		}
	}
}
