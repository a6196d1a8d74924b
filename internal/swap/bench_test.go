package swap

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

const seed12 = "001101011000/011100000011/011001011111/011010111111/000000101110/000110001010/" +
	"000100101101/010001110001/111100100011/001011100001/110010100101/010111111101"

func BenchmarkSeed12x12(b *testing.B) {
	rows, cols, board := parse(b, seed12)
	goal := sortedGoal(board)
	b.Run("distance", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Distance(rows, cols, board, goal); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("solve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Solve(rows, cols, board, goal); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHalfOnes: random n×n boards with half ones, to the sorted goal
// (the ones fill the top half) and to another random half-ones pattern.
func BenchmarkHalfOnes(b *testing.B) {
	for _, n := range []int{25, 50, 100, 200, 300} {
		r := rand.New(rand.NewPCG(uint64(n), 9))
		board := randomBoard(r, n*n, n*n/2)
		for _, g := range []struct {
			name string
			goal []uint8
		}{{"sorted", sortedGoal(board)}, {"random", randomBoard(r, n*n, n*n/2)}} {
			d, err := Distance(n, n, board, g.goal)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%dx%d/%s/distance", n, n, g.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Distance(n, n, board, g.goal); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(d), "swaps")
			})
			b.Run(fmt.Sprintf("%dx%d/%s/solve", n, n, g.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Solve(n, n, board, g.goal); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(d), "swaps")
			})
		}
	}
}
