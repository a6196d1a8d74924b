package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// spec is httpapi.OpenAPI loaded and checked (OpenAPI 3.1 rules), with a
// router over its paths.
type spec struct {
	doc    *openapi3.T
	router routers.Router
}

var decoders sync.Once

func loadSpec(t *testing.T) spec {
	t.Helper()
	// JSON lines are checked line by line (checkNDJSON), HTML and protobuf
	// metrics only as strings; the validator needs only to read them.
	decoders.Do(func() {
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
		openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
		openapi3filter.RegisterBodyDecoder("application/vnd.google.protobuf", openapi3filter.PlainBodyDecoder)
	})
	doc, err := openapi3.NewLoader().LoadFromData(httpapi.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %s, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not a valid description: %v", err)
	}
	r, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return spec{doc, r}
}

// muxTemplate maps a ServeMux pattern to the method and path of its
// operation: "GET /{$}" is "/", and a subtree ("GET /api/") is its
// catch-all operation "/api/{path}".
func muxTemplate(pattern string) string {
	method, path, _ := strings.Cut(pattern, " ")
	switch {
	case strings.HasSuffix(path, "/{$}"):
		path = strings.TrimSuffix(path, "{$}")
	case path != "/" && strings.HasSuffix(path, "/"):
		path += "{path}"
	}
	return method + " " + path
}

// Every route the server serves is described, and every operation
// described is served: a route added without its description (or a
// description left behind by a removed route) fails here.
func TestOpenAPIRoutes(t *testing.T) {
	t.Parallel()
	sp := loadSpec(t)
	served := append(httpapi.New(nil, nil).Routes(), httpauth.NewGuard("", nil).Routes()...)
	for _, e := range sp.drift(served) {
		t.Error(e)
	}
	if len(served) < 15 {
		t.Errorf("only %d routes recorded: %v", len(served), served)
	}
}

// drift lists the routes served (ServeMux patterns) that the description
// lacks, and the operations it describes that are not served.
func (sp spec) drift(patterns []string) []string {
	var described, served, out []string
	for path, item := range sp.doc.Paths.Map() {
		for method := range item.Operations() {
			described = append(described, method+" "+path)
		}
	}
	for _, p := range patterns {
		served = append(served, muxTemplate(p))
	}
	slices.Sort(served)
	slices.Sort(described)
	for _, r := range served {
		if !slices.Contains(described, r) {
			out = append(out, r+" is served but not described in internal/httpapi/openapi.json")
		}
	}
	for _, r := range described {
		if !slices.Contains(served, r) {
			out = append(out, r+" is described in internal/httpapi/openapi.json but not served")
		}
	}
	return out
}

// The description's security agrees with the guard results serve puts in
// front of the API: an operation without a security requirement answers
// a request without credentials, every other one answers it 401.
func TestOpenAPISecurity(t *testing.T) {
	t.Parallel()
	sp := loadSpec(t)
	srv := httptest.NewServer(httpauth.NewGuard(reader, nil, httpapi.OpenPaths()...).Wrap(httpapi.New(storetest.NewStore(t), nil)))
	t.Cleanup(srv.Close)
	client := noRedirects(srv)
	fill := strings.NewReplacer("{id}", "1", "{puzzle}", "8", "{path}", "nope", "{action}", "pause")
	open := 0
	for path, item := range sp.doc.Paths.Map() {
		for method, op := range item.Operations() {
			req, err := http.NewRequest(method, srv.URL+fill.Replace(path), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			public := op.Security != nil && len(*op.Security) == 0
			if public {
				open++
			}
			// The guard's challenge, not the login form's own 401.
			if got := resp.Header.Get("WWW-Authenticate") != ""; got == public {
				t.Errorf("%s %s without credentials: %d, but the description says security %v", method, path, resp.StatusCode, op.Security)
			}
		}
	}
	if open != 6 { // the probes, the description, login (form and post) and logout
		t.Errorf("%d open operations, want 6", open)
	}
}

func noRedirects(srv *httptest.Server) *http.Client {
	c := *srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// check validates one real exchange against the description: the
// operation found for req must be op, the status must be described
// (IncludeResponseStatus), and the headers and body must match it.
func (sp spec) check(req *http.Request, op string, resp *http.Response, body []byte) error {
	// Routed as if on the described server: the test server's port differs.
	rreq := req.Clone(context.Background())
	rreq.URL, _ = url.Parse("http://127.0.0.1:8080" + req.URL.RequestURI())
	route, params, err := sp.router.FindRoute(rreq)
	if err != nil && strings.HasPrefix(req.URL.Path, "/api/") {
		// Deeper than the catch-all's one segment can say.
		item := sp.doc.Paths.Value("/api/{path}")
		route = &routers.Route{Spec: sp.doc, Path: "/api/{path}", PathItem: item, Method: req.Method, Operation: item.GetOperation(req.Method)}
		params, err = map[string]string{"path": strings.TrimPrefix(req.URL.Path, "/api/")}, nil
	}
	if err != nil {
		return fmt.Errorf("no operation for %s %s: %v", req.Method, req.URL.Path, err)
	}
	if route.Operation.OperationID != op {
		return fmt.Errorf("routed to %s, want %s", route.Operation.OperationID, op)
	}
	in := &openapi3filter.RequestValidationInput{Request: rreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return err
	}
	if resp.StatusCode < 300 || req.Method == http.MethodPost && resp.StatusCode == http.StatusSeeOther {
		// What the server takes (a form it answers with 303 too), the
		// description must allow.
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			return fmt.Errorf("request not allowed by the description: %v", err)
		}
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
		return sp.checkNDJSON(route.Path, body)
	}
	return nil
}

// checkNDJSON validates each line of a JSON-lines download against the
// schema its description names.
func (sp spec) checkNDJSON(path string, body []byte) error {
	name := map[string]string{"/api/batches/{id}/rows": "Solution", "/api/batches/{id}/dead": "DeadLetter"}[path]
	schema := sp.doc.Components.Schemas[name]
	if schema == nil {
		return fmt.Errorf("no line schema for %s", path)
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for n := 1; sc.Scan(); n++ {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		if err := schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse()); err != nil {
			return fmt.Errorf("line %d is not a %s: %v", n, name, err)
		}
	}
	return sc.Err()
}

// exchange is one request of TestOpenAPIResponses.
type exchange struct {
	srv    *httptest.Server
	op     string // operationId it must be routed to
	method string
	path   string
	token  string // bearer token ("": none)
	cookie *http.Cookie
	accept string
	header map[string]string // more request headers
	form   url.Values
	want   int
}

type splitsStub struct{ ok, failing int64 }

func (s splitsStub) Splits(_ context.Context, batch int64) ([]job.SplitRecord, error) {
	switch batch {
	case s.ok:
		return []job.SplitRecord{{Batch: batch, Seq: 3, Iteration: 2, Bound: 40, Total: 12, Count: 5, IterNodes: 1000, Started: time.Now()}}, nil
	case s.failing:
		return nil, errors.New("nats: no servers available for connection")
	}
	return nil, nil
}

type generatorStub struct{}

func (generatorStub) Generate(context.Context, puzzle.Spec, int, int) (int64, int, error) {
	return 99, 200, nil
}

// Real answers of every route, success and each error the server can be
// brought to cheaply, validated against the description; then every
// status the description promises must have been seen, but for those a
// test cannot cause cheaply (listed in unseen).
func TestOpenAPIResponses(t *testing.T) {
	t.Parallel()
	sp := loadSpec(t)
	f := newFixture(t) // batches a (rows), b (none), c (finished)
	st := f.st
	if _, err := st.AddDeadLetters(context.Background(), []store.DeadLetter{
		{BatchID: &f.a, Seq: new(int64(5)), JobID: "j", Source: "worker", Reason: "undecodable", Payload: []byte("{\"broken"), Key: "k1"},
		{BatchID: &f.a, Source: "ingest", Reason: "not UTF-8", Payload: []byte{0xff, 0xfe}, Key: "k2"},
	}); err != nil {
		t.Fatal(err)
	}
	guard := func(opts ...httpapi.Option) *httptest.Server {
		g := httpauth.NewGuard(reader, []httpauth.Writer{{Name: "a", Token: writerA}}, httpapi.OpenPaths()...)
		srv := httptest.NewServer(g.Wrap(httpapi.New(st, nil, opts...)))
		t.Cleanup(srv.Close)
		return srv
	}
	main := guard(httpapi.WithSplits(splitsStub{ok: f.a, failing: f.c}), httpapi.WithGenerator(generatorStub{}), httpapi.WithClientCap(2))
	open := httptest.NewServer(httpauth.NewGuard("", nil, httpapi.OpenPaths()...).Wrap(httpapi.New(st, nil)))
	t.Cleanup(open.Close)
	starting := guard(httpapi.WithStarting(func() error { return errors.New("starting: migrating the database schema") }))
	down := downServer(t)
	// Steering on a private NATS server with a registered worker, and a
	// server whose NATS does not answer.
	sf := newSteerFixture(t)
	natsDown := guard(httpapi.WithSteering(httpapi.Steering{Workers: func(context.Context) ([]queue.WorkerEntry, error) {
		return nil, errors.New("nats: no servers available for connection")
	}}))

	a, missing := fmt.Sprint(f.a), "/api/batches/999999"
	html := "text/html,application/xhtml+xml"
	cases := []exchange{
		{srv: main, op: "healthz", path: "/healthz", want: 200},
		{srv: main, op: "readyz", path: "/readyz", want: 200},
		{srv: starting, op: "readyz", path: "/readyz", want: 503},
		{srv: main, op: "openapi", path: "/api/openapi.json", want: 200},
		{srv: starting, op: "openapi", path: "/api/openapi.json", want: 200},

		{srv: main, op: "metrics", path: "/metrics", token: reader, want: 200},
		{srv: main, op: "metrics", path: "/metrics", token: reader, accept: "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", want: 200},
		{srv: main, op: "metrics", path: "/metrics", want: 401},
		{srv: main, op: "metrics", path: "/metrics", token: "not-a-token-of-this-server", want: 401},
		{srv: main, op: "metrics", path: "/metrics", accept: html, want: 303},
		{srv: starting, op: "metrics", path: "/metrics", token: reader, want: 503},

		{srv: main, op: "listBatches", path: "/api/batches", token: reader, want: 200},
		{srv: main, op: "listBatches", path: "/api/batches?limit=2&puzzle=8&state=running", token: writerA, want: 200},
		{srv: main, op: "listBatches", path: "/api/batches?limit=many", token: reader, want: 400},
		{srv: main, op: "listBatches", path: "/api/batches?state=asleep", token: reader, want: 400},
		{srv: main, op: "listBatches", path: "/api/batches", want: 401},
		{srv: main, op: "listBatches", path: "/api/batches", accept: html, want: 303},
		{srv: starting, op: "listBatches", path: "/api/batches", token: reader, want: 503},
		{srv: down, op: "listBatches", path: "/api/batches", want: 500},

		{srv: main, op: "getBatch", path: "/api/batches/" + a, token: reader, want: 200},
		{srv: main, op: "getBatch", path: fmt.Sprint("/api/batches/", f.b), token: reader, want: 200},
		{srv: main, op: "getBatch", path: fmt.Sprint("/api/batches/", f.c), token: reader, want: 200},
		{srv: main, op: "getBatch", path: "/api/batches/one", token: reader, want: 400},
		{srv: main, op: "getBatch", path: missing, token: reader, want: 404},
		{srv: main, op: "getBatch", path: missing, want: 401},
		{srv: main, op: "getBatch", path: missing, accept: html, want: 303},
		{srv: starting, op: "getBatch", path: missing, token: reader, want: 503},
		{srv: down, op: "getBatch", path: "/api/batches/1", want: 500},

		{srv: main, op: "getBatchDistribution", path: "/api/batches/" + a + "/distribution", token: reader, want: 200},
		{srv: main, op: "getBatchDistribution", path: fmt.Sprint("/api/batches/", f.b, "/distribution"), token: reader, want: 200},
		{srv: main, op: "getBatchDistribution", path: "/api/batches/x/distribution", token: reader, want: 400},
		{srv: main, op: "getBatchDistribution", path: missing + "/distribution", token: reader, want: 404},
		{srv: main, op: "getBatchDistribution", path: missing + "/distribution", want: 401},
		{srv: main, op: "getBatchDistribution", path: missing + "/distribution", accept: html, want: 303},
		{srv: starting, op: "getBatchDistribution", path: missing + "/distribution", token: reader, want: 503},
		{srv: down, op: "getBatchDistribution", path: "/api/batches/1/distribution", want: 500},

		{srv: main, op: "downloadRows", path: "/api/batches/" + a + "/rows?format=csv", token: reader, want: 200},
		{srv: main, op: "downloadRows", path: "/api/batches/" + a + "/rows?format=jsonl", token: reader, want: 200},
		{srv: main, op: "downloadRows", path: "/api/batches/" + a + "/rows?format=jsonl&status=solved,budget_exceeded", token: reader, want: 200},
		{srv: main, op: "downloadRows", path: "/api/batches/" + a + "/rows?format=xml", token: reader, want: 400},
		{srv: main, op: "downloadRows", path: "/api/batches/" + a + "/rows?format=csv&status=lost", token: reader, want: 400},
		{srv: main, op: "downloadRows", path: missing + "/rows?format=csv", token: reader, want: 404},
		{srv: main, op: "downloadRows", path: missing + "/rows?format=csv", want: 401},
		{srv: main, op: "downloadRows", path: missing + "/rows?format=csv", accept: html, want: 303},
		{srv: starting, op: "downloadRows", path: missing + "/rows?format=csv", token: reader, want: 503},
		{srv: down, op: "downloadRows", path: "/api/batches/1/rows?format=csv", want: 500},

		{srv: main, op: "downloadDead", path: "/api/batches/" + a + "/dead?format=csv", token: reader, want: 200},
		{srv: main, op: "downloadDead", path: "/api/batches/" + a + "/dead?format=jsonl", token: reader, want: 200},
		{srv: main, op: "downloadDead", path: "/api/batches/" + a + "/dead", token: reader, want: 400},
		{srv: main, op: "downloadDead", path: missing + "/dead?format=jsonl", token: reader, want: 404},
		{srv: main, op: "downloadDead", path: missing + "/dead?format=jsonl", want: 401},
		{srv: main, op: "downloadDead", path: missing + "/dead?format=jsonl", accept: html, want: 303},
		{srv: starting, op: "downloadDead", path: missing + "/dead?format=jsonl", token: reader, want: 503},
		{srv: down, op: "downloadDead", path: "/api/batches/1/dead?format=jsonl", want: 500},

		{srv: main, op: "getPuzzleDistribution", path: "/api/puzzles/8/distribution", token: reader, want: 200},
		{srv: main, op: "getPuzzleDistribution", path: "/api/puzzles/sliding:9x9x9/distribution", token: reader, want: 400},
		{srv: main, op: "getPuzzleDistribution", path: "/api/puzzles/8/distribution", want: 401},
		{srv: main, op: "getPuzzleDistribution", path: "/api/puzzles/8/distribution", accept: html, want: 303},
		{srv: starting, op: "getPuzzleDistribution", path: "/api/puzzles/8/distribution", token: reader, want: 503},
		{srv: down, op: "getPuzzleDistribution", path: "/api/puzzles/8/distribution", want: 500},

		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4&count=1", token: reader, want: 200},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4&limit=5&min_nodes=0&max_nodes=100", token: reader, want: 200},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=31&count=2", token: reader, want: 200},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4&count=1&cursor=" + a + ".0", token: reader, want: 200},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4&count=2&client=k-1", token: writerA, want: 200},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4&count=2&client=k-1", token: writerA, want: 409},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=31&count=2&generate=true", token: writerA, want: 200},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=31&count=2&generate=true", token: reader, want: 403},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4&client=k-1", token: reader, want: 403},
		{srv: main, op: "getScrambles", path: "/api/scrambles?length=4", token: reader, want: 400},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4&cursor=later", token: reader, want: 400},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4&client=a%20b", token: writerA, want: 400},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8", want: 401},
		{srv: main, op: "getScrambles", path: "/api/scrambles?puzzle=8", accept: html, want: 303},
		{srv: open, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=31&generate=true", want: 501},
		{srv: starting, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4", token: reader, want: 503},
		{srv: down, op: "getScrambles", path: "/api/scrambles?puzzle=8&length=4", want: 500},

		{srv: main, op: "getBatchThroughput", path: "/api/batches/" + a + "/throughput", token: reader, want: 200},
		{srv: main, op: "getBatchThroughput", path: "/api/batches/" + a + "/throughput?minutes=5", token: reader, want: 200},
		{srv: main, op: "getBatchThroughput", path: fmt.Sprint("/api/batches/", f.b, "/throughput"), token: reader, want: 200},
		{srv: main, op: "getBatchThroughput", path: "/api/batches/x/throughput", token: reader, want: 400},
		{srv: main, op: "getBatchThroughput", path: "/api/batches/" + a + "/throughput?minutes=0", token: reader, want: 400},
		{srv: main, op: "getBatchThroughput", path: missing + "/throughput", token: reader, want: 404},
		{srv: main, op: "getBatchThroughput", path: missing + "/throughput", want: 401},
		{srv: main, op: "getBatchThroughput", path: missing + "/throughput", accept: html, want: 303},
		{srv: starting, op: "getBatchThroughput", path: missing + "/throughput", token: reader, want: 503},
		{srv: down, op: "getBatchThroughput", path: "/api/batches/1/throughput", want: 500},

		{srv: sf.srv, op: "listWorkers", path: "/api/workers", token: reader, want: 200},
		{srv: main, op: "listWorkers", path: "/api/workers", token: reader, want: 503},     // no NATS configured
		{srv: natsDown, op: "listWorkers", path: "/api/workers", token: reader, want: 503}, // NATS does not answer
		{srv: starting, op: "listWorkers", path: "/api/workers", token: reader, want: 503}, // with Retry-After
		{srv: main, op: "listWorkers", path: "/api/workers", want: 401},
		{srv: main, op: "listWorkers", path: "/api/workers", accept: html, want: 303},

		{srv: main, op: "unknownEndpoint", path: "/api/nope", token: reader, want: 404},
		{srv: main, op: "unknownEndpoint", path: "/api/batches/1/nope/deeper", token: reader, want: 404},
		{srv: main, op: "unknownEndpoint", path: "/api/nope", want: 401},
		{srv: main, op: "unknownEndpoint", path: "/api/nope", accept: html, want: 303},
		{srv: starting, op: "unknownEndpoint", path: "/api/nope", token: reader, want: 503},

		{srv: main, op: "statusPage", path: "/", token: reader, want: 200},
		{srv: main, op: "statusPage", path: "/?batch=" + a + "&status=solved&rows_after=0&dead_after=0&limit=5&puzzle=8&state=running", token: reader, want: 200},
		{srv: main, op: "statusPage", path: "/?batch=first", token: reader, want: 400},
		{srv: main, op: "statusPage", path: "/?batch=999999", token: reader, want: 404},
		{srv: main, op: "statusPage", path: "/", want: 401},
		{srv: main, op: "statusPage", path: "/", accept: html, want: 303},
		{srv: starting, op: "statusPage", path: "/", token: reader, want: 503},
		{srv: down, op: "statusPage", path: "/", want: 500},

		{srv: main, op: "loginForm", path: "/login?next=/%3Fbatch%3D1", want: 200},
		{srv: open, op: "loginForm", path: "/login", want: 303},
		{srv: main, op: "login", method: "POST", path: "/login", form: url.Values{"token": {reader}, "next": {"/"}}, want: 303},
		{srv: main, op: "login", method: "POST", path: "/login", form: url.Values{"token": {"wrong"}}, want: 401},
		{srv: main, op: "login", method: "POST", path: "/login", form: url.Values{"token": {strings.Repeat("x", 9<<10)}}, want: 400},
		{srv: main, op: "logout", method: "POST", path: "/logout", want: 303},
	}
	// A session: the cookie a login sets reads the API and the page.
	session := login(t, main)
	cases = append(cases,
		exchange{srv: main, op: "listBatches", path: "/api/batches", cookie: session, want: 200},
		exchange{srv: main, op: "statusPage", path: "/", cookie: session, accept: html, want: 200},
		exchange{srv: main, op: "logout", method: "POST", path: "/logout", cookie: session, want: 303},
		exchange{srv: main, op: "listBatches", path: "/api/batches", cookie: session, want: 401},
	)
	// Steering: a writer's session with its CSRF token, writer tokens
	// without one; whatever the action did, 303 back to the batch.
	wc := browserClient(t, sf.srv, writerA)
	u, _ := url.Parse(sf.srv.URL)
	var ws *http.Cookie
	for _, c := range wc.Jar.Cookies(u) {
		if c.Name == httpauth.CookieName {
			ws = c
		}
	}
	if ws == nil {
		t.Fatal("a writer's login set no session cookie")
	}
	csrf := csrfOf(t, wc, sf.srv, sf.batch)
	steer := func(action string) string { return fmt.Sprintf("/batches/%d/%s", sf.batch, action) }
	post := func(srv *httptest.Server, path, token string, cookie *http.Cookie, form url.Values, want int) exchange {
		return exchange{srv: srv, op: "steerBatch", method: "POST", path: path, token: token, cookie: cookie, form: form, want: want}
	}
	crossSite := post(sf.srv, steer("pause"), "", ws, url.Values{"csrf": {csrf}}, 403)
	crossSite.header = map[string]string{"Sec-Fetch-Site": "cross-site"}
	cases = append(cases,
		post(sf.srv, steer("pause"), "", ws, url.Values{"csrf": {csrf}}, 303),
		post(sf.srv, steer("unpause"), writerA, nil, nil, 303),
		post(sf.srv, steer("requeue"), writerB, nil, url.Values{"status": {"budget_exceeded", "failed"}, "timeout": {"1m"}, "budget_nodes": {""}}, 303),
		post(sf.srv, steer("cancel"), writerA, nil, nil, 303),
		post(sf.srv, "/batches/999999/pause", writerA, nil, nil, 303), // the page says the batch is missing
		post(main, "/batches/"+a+"/pause", writerA, nil, nil, 303),    // the page says NATS is not configured
		post(sf.srv, "/batches/one/pause", writerA, nil, nil, 400),
		post(sf.srv, steer("pause"), reader, nil, nil, 403),
		post(sf.srv, steer("pause"), "", ws, nil, 403), // no CSRF token
		crossSite,
		post(sf.srv, steer("explode"), writerA, nil, nil, 404),
		post(sf.srv, steer("pause"), "", nil, nil, 401),
		post(starting, "/batches/1/pause", writerA, nil, nil, 503),
	)

	seen := map[string]bool{}
	for _, c := range cases {
		name := fmt.Sprintf("%s %s (%s)", cmpOr(c.method, "GET"), c.path, c.op)
		req, resp, body := c.do(t)
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d %s, want %d", name, resp.StatusCode, shorten(body), c.want)
			continue
		}
		if err := sp.check(req, c.op, resp, body); err != nil {
			t.Errorf("%s: %d %s: %v", name, resp.StatusCode, shorten(body), err)
			continue
		}
		seen[fmt.Sprintf("%s %d", c.op, resp.StatusCode)] = true
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
			checkCSVHeader(t, sp, c.op, body)
		}
	}

	// Described but not caused here, and why.
	unseen := map[string]string{
		"504":       "a query that outlasts queryTimeout (30 s)",
		"login 500": "crypto/rand failing",
	}
	var never []string
	for path, item := range sp.doc.Paths.Map() {
		for _, op := range item.Operations() {
			for code := range op.Responses.Map() {
				k := op.OperationID + " " + code
				if !seen[k] && unseen[code] == "" && unseen[k] == "" {
					never = append(never, k+" ("+path+")")
				}
			}
		}
	}
	slices.Sort(never)
	for _, k := range never {
		t.Errorf("described but never answered by this test: %s", k)
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func shorten(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

func (c exchange) do(t *testing.T) (*http.Request, *http.Response, []byte) {
	t.Helper()
	var body io.Reader
	if c.form != nil {
		body = strings.NewReader(c.form.Encode())
	}
	req, err := http.NewRequest(cmpOr(c.method, "GET"), c.srv.URL+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.cookie != nil {
		req.AddCookie(c.cookie)
	}
	if c.accept != "" {
		req.Header.Set("Accept", c.accept)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := noRedirects(c.srv).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if c.form != nil {
		// Sent again by the validator, which reads the body.
		req.Body = io.NopCloser(strings.NewReader(c.form.Encode()))
	}
	return req, resp, b
}

// login logs in to srv with the read token and returns the session cookie.
func login(t *testing.T, srv *httptest.Server) *http.Cookie {
	t.Helper()
	resp, err := noRedirects(srv).PostForm(srv.URL+"/login", url.Values{"token": {reader}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == httpauth.CookieName {
			return c
		}
	}
	t.Fatalf("login: %d, no session cookie", resp.StatusCode)
	return nil
}

// checkCSVHeader holds a CSV download's header row to the one its
// description names.
func checkCSVHeader(t *testing.T, sp spec, op string, body []byte) {
	t.Helper()
	head, err := csv.NewReader(bytes.NewReader(body)).Read()
	if err != nil {
		t.Errorf("%s: CSV: %v", op, err)
		return
	}
	path := map[string]string{"downloadRows": "/api/batches/{id}/rows", "downloadDead": "/api/batches/{id}/dead"}[op]
	desc := *sp.doc.Paths.Value(path).Get.Responses.Status(200).Value.Description
	if want := "`" + strings.Join(head, ",") + "`"; !strings.Contains(desc, want) {
		t.Errorf("%s: the CSV header is %s; the description says %q", op, want, desc)
	}
}

// The validation is not vacuous: a field the description does not name,
// a status it does not list and a wrong content type all fail it.
func TestOpenAPICatchesDrift(t *testing.T) {
	t.Parallel()
	sp := loadSpec(t)
	batch := `{"id":1,"puzzle":"sliding:3x3","mode":"optimal","total":2,"created_at":"2026-01-01T00:00:00Z","finished_at":null,` +
		`"solved":0,"budget_exceeded":0,"invalid":0,"unsolvable":0,"failed":0,"cancelled":0,"done":0,"enqueued":2,` +
		`"updated_at":null,"cancelled_at":null,"paused_at":null,"priority":"normal","progress":0%s}`
	for _, c := range []struct {
		name, path, ctype, body string
		code                    int
		ok                      bool
	}{
		{"as served", "/api/batches/1", "application/json", fmt.Sprintf(batch, ""), 200, true},
		{"with splits", "/api/batches/1", "application/json", fmt.Sprintf(batch, `,"splits_error":"no NATS"`), 200, true},
		{"a field not described", "/api/batches/1", "application/json", fmt.Sprintf(batch, `,"owner":"x"`), 200, false},
		{"a field missing", "/api/batches/1", "application/json", `{"id":1}`, 200, false},
		{"a status not described", "/api/batches/1", "application/json", `{"error":"x"}`, 418, false},
		{"text where JSON is described", "/api/batches/1", "text/plain", "not found", 404, false},
		{"an error with a field not described", "/api/batches/1", "application/json", `{"error":"x","code":7}`, 404, false},
	} {
		req := httptest.NewRequest("GET", c.path, nil)
		resp := &http.Response{StatusCode: c.code, Header: http.Header{"Content-Type": {c.ctype}}}
		err := sp.check(req, "getBatch", resp, []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s: validation error %v, want ok %v", c.name, err, c.ok)
		}
	}
	// A route registered without its description, and routes taken away
	// (the guard's are not New's, so they count as taken away too).
	const added = "POST /api/batches/{id}/cancel"
	removed := []string{"GET /healthz", "POST /batches/{id}/{action}"}
	routes := httpapi.New(nil, nil).Routes()
	kept := slices.DeleteFunc(slices.Clone(routes), func(p string) bool { return slices.Contains(removed, p) })
	if len(kept) != len(routes)-len(removed) || slices.Contains(routes, added) {
		t.Fatalf("routes %v: want %v among them and %s not", routes, removed, added)
	}
	got := sp.drift(append(kept, added))
	var gone []string
	for _, p := range append(removed, httpauth.NewGuard("", nil).Routes()...) {
		gone = append(gone, muxTemplate(p)+" is described in internal/httpapi/openapi.json but not served")
	}
	slices.Sort(gone)
	want := append([]string{added + " is served but not described in internal/httpapi/openapi.json"}, gone...)
	if !slices.Equal(got, want) {
		t.Errorf("drift:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
