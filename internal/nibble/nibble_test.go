package nibble

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestEq checks the lane comparison against a lane-by-lane loop.
func TestEq(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 20000; i++ {
		x := r.Uint64()
		if i%3 == 0 { // many equal lanes
			x &= 0x1111111111111111 * uint64(r.IntN(16))
		}
		v := uint8(r.IntN(16))
		var want uint64
		for l := 0; l < 16; l++ {
			if uint8(x>>(4*l))&15 == v {
				want |= 8 << (4 * l)
			}
		}
		if got := Eq(x, v); got != want {
			t.Fatalf("Eq(%#x, %d) = %#x, want %#x", x, v, got, want)
		}
	}
}

// TestClaim: of many goroutines claiming the same entries, exactly one
// wins each, and the neighbouring lanes are untouched.
func TestClaim(t *testing.T) {
	tab := []uint64{^uint64(0), ^uint64(0)}
	var wins [32]int32
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := uint64(0); i < 32; i += 2 {
				if Claim(tab, i, i%15) {
					mu.Lock()
					wins[i]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for i := uint64(0); i < 32; i++ {
		got := tab[i>>4] >> ((i & 15) << 2) & 15
		want, n := uint64(Unreached), int32(0)
		if i%2 == 0 {
			want, n = i%15, 1
		}
		if got != want || wins[i] != n {
			t.Fatalf("entry %d: %d (want %d), claimed %d times", i, got, want, wins[i])
		}
	}
}
