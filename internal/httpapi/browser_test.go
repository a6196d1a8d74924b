package httpapi_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// settled evaluates js (a string expression) on the page the browser
// shows until ok holds of its value, for up to 10 s, and returns what it
// last read (or the error reading it). A wait for an element that both
// the page before a navigation and the page after it have can hold
// while the old one unloads; a read then finds the old page or nothing.
func settled(ctx context.Context, js string, ok func(string) bool) string {
	var got string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil { // the page is between documents
			got = err.Error()
		} else {
			got = v
		}
		if ok(got) || time.Now().After(deadline) {
			return got
		}
	}
}

// is is the ok of settled for one wanted value.
func is(want string) func(string) bool { return func(s string) bool { return s == want } }

// chromium returns the path of Debian's chromium. When it is missing the
// test is skipped, unless CI=true or TESSERA_BROWSER_TESTS=1 asks for
// browser tests and we run as root with apt-get: then it is installed
// (apt-get install -y chromium), once, and a failed install fails the test.
// With TESSERA_BROWSER_TESTS=1 (.ci/run sets it) a chromium that cannot be
// installed fails the test too.
// browser starts the Chromium at exe for t, stopped at its end, and
// returns a context of it whose deadline, timeout from now, bounds the
// test's steps.
func browser(t *testing.T, exe string, timeout time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe),
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-dev-shm-usage", true))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to sandbox as root
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	// The first Run starts the browser, which lives as long as bctx; the
	// deadline bounds each step instead.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	ctx, cancel := context.WithTimeout(bctx, timeout)
	t.Cleanup(cancel)
	return ctx
}

func chromium(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if os.Getenv("CI") != "true" && os.Getenv("TESSERA_BROWSER_TESTS") != "1" {
		t.Skip("chromium not installed (apt-get install -y chromium); with CI=true or TESSERA_BROWSER_TESTS=1 a root test run installs it")
	}
	apt, err := exec.LookPath("apt-get")
	if (err != nil || os.Geteuid() != 0) && os.Getenv("TESSERA_BROWSER_TESTS") == "1" {
		// Asked for by name (.ci/run): a browser test must not pass unseen.
		t.Fatalf("TESSERA_BROWSER_TESTS=1 but chromium is not installed, and this test can only install it as root with apt-get (root %v, apt-get: %v)", os.Geteuid() == 0, err)
	}
	if err != nil || os.Geteuid() != 0 {
		t.Skipf("chromium not installed, and this test can only install it as root with apt-get (root %v, apt-get: %v)", os.Geteuid() == 0, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, args := range [][]string{{"update", "-qq"}, {"install", "-y", "-qq", "--no-install-recommends", "chromium"}} {
		cmd := exec.CommandContext(ctx, apt, args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("apt-get %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium installed but not found: %v", err)
	}
	return p
}

// pageView is what the browser makes of the front page.
type pageView struct {
	Bars      int     `json:"bars"`      // sampled bars of the 3x3 with a visible height
	ExactLen  float64 `json:"exactLen"`  // drawn length of the exact line, px
	BarWidth  float64 `json:"barWidth"`  // the over-budget batch's progress bar
	HardSegs  []seg   `json:"hardSegs"`  // its segments
	SampleSeg []seg   `json:"sampleSeg"` // the finished, all-solved batch's segments
	ETA       string  `json:"eta"`       // the running batch's ETA cell
}

type seg struct {
	Class string  `json:"class"`
	Color string  `json:"color"` // computed background colour
	Width float64 `json:"width"` // rendered px
}

const pageViewJS = `(() => {
	const segs = id => [...document.querySelectorAll('#batch-' + id + ' .bar .seg')].map(e => ({
		class: e.className, color: getComputedStyle(e).backgroundColor, width: e.getBoundingClientRect().width}));
	const sec = document.querySelector('section[data-puzzle="sliding:3x3"]');
	const line = sec.querySelector('svg polyline.exact');
	return {
		bars: [...sec.querySelectorAll('svg rect.sampled')].filter(r => r.getBoundingClientRect().height > 0).length,
		exactLen: line ? line.getTotalLength() : 0,
		barWidth: document.querySelector('#batch-%d .bar').getBoundingClientRect().width,
		hardSegs: segs(%d),
		sampleSeg: segs(%d),
		eta: document.querySelector('#batch-%d').children[10].innerText,
	};
})()`

const (
	green = "rgb(60, 154, 95)"  // .solved
	amber = "rgb(224, 160, 48)" // .budget_exceeded
)

// The status page in headless Chromium, as a person sees it: the 3x3's
// histogram has bars and the exact line, the batch whose states all ran out
// of budget has an amber bar and no green, the running batch an ETA, and
// the fast batch says why it has no histogram. One screenshot goes to the
// test's temp dir (or TESSERA_SCREENSHOT_DIR, to keep it).
func TestPageInBrowser(t *testing.T) {
	exe := chromium(t)
	t.Parallel()
	f := newStatusFixture(t)

	ctx := browser(t, exe, 20*time.Second)

	if err := chromedp.Do(ctx, chromedp.Navigate(f.srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`section[data-puzzle="sliding:3x3"] svg`))); err != nil {
		t.Fatalf("load /: %v", err)
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[pageView](fmt.Sprintf(pageViewJS, f.hard, f.hard, f.sample, f.run)))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	t.Logf("%+v", v)
	if v.Bars < 8 || v.ExactLen < 100 {
		t.Errorf("3x3 histogram: %d visible bars, exact line %.0f px long", v.Bars, v.ExactLen)
	}
	var amberW float64
	for _, s := range v.HardSegs {
		if s.Width > 0 && s.Color == green {
			t.Errorf("over-budget batch shows green: %+v", s)
		}
		if s.Color == amber {
			amberW += s.Width
		}
	}
	if v.BarWidth == 0 || amberW < v.BarWidth-1 {
		t.Errorf("over-budget batch: amber %.1f px of a %.1f px bar (%+v)", amberW, v.BarWidth, v.HardSegs)
	}
	if len(v.SampleSeg) != 1 || v.SampleSeg[0].Color != green { // the colours are the ones computed
		t.Errorf("all-solved batch's bar: %+v", v.SampleSeg)
	}
	if !strings.HasPrefix(v.ETA, "in ") {
		t.Errorf("running batch's ETA %q", v.ETA)
	}

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("TESSERA_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	shot := filepath.Join(dir, "status-page.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%d bytes)", shot, len(png))

	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/?batch=%d", f.srv.URL, f.fast))); err != nil {
		t.Fatalf("load fast batch: %v", err)
	}
	note, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("fast-note"), chromedp.NodeVisible))
	if err != nil {
		t.Fatalf("fast batch note: %v", err)
	}
	if !strings.Contains(note, "not proved optimal") || !strings.Contains(note, "6 solved states") {
		t.Errorf("fast batch note %q", note)
	}

	// The running batch's split search, as a person reads its row.
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/?batch=%d", f.srv.URL, f.run))); err != nil {
		t.Fatalf("load running batch: %v", err)
	}
	split, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#splits tr[data-seq="7"]`), chromedp.NodeVisible))
	if err != nil {
		t.Fatalf("split progress row: %v", err)
	}
	if !strings.HasPrefix(strings.Join(strings.Fields(split), " "), "7 3 58 5/40 173000 58 running for 1m") {
		t.Errorf("split progress row %q", split)
	}
}
