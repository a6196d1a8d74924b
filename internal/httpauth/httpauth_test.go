package httpauth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBearer(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })
	h := Bearer("s3cret-token", ok, "/healthz")
	for _, tc := range []struct {
		path, auth string
		want       int
	}{
		{"/metrics", "", 401},
		{"/metrics", "Bearer s3cret-token", 200},
		{"/metrics", "bearer s3cret-token", 200},
		{"/metrics", "Bearer s3cret-tokenx", 401},
		{"/metrics", "Bearer ", 401},
		{"/metrics", "Basic s3cret-token", 401},
		{"/api/batches", "s3cret-token", 401},
		{"/", "", 401},
		{"/healthz", "", 200},
		{"/healthz/", "", 401},
	} {
		req := httptest.NewRequest("GET", tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s with %q: %d, want %d", tc.path, tc.auth, rec.Code, tc.want)
		}
		if tc.want == 401 {
			if rec.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("%s: 401 without a challenge", tc.path)
			}
			if strings.Contains(rec.Body.String(), "s3cret") {
				t.Errorf("%s: body shows the token: %q", tc.path, rec.Body.String())
			}
		}
	}
	if Bearer("", ok) == nil {
		t.Fatal("no handler")
	}
	rec := httptest.NewRecorder()
	Bearer("", ok).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Errorf("empty token: %d, want no authentication", rec.Code)
	}
}
