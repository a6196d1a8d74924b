package httpapi

import (
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/store"
)

func TestHistogramLayout(t *testing.T) {
	if h := newHistogram(store.Distribution{}); len(h.Bars) != 0 {
		t.Errorf("empty distribution drew %d bars", len(h.Bars))
	}
	// 15-puzzle-like: lengths 0..80, one missing.
	var counts []store.LengthCount
	var total int64
	for l := 0; l <= 80; l++ {
		if l != 40 {
			c := int64(1 + l*(80-l))
			counts = append(counts, store.LengthCount{Length: l, Count: c})
			total += c
		}
	}
	h := newHistogram(store.Distribution{Counts: counts, Total: total, Max: 80})
	if len(h.Bars) != 81 || h.Bars[40].Count != 0 || h.Bars[40].H != 0 {
		t.Fatalf("%d bars, bar 40 = %+v", len(h.Bars), h.Bars[40])
	}
	var tallest float64
	for i, b := range h.Bars {
		if b.Length != i || b.X < 0 || b.X+b.W > float64(h.Width) || b.Y < 0 || b.Y+b.H > float64(h.Height) {
			t.Errorf("bar %d out of the box: %+v", i, b)
		}
		if b.Count > 0 && b.H < 1 {
			t.Errorf("bar %d invisible: %+v", i, b)
		}
		tallest = max(tallest, b.H)
	}
	if tallest != histPlotH || h.YMax != 1+39*41 {
		t.Errorf("tallest bar %v, YMax %d", tallest, h.YMax)
	}
	// Labels thin out so they do not overlap: 81 slots of ~8.8 units → every 5th.
	var texts []string
	for _, l := range h.Axis {
		texts = append(texts, l.Text)
	}
	if got := strings.Join(texts, " "); got != "0 5 10 15 20 25 30 35 40 45 50 55 60 65 70 75 80" {
		t.Errorf("axis labels %s", got)
	}
}
