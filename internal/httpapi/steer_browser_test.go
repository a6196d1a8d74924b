package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/job"
)

// A writer in headless Chromium steers a batch: logs in, pauses the
// auto-refresh (and the pause outlives a reload), pauses the batch, then
// cancels it, confirming the dialog, each by clicking, and reads what
// happened; sees the workers of the registry and the batch's rows per
// minute; pages through another batch's rows and back with "previous",
// the rows numbered as the producer counted them.
func TestSteerInBrowser(t *testing.T) {
	exe := chromium(t)
	t.Parallel()
	const refresh = 2 // seconds: the test waits out the period twice
	f := newSteerFixture(t, httpapi.WithRefresh(refresh))
	ctx0 := ctxT(t)
	many, err := f.st.CreateBatch(ctx0, "8", "optimal", 120)
	if err != nil {
		t.Fatal(err)
	}
	lengths := make([]int, 120)
	for i := range lengths {
		lengths[i] = 2 * (i % 10)
	}
	if _, err := f.st.InsertResults(ctx0, []job.Results{results("sliding:3x3", many, 0, lengths...)}); err != nil {
		t.Fatal(err)
	}

	ctx := browser(t, exe, time.Minute)
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	// text0 is the text of the first node sel selects, once ok holds of
	// it (settled).
	text0 := func(sel string, ok func(string) bool) string {
		return settled(ctx, fmt.Sprintf(`(document.querySelector(%q) || {innerText: 'none'}).innerText`, sel), ok)
	}
	batchURL := fmt.Sprintf("%s/?batch=%d", f.srv.URL, f.batch)
	if err := chromedp.Do(ctx, chromedp.Navigate(batchURL), chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), writerA), chromedp.Submit(chromedp.ID("token")),
		chromedp.WaitVisible(chromedp.ID("steer-pause"))); err != nil {
		t.Fatalf("log in as a writer: %v", err)
	}
	if got := text("#actor"); got != "a" {
		t.Errorf("logged in as %q, want a", got)
	}

	// The refresh, paused, stays paused across a reload and for longer
	// than its period.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("refresh-toggle"))); err != nil {
		t.Fatal(err)
	}
	if got := text("#refresh-state"); got != "refresh paused" {
		t.Errorf("after pausing the refresh: %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("steer-pause"))); err != nil {
		t.Fatal(err)
	}
	// steer-pause was visible on the page before the reload too.
	if got := text0("#refresh-state", is("refresh paused")); got != "refresh paused" {
		t.Errorf("after a reload: %q", got)
	}
	eval(`window.tesseraMark = 'here'; ''`)
	time.Sleep(refresh*time.Second + time.Second)
	if got := eval(`window.tesseraMark || 'reloaded'`); got != "here" {
		t.Errorf("the page reloaded with the refresh paused")
	}

	// Pause the batch by clicking.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#steer-pause button`)), chromedp.WaitVisible(chromedp.ID("steer-unpause"))); err != nil {
		t.Fatalf("pause: %v", err)
	}
	if got, want := text("#flash"), fmt.Sprintf("batch %d paused", f.batch); got != want {
		t.Errorf("flash after pause %q, want %q", got, want)
	}
	if b, err := f.st.BatchProgress(ctx0, f.batch); err != nil || b.PausedAt == nil {
		t.Errorf("after the click: %+v %v", b, err)
	}

	// Cancel: the dialog asks first; accepted, the batch is cancelled.
	asked := make(chan string, 4)
	go func() {
		for ev, err := range chromedp.Events(ctx, cdpage.JavascriptDialogOpening) {
			if err != nil {
				return
			}
			asked <- ev.Message
			if _, err := chromedp.Call(ctx, cdpage.HandleJavaScriptDialog, cdpage.HandleJavaScriptDialogParams{Accept: true}); err != nil {
				return
			}
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#steer-cancel button`)), chromedp.WaitNotPresent(chromedp.ID("steer-cancel"))); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	// The cancel's page, once loaded: WaitNotPresent can already hold
	// while the old page unloads, and a node read from it then is gone.
	cancelled := fmt.Sprintf("batch %d cancelled", f.batch)
	if got := text0(`#flash`, func(s string) bool { return strings.HasPrefix(s, cancelled) }); !strings.HasPrefix(got, cancelled) {
		t.Errorf("flash after cancel %q", got)
	}
	select {
	case m := <-asked:
		if !strings.Contains(m, "Cancel batch") || len(asked) != 0 {
			t.Errorf("dialog %q, %d more", m, len(asked))
		}
	default:
		t.Error("no dialog asked before the cancel")
	}
	if b, err := f.st.BatchProgress(ctx0, f.batch); err != nil || b.CancelledAt == nil || b.PausedAt != nil {
		t.Errorf("after the cancel: %+v %v", b, err)
	}

	// The workers view and the sparkline.
	if got := text(`#workers tr[data-key="solverd.h1.42.x"]`); !strings.Contains(got, "h1") || !strings.Contains(got, "12345 nodes") {
		t.Errorf("workers row %q", got)
	}
	if n := eval(`String(document.querySelectorAll('#throughput svg.sparkline circle.point').length)`); n != "60" {
		t.Errorf("sparkline points: %s, want 60 (a minute each)", n)
	}
	if h := eval(`String(Math.round(document.querySelector('#throughput svg.sparkline').getBoundingClientRect().height))`); h == "0" {
		t.Error("the sparkline is not drawn")
	}

	// Rows, numbered from 1, and back with "previous".
	// The first row's number, once the page shows it (under load a page
	// can be read before its rows are laid out): a wrong one is waited on
	// for up to 10 s, then returned.
	firstCell := func(want string) string {
		return text0(`#rows tbody tr td`, is(want))
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/?batch=%d", f.srv.URL, many)), chromedp.WaitVisible(chromedp.ID("rows"))); err != nil {
		t.Fatal(err)
	}
	if got := firstCell("1"); got != "1" {
		t.Errorf("first row numbered %q, want 1", got)
	}
	for _, want := range []string{"51", "101"} {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("rows-next")), chromedp.WaitVisible(chromedp.ID("rows-prev"))); err != nil {
			t.Fatalf("next: %v", err)
		}
		if got := firstCell(want); got != want {
			t.Errorf("after next: first row %q, want %s", got, want)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("rows-prev")), chromedp.WaitVisible(chromedp.ID("rows"))); err != nil {
		t.Fatalf("previous: %v", err)
	}
	if got := firstCell("51"); got != "51" {
		t.Errorf("after previous: first row %q, want 51", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("rows-prev")), chromedp.WaitNotPresent(chromedp.ID("rows-prev"))); err != nil {
		t.Fatalf("previous to the first page: %v", err)
	}
	if got := firstCell("1"); got != "1" {
		t.Errorf("back on the first page: first row %q", got)
	}

	// Resumed, the refresh reloads the page within its period.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("refresh-toggle"))); err != nil {
		t.Fatal(err)
	}
	eval(`window.tesseraMark = 'here'; ''`)
	time.Sleep(refresh*time.Second + time.Second)
	if got := eval(`window.tesseraMark || 'reloaded'`); got != "reloaded" {
		t.Errorf("the page did not reload with the refresh resumed")
	}
	// The page reloads every period now, so it may be read between two.
	want := fmt.Sprintf("refreshes every %d s", refresh)
	if got := text0("#refresh-state", is(want)); got != want {
		t.Errorf("after resuming: %q", got)
	}
}
