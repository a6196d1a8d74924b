package httpapi

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/tessera-solver/tessera/internal/store"
)

//go:embed page.html
var pageHTML string

var pageTmpl = template.Must(template.New("page").Parse(pageHTML))

// RefreshSeconds is the page's auto-refresh period.
const RefreshSeconds = 5

type pageData struct {
	Refresh  int
	Now      string
	Error    string
	Batches  []pageBatch
	Selected *pageBatch
	Hist     *histogram
}

type pageBatch struct {
	ID         int64
	Puzzle     string
	Mode       string
	Done       int64
	Total      string // "?" while unknown
	Known      bool   // total known: Percent means something
	Percent    string // of total, one decimal, for the bar width
	Solved     int64
	Other      int64 // rows not solved (budget exceeded, invalid, unsolvable, failed)
	Finished   bool
	Created    string
	IsSelected bool
}

func newPageBatch(b store.Batch, selected int64) pageBatch {
	p := pageBatch{
		ID: b.ID, Puzzle: b.Puzzle, Mode: b.Mode, Done: b.Done, Total: "?",
		Solved: b.Solved, Other: b.Done - b.Solved, Finished: b.Finished(),
		Created: b.CreatedAt.UTC().Format("2006-01-02 15:04:05"), IsSelected: b.ID == selected,
	}
	if v := view(b); v.Progress != nil {
		p.Known, p.Total = true, strconv.FormatInt(b.Total, 10)
		p.Percent = strconv.FormatFloat(100**v.Progress, 'f', 1, 64)
	}
	return p
}

// histogram is an SVG bar chart of a distribution, laid out here so the
// template only draws.
type histogram struct {
	Width, Height int
	Bars          []histBar
	Axis          []histLabel
	YMax          int64   // count of the tallest bar
	Total         int64   // states counted
	Mean          float64 // mean optimal length
	Max           int     // longest optimal length
}

type histBar struct {
	X, Y, W, H float64
	Length     int
	Count      int64
}

type histLabel struct {
	X    float64
	Text string
}

// Histogram geometry, in SVG user units.
const (
	histWidth   = 720
	histPlotH   = 200
	histTop     = 16 // room for the y label
	histBottom  = 20 // room for the length labels
	histLeftPad = 4
)

// newHistogram draws one bar per length from the shortest to the longest
// that occurs (gaps drawn as empty bars, so the axis is linear).
func newHistogram(d store.Distribution) *histogram {
	h := &histogram{Width: histWidth, Height: histTop + histPlotH + histBottom, Total: d.Total, Mean: d.Mean, Max: d.Max}
	if len(d.Counts) == 0 || d.Total == 0 {
		return h
	}
	lo, hi := d.Counts[0].Length, d.Counts[len(d.Counts)-1].Length
	byLen := make(map[int]int64, len(d.Counts))
	for _, c := range d.Counts {
		byLen[c.Length] = c.Count
		h.YMax = max(h.YMax, c.Count)
	}
	n := hi - lo + 1
	slot := float64(histWidth-2*histLeftPad) / float64(n)
	gap := 0.0
	if slot >= 4 {
		gap = max(1, slot/8)
	}
	every := 1 // label every bar, or every 2nd, 5th, 10th... when crowded
	for _, e := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		every = e
		if slot*float64(e) >= 24 {
			break
		}
	}
	for i := range n {
		l := lo + i
		c := byLen[l]
		bh := float64(c) / float64(h.YMax) * histPlotH
		if c > 0 && bh < 1 {
			bh = 1 // a rare length stays visible
		}
		x := histLeftPad + float64(i)*slot
		h.Bars = append(h.Bars, histBar{X: x + gap/2, Y: histTop + histPlotH - bh, W: slot - gap, H: bh, Length: l, Count: c})
		if l%every == 0 {
			h.Axis = append(h.Axis, histLabel{X: x + slot/2, Text: strconv.Itoa(l)})
		}
	}
	return h
}

// page renders the status page: the newest batches with a progress bar
// each and, with ?batch=ID, that batch's histogram of optimal lengths.
func (s *server) page(w http.ResponseWriter, r *http.Request) {
	data := pageData{Refresh: RefreshSeconds, Now: time.Now().UTC().Format("2006-01-02 15:04:05 UTC")}
	code := http.StatusOK
	setErr := func(c int, err error) {
		if data.Error == "" {
			code, data.Error = c, err.Error()
		}
	}
	limit, err := intParam(r, "limit", DefaultBatches, 1, MaxBatches)
	if err != nil {
		setErr(http.StatusBadRequest, err)
		limit = DefaultBatches
	}
	var selected int64
	hasSelected := false
	if q := r.URL.Query().Get("batch"); q != "" {
		if selected, err = strconv.ParseInt(q, 10, 64); err != nil {
			setErr(http.StatusBadRequest, paramError{"batch", fmt.Errorf("%q is not a whole number", q)})
		} else {
			hasSelected = true
		}
	}

	ctx, cancel := context.WithTimeout(r.Context(), queryTimeout)
	defer cancel()
	bs, err := s.st.Batches(ctx, limit)
	if err != nil {
		s.log.Error("page: list batches", "err", err)
		setErr(http.StatusInternalServerError, err)
	}
	for _, b := range bs {
		data.Batches = append(data.Batches, newPageBatch(b, selected))
	}
	if hasSelected && err == nil {
		b, err := s.st.BatchProgress(ctx, selected)
		var d store.Distribution
		if err == nil {
			d, err = s.st.BatchDistribution(ctx, selected)
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
			setErr(http.StatusNotFound, err)
		case err != nil:
			s.log.Error("page: batch", "batch", selected, "err", err)
			setErr(http.StatusInternalServerError, err)
		default:
			pb := newPageBatch(b, selected)
			data.Selected, data.Hist = &pb, newHistogram(d)
		}
	}

	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, data); err != nil {
		s.log.Error("page: render", "err", err)
		http.Error(w, "render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}
