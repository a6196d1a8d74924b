package fulltable

import (
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

func benchBuild(b *testing.B, sp puzzle.Spec) {
	b.ReportAllocs()
	var t *Table
	for b.Loop() {
		var err error
		if t, err = Build(sp); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(t.Size())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mstates/s")
}

func BenchmarkBuild(b *testing.B) {
	b.Run("sliding-3x3", func(b *testing.B) { benchBuild(b, puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}) })
	b.Run("sliding-2x5", func(b *testing.B) { benchBuild(b, puzzle.Spec{Kind: puzzle.Sliding, Rows: 2, Cols: 5}) })
	b.Run("loopover-3x3", func(b *testing.B) { benchBuild(b, puzzle.Spec{Kind: puzzle.Loopover, Rows: 3, Cols: 3}) })
}

// BenchmarkExpand is the per-state work of a push level (unrank, then rank
// every neighbour) on the 12-cell boards, without the table.
func BenchmarkExpand(b *testing.B) {
	for _, sp := range []puzzle.Spec{
		{Kind: puzzle.Sliding, Rows: 3, Cols: 4},
		{Kind: puzzle.Loopover, Rows: 3, Cols: 4},
		{Kind: puzzle.Loopover, Rows: 4, Cols: 3},
	} {
		b.Run(sp.String(), func(b *testing.B) {
			s := newSpace(sp)
			var c board
			var out [maxDegree]uint64
			idx, sink := uint64(12345), uint64(0)
			for b.Loop() {
				idx = (idx*2862933555777941757 + 3037000493) % s.size
				s.unrank(idx, &c)
				k := s.neighbours(&c, idx, &out)
				sink += out[k-1]
			}
			if sink == 1 {
				b.Log(sink)
			}
		})
	}
}
