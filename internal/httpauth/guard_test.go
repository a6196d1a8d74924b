package httpauth

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

const (
	readTok   = "read-token-0123456789"
	writerTok = "writer-token-abcdefghij"
	otherTok  = "other-writer-token-klmnop"
)

// echo answers "writer=NAME" (empty for readers).
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = w.Write([]byte("writer=" + WriterOf(r.Context())))
})

func do(t *testing.T, h http.Handler, method, path string, hdr map[string]string, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Bearer tokens: the read token reads, a writer token reads and is named
// in the context, anything else is 401; the probes are open.
func TestGuardTokens(t *testing.T) {
	h := NewGuard(readTok, []Writer{{"alpha", writerTok}, {"beta", otherTok}}, "/healthz").Wrap(echo)
	for _, c := range []struct {
		path, auth string
		code       int
		body       string
	}{
		{"/api/x", "", 401, ""},
		{"/api/x", "Bearer " + readTok, 200, "writer="},
		{"/api/x", "Bearer " + writerTok, 200, "writer=alpha"},
		{"/api/x", "Bearer " + otherTok, 200, "writer=beta"},
		{"/api/x", "Bearer " + readTok + "x", 401, ""},
		{"/healthz", "", 200, "writer="},
	} {
		rec := do(t, h, "GET", c.path, map[string]string{"Authorization": c.auth}, nil)
		if rec.Code != c.code || (c.body != "" && rec.Body.String() != c.body) {
			t.Errorf("%s with %q: %d %q, want %d %q", c.path, c.auth, rec.Code, rec.Body.String(), c.code, c.body)
		}
		for _, tok := range []string{readTok, writerTok, otherTok} {
			if strings.Contains(rec.Body.String(), tok) || strings.Contains(rec.Header().Get("Location"), tok) {
				t.Errorf("%s: the answer shows a token", c.path)
			}
		}
	}
	// Reading open (no read token): writers still named, a wrong bearer
	// still refused rather than silently read-only.
	open := NewGuard("", []Writer{{"alpha", writerTok}}).Wrap(echo)
	if rec := do(t, open, "GET", "/api/x", nil, nil); rec.Code != 200 || rec.Body.String() != "writer=" {
		t.Errorf("open read: %d %q", rec.Code, rec.Body.String())
	}
	if rec := do(t, open, "GET", "/api/x", map[string]string{"Authorization": "Bearer " + writerTok}, nil); rec.Body.String() != "writer=alpha" {
		t.Errorf("open read, writer: %q", rec.Body.String())
	}
	if rec := do(t, open, "GET", "/api/x", map[string]string{"Authorization": "Bearer nope"}, nil); rec.Code != 401 {
		t.Errorf("open read, wrong bearer: %d", rec.Code)
	}
}

// A browser: sent to the login form, logs in with the token, gets an
// HttpOnly SameSite=Strict cookie that is not the token, reads (never
// writes) with it, and logs out.
func TestGuardLogin(t *testing.T) {
	h := NewGuard(readTok, []Writer{{"alpha", writerTok}}, "/healthz").Wrap(echo)
	html := map[string]string{"Accept": "text/html,application/xhtml+xml"}
	rec := do(t, h, "GET", "/?batch=3", html, nil)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/login?next=%2F%3Fbatch%3D3" {
		t.Fatalf("page without a session: %d Location %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := do(t, h, "GET", "/api/batches", nil, nil); rec.Code != 401 || rec.Header().Get("WWW-Authenticate") == "" {
		t.Errorf("API without credentials: %d, want 401 with a challenge", rec.Code)
	}
	if rec := do(t, h, "GET", "/login?next=/%3Fbatch%3D3", html, nil); rec.Code != 200 || !strings.Contains(rec.Body.String(), `name="token"`) ||
		!strings.Contains(rec.Body.String(), `value="/?batch=3"`) {
		t.Fatalf("login form: %d\n%s", rec.Code, rec.Body.String())
	}
	bad := do(t, h, "POST", "/login", nil, url.Values{"token": {"wrong-" + readTok}, "next": {"/"}})
	if bad.Code != 401 || len(bad.Result().Cookies()) != 0 || strings.Contains(bad.Body.String(), readTok) {
		t.Errorf("wrong token: %d, cookies %v", bad.Code, bad.Result().Cookies())
	}
	for _, tok := range []string{readTok, writerTok} {
		ok := do(t, h, "POST", "/login", nil, url.Values{"token": {tok}, "next": {"/?batch=3"}})
		cs := ok.Result().Cookies()
		if ok.Code != http.StatusSeeOther || ok.Header().Get("Location") != "/?batch=3" || len(cs) != 1 {
			t.Fatalf("login: %d Location %q cookies %v", ok.Code, ok.Header().Get("Location"), cs)
		}
		c := cs[0]
		if c.Name != CookieName || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Value == "" || strings.Contains(c.Value, tok) || c.Path != "/" {
			t.Fatalf("cookie %+v", c)
		}
		cookie := map[string]string{"Cookie": c.Name + "=" + c.Value}
		if rec := do(t, h, "GET", "/api/batches", cookie, nil); rec.Code != 200 || rec.Body.String() != "writer=" {
			t.Errorf("with the session: %d %q (a session only reads)", rec.Code, rec.Body.String())
		}
		if rec := do(t, h, "GET", "/logout", cookie, nil); rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("GET /logout: %d, want 405 (a link must not log out)", rec.Code)
		}
		out := do(t, h, "POST", "/logout", cookie, nil)
		if out.Code != http.StatusSeeOther || len(out.Result().Cookies()) != 1 || out.Result().Cookies()[0].MaxAge >= 0 {
			t.Errorf("logout: %d cookies %v", out.Code, out.Result().Cookies())
		}
		if rec := do(t, h, "GET", "/api/batches", cookie, nil); rec.Code != 401 {
			t.Errorf("after logout the old cookie: %d, want 401", rec.Code)
		}
	}
	if rec := do(t, h, "GET", "/api/batches", map[string]string{"Cookie": CookieName + "=forged"}, nil); rec.Code != 401 {
		t.Errorf("forged cookie: %d", rec.Code)
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{"/?batch=3": "/?batch=3", "//evil.example": "/", "https://evil.example": "/",
		"/\\evil": "/", "": "/", "/login": "/", "/api/batches": "/api/batches"} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseWriters(t *testing.T) {
	ws, err := ParseWriters(" alpha=" + writerTok + ", beta=" + otherTok + ",")
	if err != nil || len(ws) != 2 || ws[0] != (Writer{"alpha", writerTok}) || ws[1].Name != "beta" {
		t.Fatalf("%+v %v", ws, err)
	}
	if ws, err := ParseWriters(""); err != nil || ws != nil {
		t.Errorf("empty: %+v %v", ws, err)
	}
	for _, bad := range []string{"alpha", "alpha=", "al pha=" + writerTok, "alpha=short-secret", "a=" + writerTok + ",a=" + otherTok,
		strings.Repeat("n", 33) + "=" + writerTok} {
		_, err := ParseWriters(bad)
		if err == nil {
			t.Errorf("%q accepted", bad)
			continue
		}
		for _, tok := range []string{writerTok, otherTok, "short-secret"} {
			if strings.Contains(err.Error(), tok) {
				t.Errorf("error %q shows a token", err)
			}
		}
	}
}

// A session knows who logged in: a writer's session names its writer to
// ActorOf (never to WriterOf, which grants bearer writes) and carries a
// CSRF token of its own, which CheckPost wants back; a bearer token needs
// none, and a reader's session names no actor. A writer can log in where
// reading is open.
func TestSessionActorAndCSRF(t *testing.T) {
	show := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := "ok"
		if r.Method == http.MethodPost {
			if e := CheckPost(w, r); e != nil {
				err = e.Error()
			}
		}
		_, _ = w.Write([]byte("actor=" + ActorOf(r.Context()) + " writer=" + WriterOf(r.Context()) + " csrf=" + CSRFOf(r.Context()) + " check=" + err))
	})
	for _, read := range []string{readTok, ""} {
		h := NewGuard(read, []Writer{{"w1", writerTok}}).Wrap(show)
		login := func(tok string) string {
			rec := do(t, h, "POST", LoginPath, nil, url.Values{"token": {tok}})
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("read %q: login: %d", read, rec.Code)
			}
			return strings.SplitN(rec.Header().Get("Set-Cookie"), ";", 2)[0]
		}
		w := login(writerTok)
		body := do(t, h, "GET", "/", map[string]string{"Cookie": w}, nil).Body.String()
		csrf := strings.TrimSuffix(strings.SplitN(body, "csrf=", 2)[1], " check=ok")
		if !strings.HasPrefix(body, "actor=w1 writer= csrf=") || len(csrf) < 32 {
			t.Errorf("read %q: writer's session: %q", read, body)
		}
		if got := do(t, h, "POST", "/x", map[string]string{"Cookie": w}, url.Values{CSRFField: {csrf}}).Body.String(); !strings.HasSuffix(got, "check=ok") {
			t.Errorf("read %q: the session's own token: %q", read, got)
		}
		if got := do(t, h, "POST", "/x", map[string]string{"Cookie": w}, url.Values{CSRFField: {"x" + csrf[1:]}}).Body.String(); !strings.HasSuffix(got, "check="+ErrCSRF.Error()) {
			t.Errorf("read %q: a wrong token: %q", read, got)
		}
		if got := do(t, h, "POST", "/x", map[string]string{"Cookie": w, "Sec-Fetch-Site": "cross-site"}, url.Values{CSRFField: {csrf}}).Body.String(); !strings.Contains(got, ErrCrossOrigin.Error()) {
			t.Errorf("read %q: cross-site: %q", read, got)
		}
		if got := do(t, h, "POST", "/x", map[string]string{"Authorization": "Bearer " + writerTok}, url.Values{}).Body.String(); got != "actor=w1 writer=w1 csrf= check=ok" {
			t.Errorf("read %q: bearer writer: %q", read, got)
		}
		if read != "" {
			r := login(readTok)
			if got := do(t, h, "GET", "/", map[string]string{"Cookie": r}, nil).Body.String(); !strings.HasPrefix(got, "actor= writer= csrf=") || len(got) < len("actor= writer= csrf= check=ok")+32 {
				t.Errorf("reader's session: %q", got)
			}
		}
	}
}
