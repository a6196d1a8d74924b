package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/steer"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// steerFixture is a server with steering on a private NATS server: the
// guard of results serve (a read token, writers a and b), one running
// batch of the 8-puzzle with 4 of 6 rows stored (two over budget), one
// registered worker, and the server's log.
type steerFixture struct {
	st    *store.Store
	js    jetstream.JetStream
	srv   *httptest.Server
	batch int64
	log   *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newSteerFixture(t *testing.T, opts ...httpapi.Option) steerFixture {
	t.Helper()
	ctx := ctxT(t)
	st := storetest.NewStore(t)
	_, nc := natstest.Server(t)
	conn, err := cmdkit.Adopt(nc, config.NATS{})
	if err != nil {
		t.Fatal(err)
	}
	conn.Queue = queue.DefaultConfig()
	if err := conn.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	f := steerFixture{st: st, js: conn.JS, log: &syncBuffer{}}
	if f.batch, err = st.CreateBatch(ctx, "8", "optimal", 6); err != nil {
		t.Fatal(err)
	}
	if err := st.SetEnqueued(ctx, f.batch, 6); err != nil {
		t.Fatal(err)
	}
	if _, err := st.InsertResults(ctx, []job.Results{results("sliding:3x3", f.batch, 0, 2, -1, 4, -1)}); err != nil {
		t.Fatal(err)
	}
	reg, err := queue.Register(ctx, conn.JS, conn.Queue, "solverd.h1.42.x")
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now().Add(-time.Hour)
	if err := reg.Put(ctx, queue.WorkerEntry{Key: "solverd.h1.42.x", Role: "solverd", Host: "h1", PID: 42, Version: "v9.9", Started: started, Updated: time.Now(),
		Lanes: []string{"quick", "heavy"}, Workers: 3, QuickWorkers: 1, TableSets: map[string]string{"sliding:4x4 optimal": "15-pdb-78"},
		Jobs:           []queue.JobInFlight{{Batch: f.batch, FirstSeq: 4, States: 2, Puzzle: "sliding:3x3", Lane: "heavy", Started: time.Now().Add(-time.Minute), Nodes: 12345}},
		NodesPerSecond: 98765, LastError: "table warm-up slow"}); err != nil {
		t.Fatal(err)
	}
	bus := steer.Adopt(conn)
	log := slog.New(slog.NewTextHandler(f.log, nil))
	g := httpauth.NewGuard(reader, []httpauth.Writer{{Name: "a", Token: writerA}, {Name: "b", Token: writerB}})
	f.srv = httptest.NewServer(g.Wrap(httpapi.New(st, log, append(opts, httpapi.WithSteering(httpapi.Steering{Dial: bus.Dial, Workers: bus.Workers}))...)))
	t.Cleanup(f.srv.Close)
	return f
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// browserClient is a client with a cookie jar that does not follow
// redirects, logged in with token.
func browserClient(t *testing.T, srv *httptest.Server, token string) *http.Client {
	t.Helper()
	c := &http.Client{Jar: newJar(t), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(srv.URL+httpauth.LoginPath, url.Values{"token": {token}, "next": {"/"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	return c
}

// page fetches path with c and returns the status and body.
func page(t *testing.T, c *http.Client, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := c.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]*)"`)

// post submits a steering form with c; header adds request headers. It
// returns the status and the Location.
func post(t *testing.T, c *http.Client, srv *httptest.Server, path string, form url.Values, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// inBucket reports whether batch has a key in the NATS bucket.
func inBucket(t *testing.T, js jetstream.JetStream, bucket string, batch int64) bool {
	t.Helper()
	kv, err := js.KeyValue(ctxT(t), bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return false
	}
	if err != nil {
		t.Fatalf("bucket %s: %v", bucket, err)
	}
	_, err = kv.Get(ctxT(t), strconv.FormatInt(batch, 10))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// Steering from the page: only a writer, with the session's CSRF token and
// from the page's own origin, changes a batch; the change is marked in
// PostgreSQL and told through NATS, said on the next page, and logged by
// the writer's name, never its token.
func TestSteerAccess(t *testing.T) {
	t.Parallel()
	f := newSteerFixture(t)
	ctx := ctxT(t)
	path := fmt.Sprintf("/batches/%d/pause", f.batch)
	same := map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": f.srv.URL}
	paused := func() bool {
		b, err := f.st.BatchProgress(ctx, f.batch)
		if err != nil {
			t.Fatal(err)
		}
		return b.PausedAt != nil
	}

	// A reader's session sees no buttons and is refused, with or without
	// a token in the form; so is a reader's bearer token.
	rd := browserClient(t, f.srv, reader)
	code, body := page(t, rd, f.srv, fmt.Sprintf("/?batch=%d", f.batch))
	if code != 200 || strings.Contains(body, `id="steer-pause"`) || !strings.Contains(body, `id="steer-reader"`) || csrfField.MatchString(body) {
		t.Errorf("reader's page: %d, pause button %v", code, strings.Contains(body, `id="steer-pause"`))
	}
	if code, _ := post(t, rd, f.srv, path, url.Values{"csrf": {"x"}}, same); code != http.StatusForbidden {
		t.Errorf("reader's session: %d, want 403", code)
	}
	if code, _ := post(t, http.DefaultClient, f.srv, path, nil, map[string]string{"Authorization": "Bearer " + reader}); code != http.StatusForbidden {
		t.Errorf("reader's token: %d, want 403", code)
	}
	if code, _ := post(t, http.DefaultClient, f.srv, path, nil, nil); code != http.StatusUnauthorized {
		t.Errorf("no credentials: %d, want 401", code)
	}

	// A writer's session: the page carries its CSRF token.
	wr := browserClient(t, f.srv, writerA)
	_, body = page(t, wr, f.srv, fmt.Sprintf("/?batch=%d", f.batch))
	m := csrfField.FindStringSubmatch(body)
	if m == nil || len(m[1]) < 32 || !strings.Contains(body, `id="steer-pause"`) || !strings.Contains(body, `id="steer-cancel"`) || !strings.Contains(body, `id="steer-requeue"`) {
		t.Fatalf("writer's page lacks its buttons or CSRF token:\n%s", body)
	}
	csrf := m[1]
	for name, c := range map[string]struct {
		form   url.Values
		header map[string]string
	}{
		"no CSRF token":     {nil, same},
		"wrong CSRF token":  {url.Values{"csrf": {csrf[:len(csrf)-1] + "x"}}, same},
		"cross-site":        {url.Values{"csrf": {csrf}}, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"same-site":         {url.Values{"csrf": {csrf}}, map[string]string{"Sec-Fetch-Site": "same-site"}},
		"another origin":    {url.Values{"csrf": {csrf}}, map[string]string{"Origin": "http://evil.example"}},
		"another session's": {url.Values{"csrf": {csrfOf(t, browserClient(t, f.srv, writerA), f.srv, f.batch)}}, same},
	} {
		if code, _ := post(t, wr, f.srv, path, c.form, c.header); code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, code)
		}
	}
	if paused() || inBucket(t, f.js, queue.PausedBucket, f.batch) {
		t.Fatal("a refused request paused the batch")
	}

	// The right token: paused in PostgreSQL and NATS, back to the batch
	// with what happened.
	code, loc := post(t, wr, f.srv, path, url.Values{"csrf": {csrf}}, same)
	if code != http.StatusSeeOther || loc != fmt.Sprintf("/?batch=%d", f.batch) {
		t.Fatalf("pause: %d %q", code, loc)
	}
	if !paused() || !inBucket(t, f.js, queue.PausedBucket, f.batch) {
		t.Errorf("after pause: paused in PostgreSQL %v, in NATS %v", paused(), inBucket(t, f.js, queue.PausedBucket, f.batch))
	}
	_, body = page(t, wr, f.srv, loc)
	if want := fmt.Sprintf(`<p class="flash" id="flash">batch %d paused</p>`, f.batch); !strings.Contains(body, want) || !strings.Contains(body, `id="steer-unpause"`) || strings.Contains(body, `id="steer-pause"`) {
		t.Errorf("page after pause lacks %q or the unpause button", want)
	}
	if _, body = page(t, wr, f.srv, loc); strings.Contains(body, `id="flash"`) {
		t.Error("the flash shows twice")
	}

	// Cancel: marked, told, the pause taken off.
	if code, _ := post(t, wr, f.srv, fmt.Sprintf("/batches/%d/cancel", f.batch), url.Values{"csrf": {csrf}}, same); code != http.StatusSeeOther {
		t.Fatalf("cancel: %d", code)
	}
	b, err := f.st.BatchProgress(ctx, f.batch)
	if err != nil {
		t.Fatal(err)
	}
	if b.CancelledAt == nil || b.PausedAt != nil || !inBucket(t, f.js, queue.CancelledBucket, f.batch) || inBucket(t, f.js, queue.PausedBucket, f.batch) {
		t.Errorf("after cancel: %+v, cancelled in NATS %v, paused in NATS %v", b, inBucket(t, f.js, queue.CancelledBucket, f.batch), inBucket(t, f.js, queue.PausedBucket, f.batch))
	}

	// A writer's bearer token needs no CSRF token (a browser never sends
	// one on its own): requeue the over-budget rows and the cancel.
	form := url.Values{"status": {"budget_exceeded", "cancelled"}, "timeout": {"1m"}}
	noFollow := &http.Client{Jar: newJar(t), CheckRedirect: wr.CheckRedirect}
	if code, _ := post(t, noFollow, f.srv, fmt.Sprintf("/batches/%d/requeue", f.batch), form, map[string]string{"Authorization": "Bearer " + writerB}); code != http.StatusSeeOther {
		t.Fatalf("requeue: %d", code)
	}
	u, _ := url.Parse(f.srv.URL)
	if cs := noFollow.Jar.Cookies(u); len(cs) != 1 || !strings.Contains(flashText(t, cs[0].Value), "requeued 2 states of batch") {
		t.Errorf("requeue: flash %v", cs)
	}
	if b, err = f.st.BatchProgress(ctx, f.batch); err != nil || b.CancelledAt != nil || inBucket(t, f.js, queue.CancelledBucket, f.batch) {
		t.Errorf("after requeue of cancelled: %+v %v", b, err)
	}
	s, err := f.js.Stream(ctx, queue.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	if si, err := s.Info(ctx); err != nil || si.State.Msgs != 2 {
		t.Errorf("jobs stream after requeue of 2 states (seqs 1 and 3): %+v %v, want 2 messages: they are not consecutive", si.State, err)
	}

	logs := f.log.String()
	for _, want := range []string{"action=pause batch=" + strconv.FormatInt(f.batch, 10) + " by=a", "action=cancel", "action=requeue", "by=b"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	for _, secret := range []string{writerA, writerB, reader, csrf} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log shows a secret:\n%s", logs)
		}
	}
}

func csrfOf(t *testing.T, c *http.Client, srv *httptest.Server, batch int64) string {
	t.Helper()
	_, body := page(t, c, srv, fmt.Sprintf("/?batch=%d", batch))
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no CSRF token on the page")
	}
	return m[1]
}

// The workers of the registry in /api/workers and on the page, a batch's
// rows per minute, and what the page says without NATS.
func TestWorkersAndThroughput(t *testing.T) {
	t.Parallel()
	f := newSteerFixture(t)
	var ws httpapi.Workers
	getAs(t, f.srv, reader, "/api/workers", 200, &ws)
	if len(ws.Workers) != 1 || ws.Workers[0].Host != "h1" || ws.Workers[0].PID != 42 || len(ws.Workers[0].Jobs) != 1 || ws.Workers[0].Jobs[0].Nodes != 12345 {
		t.Errorf("/api/workers: %+v", ws)
	}
	rd := browserClient(t, f.srv, reader)
	_, body := page(t, rd, f.srv, "/")
	row := regexp.MustCompile(`(?s)<tr data-key="solverd.h1.42.x">.*?</tr>`).FindString(body)
	for _, want := range []string{"<td>h1</td>", ">42<", "v9.9", "quick, heavy", "sliding:4x4 optimal: 15-pdb-78", "98765",
		fmt.Sprintf(`batch <a href="/?batch=%d">%d</a> #5 (+2), sliding:3x3, heavy, running 1m0s, 12345 nodes`, f.batch, f.batch), "table warm-up slow"} {
		if !strings.Contains(row, want) {
			t.Errorf("workers row lacks %q:\n%s", want, row)
		}
	}

	var tp httpapi.Throughput
	getAs(t, f.srv, reader, fmt.Sprintf("/api/batches/%d/throughput?minutes=3", f.batch), 200, &tp)
	if tp.BatchID != f.batch || len(tp.Minutes) != 3 || tp.Minutes[2].Rows != 4 || tp.Minutes[0].Rows != 0 {
		t.Errorf("throughput: %+v", tp)
	}
	getAs(t, f.srv, reader, "/api/batches/999999/throughput", 404, &apiError{})
	getAs(t, f.srv, reader, fmt.Sprintf("/api/batches/%d/throughput?minutes=x", f.batch), 400, &apiError{})
	_, body = page(t, rd, f.srv, fmt.Sprintf("/?batch=%d", f.batch))
	if !strings.Contains(body, `<svg class="sparkline"`) || !strings.Contains(body, `data-value="4"`) {
		t.Errorf("batch page lacks the sparkline of 4 rows in a minute")
	}

	// Without NATS: said on the page, 503 from the API, and a writer's
	// action changes nothing.
	st := storetest.NewStore(t)
	id, err := st.CreateBatch(ctxT(t), "8", "optimal", 2)
	if err != nil {
		t.Fatal(err)
	}
	srv := writerServer(t, st)
	getAs(t, srv, reader, "/api/workers", 503, &apiError{})
	c := browserClient(t, srv, writerA)
	_, body = page(t, c, srv, fmt.Sprintf("/?batch=%d", id))
	if !strings.Contains(body, `id="workers-no-nats"`) || !strings.Contains(body, `id="steer-no-nats"`) || strings.Contains(body, `id="steer-pause"`) {
		t.Errorf("page without NATS does not say so")
	}
	// No button to press: a writer's token posts, and the flash it gets
	// back says why nothing happened.
	bearer := &http.Client{Jar: newJar(t), CheckRedirect: c.CheckRedirect}
	if code, _ := post(t, bearer, srv, fmt.Sprintf("/batches/%d/pause", id), nil, map[string]string{"Authorization": "Bearer " + writerA}); code != http.StatusSeeOther {
		t.Errorf("pause without NATS: %d", code)
	}
	u, _ := url.Parse(srv.URL)
	if cs := bearer.Jar.Cookies(u); len(cs) != 1 || !strings.Contains(flashText(t, cs[0].Value), "NATS is not configured") {
		t.Errorf("pause without NATS: flash cookies %v", cs)
	}
	if b, err := st.BatchProgress(ctxT(t), id); err != nil || b.PausedAt != nil {
		t.Errorf("pause without NATS changed the batch: %+v %v", b, err)
	}
}

func newJar(t *testing.T) http.CookieJar {
	t.Helper()
	j, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func flashText(t *testing.T, v string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
