package perm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// selections lists every ordered selection of k distinct values of
// 0..n−1 in lexicographic order: the oracle of the rank order.
func selections(n, k int) [][]uint8 {
	var out [][]uint8
	cur := make([]uint8, 0, k)
	var used [MaxN]bool
	var rec func()
	rec = func() {
		if len(cur) == k {
			out = append(out, slices.Clone(cur))
			return
		}
		for v := 0; v < n; v++ {
			if !used[v] {
				used[v] = true
				cur = append(cur, uint8(v))
				rec()
				cur = cur[:len(cur)-1]
				used[v] = false
			}
		}
	}
	rec()
	return out
}

// TestOracle: for every k of n ≤ 8 (and a few larger n, on both unranking
// paths), the i-th selection in lexicographic order has rank i, unrank
// inverts rank and returns the set of values, and Size counts them.
func TestOracle(t *testing.T) {
	type nk struct{ n, k int }
	var cases []nk
	for n := 1; n <= 8; n++ {
		for k := 1; k <= n; k++ {
			cases = append(cases, nk{n, k})
		}
	}
	cases = append(cases, nk{16, 3}, nk{17, 3}, nk{25, 3}, nk{32, 2})
	for _, c := range cases {
		p := NewPartial(c.n, c.k)
		all := selections(c.n, c.k)
		if p.Size() != uint64(len(all)) {
			t.Fatalf("%d of %d: Size %d, want %d", c.k, c.n, p.Size(), len(all))
		}
		out := make([]uint8, c.k)
		for i, s := range all {
			if r := p.Rank(s); r != uint64(i) {
				t.Fatalf("%d of %d: Rank(%v) = %d, want %d", c.k, c.n, s, r, i)
			}
			used := p.Unrank(uint64(i), out)
			if !slices.Equal(out, s) {
				t.Fatalf("%d of %d: Unrank(%d) = %v, want %v", c.k, c.n, i, out, s)
			}
			var want uint32
			for _, v := range s {
				want |= 1 << v
			}
			if used != want {
				t.Fatalf("%d of %d: Unrank(%d) set %b, want %b", c.k, c.n, i, used, want)
			}
		}
	}
}

// TestLarge: the table shapes in use round-trip on random ranks, the last
// rank is the descending selection, and the multipliers are the mixed
// radix.
func TestLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range [][2]int{{25, 6}, {16, 8}, {16, 7}, {25, 25 - 12}, {12, 12}, {11, 11}, {20, 20}} {
		n, k := c[0], c[1]
		p := NewPartial(n, k)
		want := uint64(1)
		for i := 0; i < k; i++ {
			want *= uint64(n - i)
		}
		if p.Size() != want {
			t.Fatalf("%d of %d: Size %d, want %d", k, n, p.Size(), want)
		}
		for i := 0; i < k; i++ {
			m := uint64(1)
			for j := i + 1; j < k; j++ {
				m *= uint64(n - j)
			}
			if p.Mul(i) != m {
				t.Fatalf("%d of %d: Mul(%d) = %d, want %d", k, n, i, p.Mul(i), m)
			}
		}
		out := make([]uint8, k)
		for range 2000 {
			r := rng.Uint64N(p.Size())
			p.Unrank(r, out)
			if got := p.Rank(out); got != r {
				t.Fatalf("%d of %d: Rank(Unrank(%d)) = %d (%v)", k, n, r, got, out)
			}
		}
		for i := range out {
			out[i] = uint8(n - 1 - i)
		}
		if got := p.Rank(out); got != p.Size()-1 {
			t.Fatalf("%d of %d: descending selection ranked %d, want %d", k, n, got, p.Size()-1)
		}
	}
}

func TestNewPartialRejects(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {3, 0}, {3, 4}, {33, 1}, {32, 32}, {21, 21}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewPartial(%d, %d) did not panic", c[0], c[1])
				}
			}()
			NewPartial(c[0], c[1])
		}()
	}
	NewPartial(20, 20) // 20! < 2⁶⁴
}

func TestAllocs(t *testing.T) {
	p := NewPartial(25, 6)
	q := Full(12)
	var out [MaxN]uint8
	n := testing.AllocsPerRun(100, func() {
		p.Unrank(123456, out[:6])
		_ = p.Rank(out[:6])
		q.Unrank(1234567, out[:12])
		_ = q.Rank(out[:12])
	})
	if n != 0 {
		t.Fatalf("%v allocations per run", n)
	}
}

func BenchmarkRank25of6(b *testing.B) {
	p := NewPartial(25, 6)
	v := []uint8{24, 3, 17, 0, 9, 12}
	var s uint64
	for b.Loop() {
		s += p.Rank(v)
	}
	_ = s
}

func BenchmarkUnrank16of8(b *testing.B) {
	p := NewPartial(16, 8)
	var out [8]uint8
	r := uint64(0)
	for b.Loop() {
		p.Unrank(r, out[:])
		r = (r + 7919) % p.Size()
	}
}

// Rank7 ranks as Rank does, seven values and (weight 0 last) six.
func TestRank7(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 25))
	for _, k := range []int{6, 7} {
		p := NewPartial(25, k)
		var mul [7]uint64
		for i := range k {
			mul[i] = p.Mul(i)
		}
		for range 20000 {
			var x [7]uint8
			for i, v := range rng.Perm(25)[:7] {
				x[i] = uint8(v)
			}
			if got, want := Rank7(&x, &mul), p.Rank(x[:k]); got != want {
				t.Fatalf("k=%d %v: Rank7 %d, Rank %d", k, x, got, want)
			}
		}
	}
}
