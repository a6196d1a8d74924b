package puzzle

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkParse15(b *testing.B) {
	sp := Spec{Sliding, 4, 4}
	text := "13 6 8 12/15 14 0 10/11 7 4 5/9 1 3 2"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(sp, text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSwap1000(b *testing.B) {
	sp := Spec{Swap, 1000, 1000}
	text := Random(sp, rand.New(rand.NewPCG(1, 1))).String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(sp, text); err != nil {
			b.Fatal(err)
		}
	}
}

// Verify of an 80-move 4x4 answer: what internal/solve pays per result.
func BenchmarkVerify15(b *testing.B) {
	sp := Spec{Sliding, 4, 4}
	s, ms := RandomWalkMoves(sp, rand.New(rand.NewPCG(1, 1)), 80)
	moves := FormatMoves(sp, InvertMoves(sp, ms))
	b.ReportAllocs()
	for b.Loop() {
		if err := Verify(s, moves); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRandom24(b *testing.B) {
	sp := Spec{Sliding, 5, 5}
	rng := rand.New(rand.NewPCG(1, 1))
	b.ReportAllocs()
	for b.Loop() {
		_ = Random(sp, rng)
	}
}

func BenchmarkRandomWalkSwap1000(b *testing.B) {
	sp := Spec{Swap, 1000, 1000}
	rng := rand.New(rand.NewPCG(1, 1))
	b.ReportAllocs()
	for b.Loop() {
		_ = RandomWalk(sp, rng, 10000)
	}
}
