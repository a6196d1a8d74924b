package plot

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestHistogram(t *testing.T) {
	var b strings.Builder
	sampled := Series{Name: "sampled <10>", Counts: map[int]int64{2: 1, 4: 2, 6: 1}}
	exact := Series{Name: "exact", Counts: map[int]int64{0: 1, 2: 3, 4: 4, 6: 2}}
	if err := Histogram(&b, "sliding:3x3 & co", sampled, exact); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	// Well-formed XML (titles and names escaped), one bar per sampled
	// length, one exact line through every length from the least to the greatest.
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed: %v\n%s", err, svg)
			}
			break
		}
	}
	if n := strings.Count(svg, `class="sampled"`); n != 3 {
		t.Errorf("%d bars, want 3", n)
	}
	if !strings.Contains(svg, `class="exact"`) || strings.Count(strings.SplitN(strings.SplitN(svg, `points="`, 2)[1], `"`, 2)[0], ",") != 7 {
		t.Errorf("exact line missing or not through the 7 lengths 0..6:\n%s", svg)
	}
	b.Reset()
	if err := Histogram(&b, "empty", Series{Name: "sampled"}, Series{}); err != nil || !strings.Contains(b.String(), "no proved-optimal lengths yet") {
		t.Errorf("empty: %v %s", err, b.String())
	}
}
