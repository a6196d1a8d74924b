package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/httpauth"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// blockingGen holds every generate=true request until release is closed,
// so a test can keep API requests in flight for as long as it likes.
type blockingGen struct {
	entered chan struct{}
	release chan struct{}
}

func (g blockingGen) Generate(ctx context.Context, _ puzzle.Spec, _, _ int) (int64, int, error) {
	g.entered <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return 1, 1, nil
}

// With the cap of API requests in flight, one more is shed at once with
// 503 and Retry-After (it does not queue behind the others), and both
// probes still answer 200 at once. Without a cap the extra request would
// block in the generator until the test's timeout.
func TestShedOverCap(t *testing.T) {
	t.Parallel()
	st := storetest.NewStore(t)
	const limit = 3
	gen := blockingGen{entered: make(chan struct{}), release: make(chan struct{})}
	// Reading open, a writer for generate=true.
	g := httpauth.NewGuard("", []httpauth.Writer{{Name: "a", Token: writerA}})
	srv := httptest.NewServer(g.Wrap(httpapi.New(st, nil, httpapi.WithGenerator(gen), httpapi.WithMaxInFlight(limit))))
	t.Cleanup(srv.Close)
	var held sync.WaitGroup
	for range limit {
		held.Go(func() {
			req, _ := http.NewRequest("GET", srv.URL+"/api/scrambles?puzzle=8&length=4&count=1&generate=true", nil)
			req.Header.Set("Authorization", "Bearer "+writerA)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	for range limit {
		select {
		case <-gen.entered:
		case <-time.After(30 * time.Second):
			t.Fatal("held requests did not reach the generator")
		}
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for _, path := range []string{"/api/batches", "/", "/metrics"} {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatalf("GET %s over the cap: %v (it waited instead of being shed)", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("GET %s over the cap: %d, Retry-After %q; want 503 with Retry-After", path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	var e apiError
	getJSON(t, srv, "/api/batches", 503, &e)
	if !strings.Contains(e.Error, "http_max_requests") {
		t.Errorf("shed API error %q should name the key that raises the cap", e.Error)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _, body := get(t, srv, path); code != 200 {
			t.Errorf("GET %s while the API is full: %d %q", path, code, body)
		}
	}
	close(gen.release)
	held.Wait()
	// Slots are given back: the API answers again, and /metrics counted
	// the requests shed.
	if code, _, body := get(t, srv, "/metrics"); code != 200 || !strings.Contains(body, "tessera_http_shed_total 4") {
		t.Errorf("metrics after the burst: %d, want tessera_http_shed_total 4:\n%s", code, body)
	}
}

// While the server starts (results serve migrating) the API and /readyz
// answer 503 and /healthz 200.
func TestStarting(t *testing.T) {
	t.Parallel()
	st := storetest.NewStore(t)
	srv := httptest.NewServer(httpapi.New(st, nil, httpapi.WithStarting(func() error { return fmt.Errorf("starting: migrating") })))
	t.Cleanup(srv.Close)
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 503, "/api/batches": 503, "/": 503} {
		if code, _, body := get(t, srv, path); code != want || (want == 503 && !strings.Contains(body, "migrating")) {
			t.Errorf("GET %s while starting: %d %q, want %d", path, code, body, want)
		}
	}
}

// WithNATS (results serve --generate): /readyz also requires the NATS
// connection, and tessera_nats_connected follows it; /healthz stays 200.
func TestReadyzFollowsNATS(t *testing.T) {
	t.Parallel()
	st := storetest.NewStore(t)
	ns := natstest.Start(t)
	link := queue.NewLink()
	nc, err := queue.ConnectWatched(ns.ClientURL(), t.Name(), queue.Auth{}, queue.Watch{Link: link})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	srv := httptest.NewServer(httpapi.New(st, nil, httpapi.WithNATS(link)))
	t.Cleanup(srv.Close)
	if code, _, body := get(t, srv, "/readyz"); code != 200 {
		t.Fatalf("/readyz connected: %d %q", code, body)
	}
	if _, _, body := get(t, srv, "/metrics"); !strings.Contains(body, "\ntessera_nats_connected 1\n") {
		t.Errorf("/metrics lacks tessera_nats_connected 1:\n%s", body)
	}
	ns.Shutdown()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, body := get(t, srv, "/readyz")
		if code == 503 {
			if !strings.HasPrefix(body, "not connected to NATS") {
				t.Errorf("/readyz without NATS: %q", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d %q 10 s after the server stopped", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, _, body := get(t, srv, "/metrics"); !strings.Contains(body, "\ntessera_nats_connected 0\n") {
		t.Errorf("/metrics lacks tessera_nats_connected 0:\n%s", body)
	}
	if code, _, _ := get(t, srv, "/healthz"); code != 200 {
		t.Errorf("/healthz without NATS: %d, want 200", code)
	}
}
