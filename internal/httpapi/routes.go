package httpapi

import (
	_ "embed"
	"net/http"
	"slices"
)

// OpenAPI is the description of the API (OpenAPI 3.1), served at
// SpecPath. TestOpenAPIRoutes holds its paths to the routes New registers
// and the guard serves (Handler.Routes, httpauth.Guard.Routes), and
// TestOpenAPIResponses real answers of every route to its schemas.
//
//go:embed openapi.json
var OpenAPI []byte

// SpecPath is where the description is served. It is open (OpenPaths):
// it is the API's shape, no data, and a client generator fetches it before
// it holds a token.
const SpecPath = "/api/openapi.json"

// OpenPaths are the paths a guard in front of New lets through without
// credentials (httpauth.NewGuard's open paths): the probes, which an
// orchestrator calls without a secret, and the description.
func OpenPaths() []string { return []string{"/healthz", "/readyz", SpecPath} }

// Handler is the handler New returns; Routes says what it serves.
type Handler struct {
	http.Handler
	routes []string
}

// Routes are the ServeMux patterns registered, e.g. "GET /api/batches/{id}",
// in registration order.
func (h *Handler) Routes() []string { return slices.Clone(h.routes) }

// router is a ServeMux that records the patterns registered through Handle
// and HandleFunc, so that a route added later is in Handler.Routes (and so
// must be described in openapi.json) without anything else to update.
type router struct {
	*http.ServeMux
	patterns *[]string
}

func newRouter(patterns *[]string) router { return router{http.NewServeMux(), patterns} }

func (r router) Handle(pattern string, h http.Handler) {
	*r.patterns = append(*r.patterns, pattern)
	r.ServeMux.Handle(pattern, h)
}

func (r router) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	r.Handle(pattern, http.HandlerFunc(h))
}

func serveSpec(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache") // changes with the binary only, but then it must
	_, _ = w.Write(OpenAPI)
}
