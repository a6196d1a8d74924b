// Package httpauth guards tessera's HTTP endpoints with a bearer token:
// results serve's API, status page and /metrics, and any future endpoint
// of another service (solverd's /metrics) wraps its handler the same way.
// /healthz stays open so that orchestrators can probe without a secret.
package httpauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// Bearer returns h guarded by token: a request must carry
// "Authorization: Bearer <token>" or gets 401 with a WWW-Authenticate
// challenge, except requests for one of the open paths (exact match, e.g.
// "/healthz"). An empty token returns h unchanged: no authentication.
//
// The token is compared in constant time, and neither it nor what a client
// sent is ever written to the response or a log.
func Bearer(token string, h http.Handler, open ...string) http.Handler {
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range open {
			if r.URL.Path == p {
				h.ServeHTTP(w, r)
				return
			}
		}
		if got, ok := bearerToken(r); ok {
			// Hashing first makes the comparison constant-time in the
			// token's length too.
			sum := sha256.Sum256([]byte(got))
			if subtle.ConstantTimeCompare(sum[:], want[:]) == 1 {
				h.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="tessera"`)
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
	})
}

// bearerToken is the token of an "Authorization: Bearer …" header (the
// scheme is case-insensitive, RFC 6750).
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
