// Package plot draws distance distributions as SVG: a histogram of the
// sampled counts as bars, with the exact distribution (when known) as a
// line of the same scale, so the difference shows at a glance. It writes
// plain SVG text with no dependency, for `results dist --svg` and the
// status page.
package plot

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// Series is one distribution: the number of states at each length.
type Series struct {
	Name   string
	Counts map[int]int64
}

func (s Series) total() int64 {
	var t int64
	for _, n := range s.Counts {
		t += n
	}
	return t
}

// Histogram writes an SVG of sampled (bars) and, when its Counts are not
// empty, exact (a line), both as fractions of their totals so that a
// sample and the whole space share one scale.
func Histogram(w io.Writer, title string, sampled, exact Series) error {
	const (
		width, height       = 720, 320
		left, right, top    = 56, 16, 60 // the legend sits above the plot
		bottom              = 40
		plotW, plotH        = width - left - right, height - top - bottom
		barFill, lineStroke = "#4a7fb5", "#d9534f"
	)
	lo, hi := -1, -1
	var maxFrac float64
	for _, s := range []Series{sampled, exact} {
		t := s.total()
		for l, n := range s.Counts {
			if lo < 0 || l < lo {
				lo = l
			}
			hi = max(hi, l)
			if t > 0 {
				maxFrac = max(maxFrac, float64(n)/float64(t))
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<title>%s</title>`+"\n", html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s</text>`+"\n", left, html.EscapeString(title))
	if lo < 0 || maxFrac == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no proved-optimal lengths yet</text>`+"\n", left, top+plotH/2)
		b.WriteString("</svg>\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	n := hi - lo + 1
	slot := float64(plotW) / float64(n)
	x := func(l int) float64 { return float64(left) + slot*float64(l-lo) }
	y := func(frac float64) float64 { return float64(top) + float64(plotH)*(1-frac/maxFrac) }
	// Axes, with a tick per length where they fit.
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>`+"\n", left, top+plotH, left+plotW, top+plotH)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>`+"\n", left, top, left, top+plotH)
	every := max(1, (n+19)/20)
	for l := lo; l <= hi; l += every {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(l)+slot/2, top+plotH+16, l)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">optimal length</text>`+"\n", left+plotW/2, height-6)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%.1f%%</text>`+"\n", left-4, top+4, 100*maxFrac)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">0</text>`+"\n", left-4, top+plotH)
	if t := sampled.total(); t > 0 {
		for l := lo; l <= hi; l++ {
			c := sampled.Counts[l]
			if c == 0 {
				continue
			}
			f := float64(c) / float64(t)
			fmt.Fprintf(&b, `<rect class="sampled" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%d: %d (%.2f%%)</title></rect>`+"\n",
				x(l)+1, y(f), max(slot-2, 1), float64(top+plotH)-y(f), barFill, l, c, 100*f)
		}
	}
	if t := exact.total(); t > 0 {
		var pts []string
		for l := lo; l <= hi; l++ {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(l)+slot/2, y(float64(exact.Counts[l])/float64(t))))
		}
		fmt.Fprintf(&b, `<polyline class="exact" points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), lineStroke)
	}
	// Legend.
	fmt.Fprintf(&b, `<rect x="%d" y="26" width="10" height="10" fill="%s"/><text x="%d" y="35">%s (%d)</text>`+"\n",
		width-right-220, barFill, width-right-206, html.EscapeString(sampled.Name), sampled.total())
	if t := exact.total(); t > 0 {
		fmt.Fprintf(&b, `<line x1="%d" y1="46" x2="%d" y2="46" stroke="%s" stroke-width="2"/><text x="%d" y="50">%s (%d)</text>`+"\n",
			width-right-220, width-right-210, lineStroke, width-right-206, html.EscapeString(exact.Name), t)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Sparkline writes a small SVG of values (oldest first) as a line over
// an area, scaled to the largest, with title as its tooltip and the
// largest value marked; no axes. One value's point is drawn at each end
// of the width. Every point is a <circle class="point"> too, so the
// values can be read back.
func Sparkline(w io.Writer, title string, values []int64) error {
	const (
		width, height = 360, 48
		pad           = 4
		stroke, fill  = "#2b5cab", "#dbe6f6"
	)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="sparkline" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="10">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<title>%s</title>`+"\n", html.EscapeString(title))
	var top int64
	for _, v := range values {
		top = max(top, v)
	}
	if len(values) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no rows yet</text>`+"\n", pad, height/2)
		b.WriteString("</svg>\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	step := 0.0
	if len(values) > 1 {
		step = float64(width-2*pad) / float64(len(values)-1)
	}
	y := func(v int64) float64 {
		if top == 0 {
			return float64(height - pad)
		}
		return float64(pad) + float64(height-2*pad)*(1-float64(v)/float64(top))
	}
	pts := make([]string, len(values))
	for i, v := range values {
		pts[i] = fmt.Sprintf("%.1f,%.1f", float64(pad)+step*float64(i), y(v))
	}
	if len(values) == 1 {
		pts = append(pts, fmt.Sprintf("%d,%.1f", width-pad, y(values[0])))
	}
	last := float64(pad) + step*float64(len(values)-1)
	if len(values) == 1 {
		last = width - pad
	}
	fmt.Fprintf(&b, `<polygon points="%d,%d %s %.1f,%d" fill="%s"/>`+"\n", pad, height-pad, strings.Join(pts, " "), last, height-pad, fill)
	fmt.Fprintf(&b, `<polyline class="line" points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), stroke)
	for i, v := range values {
		fmt.Fprintf(&b, `<circle class="point" cx="%.1f" cy="%.1f" r="1" fill="%s" data-value="%d"/>`+"\n", float64(pad)+step*float64(i), y(v), stroke, v)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">max %d</text>`+"\n", width-pad, 10, top)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
