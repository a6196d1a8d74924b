package httpapi

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/plot"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

//go:embed page.html
var pageHTML string

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{"shorten": shorten,
	"line": func(seq int64) int64 { return seq + 1 }}).Parse(pageHTML))

// RefreshSeconds is the page's auto-refresh period (the tests' WithRefresh
// sets another).
const RefreshSeconds = 5

type pageData struct {
	Refresh  int
	Now      string
	Error    string
	Session  bool // logged in with a session cookie: offer to log out
	Filter   pageFilter
	Puzzles  []pagePuzzle
	Batches  []pageBatch
	Selected *pageBatch
	// Splits is the selected batch's split searches (producer --split),
	// read from NATS when the server can (WithSplits); SplitsError says
	// why they are missing when it could not.
	Splits      []pageSplit
	SplitsError string
	Rows        *pageRows // the selected batch's rows, a page at a time
	Dead        *pageDead // and its dead letters
	// Dist is the selected batch's histogram (nil without ?batch, or for
	// a fast batch, whose answers are not proved optimal).
	Dist *pageDist
	// Throughput is the selected batch's rows per minute as a sparkline.
	Throughput     template.HTML
	ThroughputMax  int64
	ThroughputNote string // why there is no sparkline

	// Steering: Actor is the writer logged in ("" : no action is
	// offered), CSRF the token the forms carry, Steer what the selected
	// batch can take, Flash what the last action did.
	Actor string
	CSRF  string
	Steer *pageSteer
	Flash *pageFlash
	// NATS is false without Steering; WorkersError says why the workers
	// are missing when NATS did not answer.
	NATS         bool
	Workers      []pageWorker
	WorkersError string
}

// pageFilter is the batch filter form: its values and choices.
type pageFilter struct {
	Puzzle, State string
	Puzzles       []string // every puzzle with a batch
	States        []string
}

// PageRows is how many rows or dead letters the page shows at a time.
const PageRows = 50

type pageRows struct {
	Status   string   // the status filter ("" all)
	Statuses []string // its choices
	Items    []store.Solution
	Next     string // URL of the next page ("" on the last)
	Prev     string // URL of the previous page ("" on the first)
	First    string // URL of the first page ("" on it)
	CSV      string // download URLs of every row of the filter
	JSONL    string
}

type pageDead struct {
	Items []pageDeadLetter
	Next  string
	First string
	CSV   string
	JSONL string
}

type pageDeadLetter struct {
	store.DeadLetter
	Payload string // shortened for the table
}

// withParams is the page's URL with params changed (an empty value
// removes one): links keep the filters they do not change.
func withParams(r *http.Request, kv ...string) string {
	q := r.URL.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			q.Del(kv[i])
		} else {
			q.Set(kv[i], kv[i+1])
		}
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

// shorten cuts s to n runes with an ellipsis, for table cells.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// pageDist is a sampled distribution beside the exact one of its puzzle,
// with the SVG drawn by internal/plot.
type pageDist struct {
	What    string // what Sampled counts: "distinct states" (a puzzle), "states" (a batch)
	Sampled store.Distribution
	Exact   store.Distribution // Total 0 when none is stored
	SVG     template.HTML
}

// pagePuzzle is one puzzle's section of the front page: its distinct
// states' histogram (every batch) against the exact distribution.
type pagePuzzle struct {
	Puzzle string
	pageDist
}

// pageSplit is one split search's progress as the page shows it.
type pageSplit struct {
	SplitView
	Subtrees string // answered/total, "-" while the iteration is being laid out
	Status   string // the end, or "running for D"
}

func newPageSplit(r job.SplitRecord, now time.Time) pageSplit {
	p := pageSplit{SplitView: newSplitView(r), Subtrees: "-", Status: r.End}
	if r.Laid() {
		p.Subtrees = fmt.Sprintf("%d/%d", r.Count, r.Total)
	}
	if p.Status == "" {
		p.Status = "running for " + now.Sub(r.Started).Round(time.Second).String()
	}
	return p
}

type pageBatch struct {
	ID         int64
	Puzzle     string
	Mode       string
	Fast       bool // answers not proved optimal: not in any histogram
	State      string
	Done       int64
	Total      string // "?" while unknown
	Known      bool   // total known: Percent and Segments mean something
	Percent    string // of total, one decimal
	Segments   []segment
	Solved     int64
	Other      int64  // rows not solved (budget exceeded, invalid, unsolvable, failed)
	Rate       string // rows per second, "" before the first row
	ETA        string // for an unfinished batch with a known total and a rate
	Created    string
	IsSelected bool
}

// segment is one status's share of a progress bar.
type segment struct {
	Status string // a result.Status: its CSS class and colour
	Count  int64
	Width  string // percent of the bar, two decimals
}

func newPageBatch(b store.Batch, selected int64, now time.Time) pageBatch {
	p := pageBatch{
		ID: b.ID, Puzzle: b.Puzzle, Mode: b.Mode, Fast: b.Mode == string(result.ModeFast),
		State: b.State(now), Done: b.Done, Total: "?",
		Solved: b.Solved, Other: b.Done - b.Solved,
		Created: b.CreatedAt.UTC().Format("2006-01-02 15:04:05"), IsSelected: b.ID == selected,
	}
	if v := view(b); v.Progress != nil {
		p.Known, p.Total = true, strconv.FormatInt(b.Total, 10)
		p.Percent = strconv.FormatFloat(100**v.Progress, 'f', 1, 64)
		p.Segments = segments(b)
	}
	p.Rate, p.ETA = pace(b, now)
	return p
}

// segments splits a progress bar of a batch with a known total by status,
// each as wide as its counter, so a batch whose states all ran out of
// budget shows amber, not a full green bar.
func segments(b store.Batch) []segment {
	den := max(b.Total, b.Done)
	if den <= 0 {
		return nil
	}
	var out []segment
	for i, n := range b.ByStatus() {
		if n > 0 {
			out = append(out, segment{Status: string(result.Statuses()[i]), Count: n,
				Width: strconv.FormatFloat(100*float64(n)/float64(den), 'f', 2, 64)})
		}
	}
	return out
}

// pace is a batch's average rate, rows stored per second since its
// creation (up to finished_at, the last row of a cancelled batch, or now
// while it runs), and, while it is unfinished with a known total, how long
// the rest should take at that rate. The page is rendered per request from
// the batches row alone, so this is an average since creation (queue
// waits included), not a recent rate; a batch whose solvers stopped shows
// a falling rate, a growing ETA and how long no row came.
func pace(b store.Batch, now time.Time) (rate, eta string) {
	last := now
	switch {
	case b.FinishedAt != nil:
		last = *b.FinishedAt
	case b.CancelledAt != nil && b.UpdatedAt != nil:
		last = *b.UpdatedAt
	case b.CancelledAt != nil:
		last = *b.CancelledAt
	}
	secs := last.Sub(b.CreatedAt).Seconds()
	if b.Done <= 0 || secs <= 0 {
		return "", ""
	}
	r := float64(b.Done) / secs
	rate = strconv.FormatFloat(r, 'f', rateDecimals(r), 64) + "/s"
	if b.FinishedAt != nil || b.CancelledAt != nil || b.Total < 0 || b.Done >= b.Total {
		return rate, ""
	}
	left := time.Duration(float64(b.Total-b.Done) / r * float64(time.Second))
	eta = "in " + left.Round(time.Second).String()
	if left < time.Second {
		eta = "in under 1s"
	}
	if b.UpdatedAt != nil && now.Sub(*b.UpdatedAt) > store.StallAfter {
		eta += ", no row for " + now.Sub(*b.UpdatedAt).Round(time.Second).String()
	}
	return rate, eta
}

func rateDecimals(r float64) int {
	switch {
	case r >= 100:
		return 0
	case r >= 1:
		return 1
	}
	return 3
}

// newPageDist draws sampled beside exact.
func newPageDist(title, what string, sampled, exact store.Distribution) (*pageDist, error) {
	var b strings.Builder
	n := "sampled"
	if sampled.Total > 0 {
		n = fmt.Sprintf("sampled, mean %.3f", sampled.Mean)
	}
	e := "exact"
	if exact.Total > 0 {
		e = fmt.Sprintf("exact, mean %.3f", exact.Mean)
	}
	if err := plot.Histogram(&b, title, series(n, sampled), series(e, exact)); err != nil {
		return nil, err
	}
	// plot.Histogram writes SVG text from numbers and escaped names only.
	return &pageDist{What: what, Sampled: sampled, Exact: exact, SVG: template.HTML(b.String())}, nil //nolint:gosec
}

func series(name string, d store.Distribution) plot.Series {
	s := plot.Series{Name: name, Counts: make(map[int]int64, len(d.Counts))}
	for _, c := range d.Counts {
		s.Counts[c.Length] = c.Count
	}
	return s
}

// page renders the status page: per puzzle its histogram of optimal lengths
// against the exact distribution, the newest batches with a progress bar,
// state, rate and ETA each and, with ?batch=ID, that batch's histogram.
func (s *server) page(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	data := pageData{Refresh: s.refresh, Now: now.UTC().Format("2006-01-02 15:04:05 UTC"),
		Actor: httpauth.ActorOf(r.Context()), CSRF: httpauth.CSRFOf(r.Context()), Flash: takeFlash(w, r), NATS: s.steering != nil}
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
	_, cerr := r.Cookie(httpauth.CookieName)
	data.Session = cerr == nil
	f, err := batchFilter(r)
	if err != nil {
		setErr(http.StatusBadRequest, err)
		f = store.BatchFilter{}
	}
	data.Filter = pageFilter{Puzzle: f.Puzzle, State: f.State, States: store.BatchStates}
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
	fail := func(what string, err error) {
		s.errs.log(slog.LevelError, "page: "+what, "err", err)
		setErr(http.StatusInternalServerError, err)
	}
	bs, err := s.st.FindBatches(ctx, f, limit)
	if err != nil {
		fail("list batches", err)
	}
	for _, b := range bs {
		data.Batches = append(data.Batches, newPageBatch(b, selected, now))
	}
	if err == nil {
		data.Puzzles, err = s.puzzles(ctx)
		if err != nil {
			fail("puzzles", err)
		}
		for _, p := range data.Puzzles {
			data.Filter.Puzzles = append(data.Filter.Puzzles, p.Puzzle)
		}
	}
	if hasSelected && err == nil {
		b, err := s.st.BatchProgress(ctx, selected)
		var d store.Distribution
		if err == nil && b.Mode != string(result.ModeFast) {
			d, err = s.st.BatchDistribution(ctx, selected)
		}
		var exact store.Distribution
		if err == nil && d.Total > 0 {
			exact, err = s.st.ExactDistribution(ctx, b.Puzzle)
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
			setErr(http.StatusNotFound, err)
		case err != nil:
			fail(fmt.Sprintf("batch %d", selected), err)
		default:
			pb := newPageBatch(b, selected, now)
			data.Selected = &pb
			ps := newPageSteer(b)
			data.Steer = &ps
			if b.Done > PageThroughputRows {
				data.ThroughputNote = fmt.Sprintf("Rows per minute are not drawn for a batch of more than %d rows: they are counted from every row of the batch (/api/batches/%d/throughput does).", PageThroughputRows, b.ID)
			} else if data.Throughput, data.ThroughputMax, err = s.pageThroughput(ctx, selected, now); err != nil {
				fail("throughput", err)
			}
			if s.splits != nil {
				// The records are in NATS: without it the page shows the rest.
				rs, err := s.splits.Splits(ctx, selected)
				if err != nil {
					s.errs.log(slog.LevelWarn, "page: split progress", "err", err)
					data.SplitsError = err.Error()
				}
				for _, r := range rs {
					data.Splits = append(data.Splits, newPageSplit(r, now))
				}
			}
			if !pb.Fast && d.Total > 0 {
				if data.Dist, err = newPageDist(fmt.Sprintf("batch %d: %s", b.ID, b.Puzzle), "states", d, exact); err != nil {
					fail("draw", err)
				}
			}
			if data.Rows, err = s.pageRows(ctx, r, selected); err != nil {
				if errors.As(err, new(paramError)) {
					setErr(http.StatusBadRequest, err)
				} else {
					fail("rows", err)
				}
			}
			if data.Dead, err = s.pageDead(ctx, r, selected); err != nil {
				if errors.As(err, new(paramError)) {
					setErr(http.StatusBadRequest, err)
				} else {
					fail("dead letters", err)
				}
			}
		}
	}

	if s.steering != nil {
		wctx, wcancel := context.WithTimeout(ctx, workersTimeout)
		ws, err := s.steering.Workers(wctx)
		wcancel()
		if err != nil {
			s.errs.log(slog.LevelWarn, "page: workers", "err", err)
			data.WorkersError = err.Error()
		}
		for _, e := range ws {
			data.Workers = append(data.Workers, newPageWorker(e, now))
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

// afterParam reads a page cursor (absent: def).
func afterParam(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, paramError{name, fmt.Errorf("%q is not a whole number", v)}
	}
	return n, nil
}

// pageRows is one page of the selected batch's rows, of ?status=S, after
// ?rows_after=SEQ.
func (s *server) pageRows(ctx context.Context, r *http.Request, batch int64) (*pageRows, error) {
	status := r.URL.Query().Get("status")
	var statuses []string
	if status != "" {
		if !result.Status(status).Valid() {
			return nil, paramError{"status", fmt.Errorf("%q: want one of %s", status, result.StatusNames())}
		}
		statuses = []string{status}
	}
	after, err := afterParam(r, "rows_after", -1)
	if err != nil {
		return nil, err
	}
	rows, err := s.st.BatchRows(ctx, batch, statuses, after, PageRows)
	if err != nil {
		return nil, err
	}
	p := &pageRows{Status: status, Items: rows}
	for _, k := range result.Statuses() {
		p.Statuses = append(p.Statuses, string(k))
	}
	if len(rows) == PageRows {
		p.Next = withParams(r, "rows_after", strconv.FormatInt(rows[len(rows)-1].Seq, 10))
	}
	if after >= 0 {
		p.First = withParams(r, "rows_after", "")
		if len(rows) > 0 {
			prev, err := s.st.RowsBefore(ctx, batch, statuses, rows[0].Seq, PageRows)
			if err != nil {
				return nil, err
			}
			p.Prev = p.First
			if prev >= 0 {
				p.Prev = withParams(r, "rows_after", strconv.FormatInt(prev, 10))
			}
		}
	}
	dl := url.Values{"status": {status}}
	if status == "" {
		dl = url.Values{}
	}
	for _, f := range []struct {
		dst *string
		fmt string
	}{{&p.CSV, "csv"}, {&p.JSONL, "jsonl"}} {
		dl.Set("format", f.fmt)
		*f.dst = fmt.Sprintf("/api/batches/%d/rows?%s", batch, dl.Encode())
	}
	return p, nil
}

// pageDead is one page of the selected batch's dead letters, after
// ?dead_after=ID.
func (s *server) pageDead(ctx context.Context, r *http.Request, batch int64) (*pageDead, error) {
	after, err := afterParam(r, "dead_after", 0)
	if err != nil {
		return nil, err
	}
	ls, err := s.st.DeadLettersAfter(ctx, batch, after, PageRows)
	if err != nil {
		return nil, err
	}
	p := &pageDead{CSV: fmt.Sprintf("/api/batches/%d/dead?format=csv", batch), JSONL: fmt.Sprintf("/api/batches/%d/dead?format=jsonl", batch)}
	for _, l := range ls {
		text, b64 := payloadText(l.Payload)
		if b64 != "" {
			text = "base64:" + b64
		}
		p.Items = append(p.Items, pageDeadLetter{DeadLetter: l, Payload: shorten(text, 80)})
	}
	if len(ls) == PageRows {
		p.Next = withParams(r, "dead_after", strconv.FormatInt(ls[len(ls)-1].ID, 10))
	}
	if after > 0 {
		p.First = withParams(r, "dead_after", "")
	}
	return p, nil
}

// puzzles is a section per puzzle with a batch: the distinct states' optimal
// lengths over every batch, beside the exact distribution when stored.
func (s *server) puzzles(ctx context.Context) ([]pagePuzzle, error) {
	ts, err := s.st.Totals(ctx)
	if err != nil {
		return nil, err
	}
	var out []pagePuzzle
	for _, t := range ts {
		// Both are read from small tables the writer keeps (puzzle_counts,
		// exact_distributions), so the histogram is live on every refresh.
		sampled, err := s.st.PuzzleDistribution(ctx, t.Puzzle)
		if err != nil {
			return nil, err
		}
		exact, err := s.st.ExactDistribution(ctx, t.Puzzle)
		if err != nil {
			return nil, err
		}
		d, err := newPageDist(t.Puzzle, "distinct states", sampled, exact)
		if err != nil {
			return nil, fmt.Errorf("draw %s: %w", t.Puzzle, err)
		}
		out = append(out, pagePuzzle{Puzzle: t.Puzzle, pageDist: *d})
	}
	return out, nil
}

// PageThroughputRows is the largest batch (rows stored) whose rows per
// minute the page draws: they are counted from every row of the batch
// (store.Throughput), docs/BENCHMARKS.md has what that costs.
const PageThroughputRows = 1_000_000

// sparkTTL is how long the page reuses a batch's sparkline: its points are
// whole minutes, and a page refreshing every few seconds would otherwise
// count the batch's rows each time.
const sparkTTL = 30 * time.Second

// maxSparks bounds the sparklines kept.
const maxSparks = 64

type spark struct {
	at  time.Time
	svg template.HTML
	top int64
}

type sparks struct {
	mu sync.Mutex
	m  map[int64]spark
}

// pageThroughput draws the batch's rows per minute over the last
// DefaultThroughputMinutes minutes up to its newest row, reusing a drawing
// younger than sparkTTL.
func (s *server) pageThroughput(ctx context.Context, batch int64, now time.Time) (template.HTML, int64, error) {
	s.sparks.mu.Lock()
	c, ok := s.sparks.m[batch]
	s.sparks.mu.Unlock()
	if ok && now.Sub(c.at) < sparkTTL {
		return c.svg, c.top, nil
	}
	ms, err := s.st.Throughput(ctx, batch, DefaultThroughputMinutes)
	if err != nil {
		return "", 0, err
	}
	vs := make([]int64, len(ms))
	var top int64
	for i, m := range ms {
		vs[i] = m.Rows
		top = max(top, m.Rows)
	}
	title := fmt.Sprintf("batch %d: rows stored per minute", batch)
	if len(ms) > 0 {
		title += fmt.Sprintf(", %s to %s UTC", ms[0].Minute.Format("15:04"), ms[len(ms)-1].Minute.Format("15:04"))
	}
	var b strings.Builder
	if err := plot.Sparkline(&b, title, vs); err != nil {
		return "", 0, err
	}
	// plot.Sparkline writes SVG text from numbers and an escaped title only.
	svg := template.HTML(b.String()) //nolint:gosec
	s.sparks.mu.Lock()
	defer s.sparks.mu.Unlock()
	if s.sparks.m == nil {
		s.sparks.m = map[int64]spark{}
	}
	if len(s.sparks.m) >= maxSparks {
		for k, v := range s.sparks.m {
			if now.Sub(v.at) >= sparkTTL || len(s.sparks.m) >= maxSparks {
				delete(s.sparks.m, k)
			}
		}
	}
	s.sparks.m[batch] = spark{at: now, svg: svg, top: top}
	return svg, top, nil
}
