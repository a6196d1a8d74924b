package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

var servingAddr = regexp.MustCompile(`msg=serving addr=(\S+)`)

// startServe runs `results serve` on a free port and returns its base URL,
// its log and its exit code channel.
func startServe(t *testing.T, ctx context.Context, dbURL string, args ...string) (string, *testenv.SyncBuffer, <-chan int) {
	t.Helper()
	stderr := &testenv.SyncBuffer{}
	exit := make(chan int, 1)
	args = append([]string{"serve", "--database-url=" + dbURL, "--http-addr=127.0.0.1:0"}, args...)
	go func() {
		exit <- run(ctx, args, io.Discard, stderr)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := servingAddr.FindStringSubmatch(stderr.String()); m != nil {
			return "http://" + m[1], stderr, exit
		}
		select {
		case code := <-exit:
			t.Fatalf("serve exited %d:\n%s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitExit waits up to 30 s for the command (named what) whose context was
// cancelled to exit, and fails t unless it exits 0.
func waitExit(t *testing.T, what string, exit <-chan int, stderr *testenv.SyncBuffer) {
	t.Helper()
	select {
	case code := <-exit:
		if code != 0 {
			t.Errorf("%s exited %d:\n%s", what, code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not stop after cancel", what)
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	return httpGetAuth(t, url, "")
}

// httpGetAuth is httpGet with an Authorization header (none when empty).
func httpGetAuth(t *testing.T, url, auth string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// `results serve` migrates a fresh schema, serves every endpoint, and stops
// with exit 0 when its context is cancelled.
func TestServe(t *testing.T) {
	isolate(t)
	u := storetest.SchemaURL(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, stderr, exit := startServe(t, ctx, u)

	waitReady(t, base, stderr)
	// Migrated by serve: the store can create a batch, and the API shows it.
	_, id := storeBatch(t, u, 5, 3, 5, -1)
	for _, tc := range []struct{ path, want string }{
		{"/healthz", "ok"},
		{"/api/batches", `"puzzle":"sliding:3x3"`},
		{fmt.Sprintf("/api/batches/%d", id), `"done":3`},
		{fmt.Sprintf("/api/batches/%d/distribution", id), `"counts":[{"length":3,"count":1},{"length":5,"count":1}]`},
		{"/api/puzzles/8/distribution", `"total":2`},
		{"/api/scrambles?puzzle=8&length=3", `"count":1`},
		{"/metrics", `tessera_solutions_total{puzzle="sliding:3x3",status="solved"} 2`},
		{fmt.Sprintf("/?batch=%d", id), `<div id="batch-histogram" class="histogram">`},
	} {
		if code, body := httpGet(t, base+tc.path); code != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d, want 200 with %s:\n%s", tc.path, code, tc.want, body)
		}
	}

	cancel()
	waitExit(t, "serve", exit, stderr)
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Errorf("still serving after shutdown")
	}
}

// While PostgreSQL is unreachable serve listens but answers 503 (it is
// still trying to migrate), except /healthz: the process is alive, and an
// orchestrator must not restart it for its database. A bad address fails
// at once.
func TestServeUnready(t *testing.T) {
	isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, stderr, exit := startServe(t, ctx, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	for _, path := range []string{"/readyz", "/api/batches", "/"} {
		if code, body := httpGet(t, base+path); code != 503 || !strings.Contains(body, "migrating") {
			t.Errorf("GET %s before migration: %d %q", path, code, body)
		}
	}
	if code, body := httpGet(t, base+"/healthz"); code != 200 {
		t.Errorf("GET /healthz before migration: %d %q, want 200", code, body)
	}
	cancel()
	select {
	case <-exit: // exit code 1, as `results run` stopped while waiting for PostgreSQL
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop after cancel:\n%s", stderr.String())
	}

	code, _, e := cli(t, context.Background(), "serve", "--database-url=postgres://127.0.0.1:1/x", "--http-addr=127.0.0.1:99999")
	if code != exitError || !strings.Contains(e, "serve:") {
		t.Errorf("bad address: exit %d %q", code, e)
	}
}

// With results.http_token set, every endpoint but the probes and the
// API's description wants the bearer token: the API, the status page and
// /metrics.
func TestServeToken(t *testing.T) {
	isolate(t)
	const token = "http-token-5b7e19"
	t.Setenv("TESSERA_RESULTS_HTTP_TOKEN", token)
	u := storetest.SchemaURL(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, stderr, exit := startServe(t, ctx, u)
	waitReady(t, base, stderr) // open, no token
	if code, body := httpGet(t, base+"/api/openapi.json"); code != 200 || !strings.Contains(body, `"openapi": "3.1`) {
		t.Errorf("GET /api/openapi.json without a token: %d %.80s, want 200 and the description", code, body)
	}
	for _, path := range []string{"/api/batches", "/metrics", "/", "/api/puzzles/8/distribution"} {
		if code, _ := httpGet(t, base+path); code != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: %d, want 401", path, code)
		}
		if code, _ := httpGetAuth(t, base+path, "Bearer wrong"); code != http.StatusUnauthorized {
			t.Errorf("GET %s with a wrong token: %d, want 401", path, code)
		}
		if code, body := httpGetAuth(t, base+path, "Bearer "+token); code != 200 {
			t.Errorf("GET %s with the token: %d %s", path, code, body)
		}
	}
	// A browser logs in with the token in a form and gets a session
	// cookie; neither the cookie, the redirect nor any page shows the token.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	req, _ := http.NewRequest("GET", base+"/?limit=5", nil)
	req.Header.Set("Accept", "text/html")
	resp, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/login" || !strings.Contains(string(page), `name="token"`) {
		t.Fatalf("page without a session: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	resp, err = browser.PostForm(base+"/login", url.Values{"token": {token}, "next": {"/?limit=5"}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/" || !strings.Contains(string(page), "Recent batches") {
		t.Errorf("after login: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	for _, c := range jar.Cookies(resp.Request.URL) {
		if strings.Contains(c.Value, token) {
			t.Errorf("cookie %s holds the token", c.Name)
		}
	}
	if strings.Contains(string(page), token) {
		t.Error("the page shows the token")
	}
	cancel()
	<-exit
	if !strings.Contains(stderr.String(), "auth=\"bearer token\"") || strings.Contains(stderr.String(), token) {
		t.Errorf("log should say a token is required, never show it:\n%s", stderr.String())
	}
}
