package httpapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/store"
)

// A person with the token, in headless Chromium, with
// results.http_token set: sent to the login form, logs in, cannot read the session cookie
// from scripts, filters the batches, pages through a batch's rows and
// dead letters, downloads them, and logs out.
func TestLoginInBrowser(t *testing.T) {
	exe := chromium(t)
	t.Parallel()
	f := newStatusFixture(t)
	const token = "browser-token-5f1e9c2a7b"
	ctxT, cancelT := context.WithTimeout(context.Background(), time.Minute)
	defer cancelT()
	var letters []store.DeadLetter
	for i := range httpapi.PageRows + 3 {
		seq := int64(1000 + i)
		letters = append(letters, store.DeadLetter{BatchID: &f.sample, Seq: &seq, Source: store.DeadProducer,
			Reason: fmt.Sprintf("bad line %d", i), Key: fmt.Sprintf("%s-%d", t.Name(), i), Payload: []byte("1 2 3 x")})
	}
	if _, err := f.st.AddDeadLetters(ctxT, letters); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpauth.NewGuard(token, nil, "/healthz").Wrap(httpapi.New(f.st, nil)))
	t.Cleanup(srv.Close)

	ctx := browser(t, exe, 40*time.Second)
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}

	// The page sends the browser to the login form; a wrong token is
	// refused, the right one opens the page it asked for.
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/?batch=%d", srv.URL, f.sample)),
		chromedp.WaitVisible(chromedp.ID("token"))); err != nil {
		t.Fatalf("login form: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("token"), "wrong-"+token), chromedp.Submit(chromedp.ID("token")),
		chromedp.WaitVisible(chromedp.ID("login-error"))); err != nil {
		t.Fatalf("wrong token: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("token"), token), chromedp.Submit(chromedp.ID("token")),
		chromedp.WaitVisible(chromedp.ID("rows"))); err != nil {
		t.Fatalf("log in: %v", err)
	}
	if c := eval(`document.cookie`); strings.Contains(c, httpauth.CookieName) {
		t.Errorf("scripts can read the session cookie: %q", c)
	}
	if html := eval(`document.documentElement.outerHTML`); strings.Contains(html, token) {
		t.Error("the page shows the token")
	}

	if dir := os.Getenv("TESSERA_SCREENSHOT_DIR"); dir != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		if err := os.WriteFile(dir+"/batch-page.png", png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A batch's rows, a page at a time: 300 rows, 50 a page.
	seqs := func(table string) string {
		return eval(`[...document.querySelectorAll('#` + table + ` tbody tr')].map(r => r.dataset.seq || r.dataset.id).join(',')`)
	}
	first := strings.Split(seqs("rows"), ",")
	if len(first) != httpapi.PageRows || first[0] != "0" {
		t.Fatalf("first page of rows: %v", first)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("rows-next")), chromedp.WaitVisible(chromedp.ID("rows-first"))); err != nil {
		t.Fatalf("next page: %v", err)
	}
	if second := strings.Split(seqs("rows"), ","); len(second) != httpapi.PageRows || second[0] != "50" {
		t.Errorf("second page of rows: %v", second)
	}
	// Dead letters: 53, a page of 50 then 3.
	if n := len(strings.Split(seqs("dead"), ",")); n != httpapi.PageRows {
		t.Errorf("first page of dead letters: %d", n)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("dead-next")), chromedp.WaitVisible(chromedp.ID("dead-first"))); err != nil {
		t.Fatalf("next dead letters: %v", err)
	}
	if n := len(strings.Split(seqs("dead"), ",")); n != 3 {
		t.Errorf("second page of dead letters: %d", n)
	}
	// The download links work with the session: a header and 300 rows,
	// a header and 53 letters.
	count := func(id string) string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => { const r = await fetch(document.getElementById('`+id+`').href);
			const t = await r.text(); return r.status + ' ' + t.trim().split('\n').length; })()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("download %s: %v", id, err)
		}
		return v
	}
	for id, want := range map[string]string{"rows-csv": "200 301", "rows-jsonl": "200 300", "dead-csv": "200 54", "dead-jsonl": "200 53"} {
		if got := count(id); got != want {
			t.Errorf("download %s: %s, want %s", id, got, want)
		}
	}

	// Filters: the 4x4 batches, then the finished ones.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("batch-filter")),
		chromedp.SetValue(chromedp.ID("filter-puzzle"), "sliding:4x4"), chromedp.Submit(chromedp.ID("batch-filter")),
		chromedp.WaitVisible(`#batch-filter a`)); err != nil {
		t.Fatalf("filter by puzzle: %v", err)
	}
	const idsJS = `[...document.querySelectorAll('#batches tbody tr')].map(r => r.id).join(',')`
	want := fmt.Sprintf("batch-%d,batch-%d", f.run, f.fast)
	if got := settled(ctx, idsJS, is(want)); got != want {
		t.Errorf("puzzle sliding:4x4: %s, want %s", got, want)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("filter-puzzle"), ""), chromedp.SetValue(chromedp.ID("filter-state"), "finished"),
		chromedp.Submit(chromedp.ID("batch-filter")), chromedp.WaitVisible(`#batch-filter a`)); err != nil {
		t.Fatalf("filter by state: %v", err)
	}
	// The filter's link was on the page before this submit too.
	want = fmt.Sprintf("batch-%d,batch-%d", f.hard, f.sample)
	if got := settled(ctx, idsJS, is(want)); got != want {
		t.Errorf("state finished: %s, want %s", got, want)
	}

	// Logging out ends the session: back to the form, and the API says 401.
	if err := chromedp.Do(ctx, chromedp.Submit(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("token"))); err != nil {
		t.Fatalf("log out: %v", err)
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`fetch('/api/batches').then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil || v != 401 {
		t.Errorf("API after logout: %v %v, want 401", v, err)
	}
}
