package httpauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Writer is a named token that may write: results serve records the states
// it served to a client key (served-state tracking) only for requests
// carrying a writer token, and keeps each writer's keys apart by Name.
type Writer struct {
	Name  string
	Token string
}

// MaxWriterName bounds a writer's name (it prefixes stored client keys).
const MaxWriterName = 32

// ParseWriters reads "NAME=TOKEN[,NAME=TOKEN...]" (results.http_writer_tokens).
// Its errors name the entry by position and name, never by its token.
func ParseWriters(spec string) ([]Writer, error) {
	var out []Writer
	seen := map[string]bool{}
	for i, e := range strings.Split(spec, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		name, tok, ok := strings.Cut(e, "=")
		name, tok = strings.TrimSpace(name), strings.TrimSpace(tok)
		switch {
		case !ok || tok == "":
			return nil, fmt.Errorf("entry %d: want NAME=TOKEN", i+1)
		case !validName(name):
			return nil, fmt.Errorf("entry %d: name %q: want 1 to %d letters, digits, '-' or '_'", i+1, name, MaxWriterName)
		case len(tok) < 16:
			return nil, fmt.Errorf("entry %d (%s): token shorter than 16 characters", i+1, name)
		case seen[name]:
			return nil, fmt.Errorf("entry %d: name %q given twice", i+1, name)
		}
		seen[name] = true
		out = append(out, Writer{Name: name, Token: tok})
	}
	return out, nil
}

func validName(s string) bool {
	if s == "" || len(s) > MaxWriterName {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

type writerKey struct{}

// WriterOf is the name of the writer token the request was authenticated
// with, or "" (a reader, a browser session, or no authentication at all).
func WriterOf(ctx context.Context) string {
	s, _ := ctx.Value(writerKey{}).(string)
	return s
}

// Session cookie and pages of the login (results serve's status page in a
// browser, which cannot send a bearer header).
const (
	CookieName = "tessera_session"
	LoginPath  = "/login"
	LogoutPath = "/logout"
	// SessionTTL is how long a login lasts; sessions live in the server's
	// memory only, so a restart logs everyone out.
	SessionTTL = 12 * time.Hour
	// maxSessions bounds that memory: the oldest session goes first.
	maxSessions = 10_000
)

// Guard authenticates the requests of results serve:
//
//   - "Authorization: Bearer T" with the read token or a writer token (a
//     writer's name is then in the request's context, WriterOf);
//   - or the session cookie a login set (POST /login with the read token
//     or a writer token in a form field): HttpOnly, SameSite=Strict,
//     a random id, never the token. A reader's session reads; a writer's
//     may also steer from the status page (ActorOf names the writer),
//     each form carrying the session's CSRF token (CSRFOf, CheckPost);
//     WriterOf stays "" for every session;
//   - or nothing, when no read token is set (reading is open).
//
// The open paths (the probes) pass without any. A browser asking for a
// page without credentials is sent to the login form; anything else gets
// 401 with a Bearer challenge. Tokens are compared in constant time and
// never written to a response or a log.
type Guard struct {
	read    *[32]byte // nil: reading needs no token
	writers []writerSum
	open    []string

	mu       sync.Mutex
	sessions map[string]session // by id
}

// session is a login: when it ends, the writer who logged in ("" a
// reader) and the token its forms carry against cross-site requests.
type session struct {
	exp    time.Time
	writer string
	csrf   string
}

type writerSum struct {
	name string
	sum  [32]byte
}

// NewGuard returns a guard with read token read ("" : reading is open)
// and the given writers.
func NewGuard(read string, writers []Writer, open ...string) *Guard {
	g := &Guard{open: open, sessions: map[string]session{}}
	if read != "" {
		s := sha256.Sum256([]byte(read))
		g.read = &s
	}
	for _, w := range writers {
		g.writers = append(g.writers, writerSum{w.Name, sha256.Sum256([]byte(w.Token))})
	}
	return g
}

// match reports whether tok is the read token, or which writer's it is.
// Every configured token is compared, so the time taken does not say
// which one matched.
func (g *Guard) match(tok string) (read bool, writer string) {
	sum := sha256.Sum256([]byte(tok))
	if g.read != nil && subtle.ConstantTimeCompare(sum[:], g.read[:]) == 1 {
		read = true
	}
	for _, w := range g.writers {
		if subtle.ConstantTimeCompare(sum[:], w.sum[:]) == 1 {
			writer = w.name
		}
	}
	return read, writer
}

// Routes are the routes Wrap serves itself, as ServeMux patterns (the
// login and logout switch in Wrap, login and logout answer 405 to any
// other method).
func (g *Guard) Routes() []string {
	return []string{"GET " + LoginPath, "POST " + LoginPath, "POST " + LogoutPath}
}

// Wrap guards h and serves the login and logout pages.
func (g *Guard) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range g.open {
			if r.URL.Path == p {
				h.ServeHTTP(w, r)
				return
			}
		}
		switch r.URL.Path {
		case LoginPath:
			g.login(w, r)
			return
		case LogoutPath:
			g.logout(w, r)
			return
		}
		if tok, ok := bearerToken(r); ok {
			read, writer := g.match(tok)
			switch {
			case writer != "":
				h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), writerKey{}, writer)))
			case read:
				h.ServeHTTP(w, r)
			default:
				challenge(w)
			}
			return
		}
		if s, ok := g.session(r); ok {
			h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)))
			return
		}
		if g.read == nil {
			h.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html") {
			http.Redirect(w, r, LoginPath+"?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		challenge(w)
	})
}

func challenge(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="tessera"`)
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "unauthorized: send Authorization: Bearer <token>, or log in at "+LoginPath, http.StatusUnauthorized)
}

// session is the live session r's cookie names, if any.
func (g *Guard) session(r *http.Request) (session, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return session{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.sessions[c.Value]
	if ok && time.Now().After(s.exp) {
		delete(g.sessions, c.Value)
		ok = false
	}
	return s, ok
}

func randomID() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// newSession starts a session of writer ("" a reader) and returns its id.
func (g *Guard) newSession(writer string) (string, error) {
	id, err := randomID()
	if err != nil {
		return "", err
	}
	csrf, err := randomID()
	if err != nil {
		return "", err
	}
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.sessions) >= maxSessions {
		var oldest string
		var at time.Time
		for k, s := range g.sessions {
			exp := s.exp
			if exp.Before(now) {
				delete(g.sessions, k)
				continue
			}
			if oldest == "" || exp.Before(at) {
				oldest, at = k, exp
			}
		}
		if len(g.sessions) >= maxSessions {
			delete(g.sessions, oldest)
		}
	}
	g.sessions[id] = session{exp: now.Add(SessionTTL), writer: writer, csrf: csrf}
	return id, nil
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tessera: log in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px system-ui,sans-serif;max-width:28em;margin:4em auto;padding:0 1em}
input{font:inherit;padding:.3em;width:100%;box-sizing:border-box;margin:.4em 0}
button{font:inherit;padding:.3em 1em}.err{color:#b00020}</style></head>
<body><h1>tessera results</h1>
{{if .Failed}}<p class="err" id="login-error">That token is not right.</p>{{end}}
<form method="post" action="/login" id="login">
<label for="token">Token (results.http_token, or a writer's token to steer batches)</label>
<input type="password" id="token" name="token" autocomplete="current-password" autofocus required>
<input type="hidden" name="next" value="{{.Next}}">
<button type="submit">Log in</button>
</form></body></html>
`))

// safeNext keeps a redirect after login on this server: a path, not
// another site ("//evil" or "https://...").
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.HasPrefix(next, LoginPath) {
		return "/"
	}
	return next
}

func (g *Guard) login(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if g.read == nil && len(g.writers) == 0 {
		http.Redirect(w, r, "/", http.StatusSeeOther) // nothing to log in to
		return
	}
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = loginPage.Execute(w, struct {
			Failed bool
			Next   string
		}{false, safeNext(r.URL.Query().Get("next"))})
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		next := safeNext(r.PostForm.Get("next"))
		read, writer := g.match(r.PostForm.Get("token"))
		if !read && writer == "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			_ = loginPage.Execute(w, struct {
				Failed bool
				Next   string
			}{true, next})
			return
		}
		id, err := g.newSession(writer)
		if err != nil {
			http.Error(w, "cannot make a session", http.StatusInternalServerError)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: id, Path: "/", MaxAge: int(SessionTTL / time.Second),
			HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		http.Redirect(w, r, next, http.StatusSeeOther)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// logout ends the session (POST only: a link or an image cannot log
// someone out) and clears the cookie.
func (g *Guard) logout(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed: POST "+LogoutPath, http.StatusMethodNotAllowed)
		return
	}
	if c, err := r.Cookie(CookieName); err == nil {
		g.mu.Lock()
		delete(g.sessions, c.Value)
		g.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, LoginPath, http.StatusSeeOther)
}

// ErrNoWriter is what callers answer when an action needs a writer token.
var ErrNoWriter = errors.New("needs a writer token (results.http_writer_tokens)")

type sessionKey struct{}

// ActorOf is the name of the writer behind the request: its writer token,
// or the session a writer's login started; "" for a reader, a reader's
// session, or no authentication at all. It is who steering actions are
// logged as.
func ActorOf(ctx context.Context) string {
	if w := WriterOf(ctx); w != "" {
		return w
	}
	s, _ := ctx.Value(sessionKey{}).(session)
	return s.writer
}

// CSRFOf is the token the request's session puts in its forms (the
// hidden field CSRFField), "" when the request has no session.
func CSRFOf(ctx context.Context) string {
	s, _ := ctx.Value(sessionKey{}).(session)
	return s.csrf
}

// CSRFField is the form field that carries a session's CSRF token.
const CSRFField = "csrf"

// Errors of CheckPost.
var (
	ErrCrossOrigin = errors.New("cross-origin request refused")
	ErrCSRF        = errors.New("missing or wrong CSRF token: reload the page and try again")
)

// crossOrigin rejects unsafe requests a browser sends from another origin
// (Sec-Fetch-Site, else Origin against Host).
var crossOrigin = http.NewCrossOriginProtection()

// CheckPost guards a form POST that changes something: it refuses a
// request a browser sent from another origin (ErrCrossOrigin) and, for a
// request authenticated by a session cookie, which a browser sends on its
// own, one whose form field CSRFField is not the session's token
// (ErrCSRF, compared in constant time). A bearer token is never sent on
// its own, so a request carrying one needs no CSRF token. It parses the
// form (at most 8 KiB).
func CheckPost(w http.ResponseWriter, r *http.Request) error {
	if err := crossOrigin.Check(r); err != nil {
		return fmt.Errorf("%w: %w", ErrCrossOrigin, err)
	}
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	if err := r.ParseForm(); err != nil {
		return fmt.Errorf("bad form: %w", err)
	}
	want := CSRFOf(r.Context())
	if want == "" {
		return nil
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get(CSRFField)), []byte(want)) != 1 {
		return ErrCSRF
	}
	return nil
}
