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

// A sparkline is well-formed, has a point per value, the largest at the
// top and a zero at the bottom, and says when there is nothing to draw.
func TestSparkline(t *testing.T) {
	var b strings.Builder
	if err := Sparkline(&b, "rows <per> minute", []int64{0, 5, 10, 5}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	dec := xml.NewDecoder(strings.NewReader(svg))
	type circle struct {
		CY    float64 `xml:"cy,attr"`
		Value int64   `xml:"data-value,attr"`
		Class string  `xml:"class,attr"`
	}
	var pts []circle
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed: %v\n%s", err, svg)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "circle" {
			var c circle
			if err := dec.DecodeElement(&c, &se); err != nil {
				t.Fatal(err)
			}
			pts = append(pts, c)
		}
	}
	if len(pts) != 4 || pts[2].Value != 10 || pts[0].CY != 44 || pts[2].CY != 4 || pts[1].CY != 24 {
		t.Errorf("points %+v", pts)
	}
	if !strings.Contains(svg, "max 10") || !strings.Contains(svg, "rows &lt;per&gt; minute") {
		t.Errorf("label or escaped title missing:\n%s", svg)
	}
	b.Reset()
	if err := Sparkline(&b, "none", nil); err != nil || !strings.Contains(b.String(), "no rows yet") {
		t.Errorf("empty: %v %s", err, b.String())
	}
}
