package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// A burst of concurrent /api/scrambles requests, far more than the store's
// pooled connections. Every request must get an answer, 200 or a
// quick 503 with Retry-After, never a 5xx of a timeout, and every /healthz
// probe during the burst 200. The figures are logged (go test -v).
//
// By default it runs 1,000 requests against a `results serve` of its own
// on 20,000 stored rows. docs/PIPELINE-store.md's figures come from the
// same test against a separate server (its own process, so the two sides
// do not share one limit of open files):
//
//	TESSERA_BURST_URL=http://127.0.0.1:8080 TESSERA_BURST_N=10000 go test -run TestServeBurst -v ./results
func TestServeBurst(t *testing.T) {
	n := 1000
	if v := os.Getenv("TESSERA_BURST_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("TESSERA_BURST_N=%q: want a positive number", v)
		}
	}
	base := os.Getenv("TESSERA_BURST_URL")
	if base == "" {
		isolate(t)
		u := storetest.SchemaURL(t)
		seedBurst(t, u, 20_000)
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		var stderr *testenv.SyncBuffer
		base, stderr, _ = startServe(t, ctx, u)
		waitReady(t, base, stderr)
	}

	type answer struct {
		code  int
		retry bool // a Retry-After header
		err   error
		took  time.Duration
		late  time.Duration // from connected to request written
	}
	answers := make([]answer, n)
	// One connection per request, as n separate clients would open.
	client := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{DisableKeepAlives: true, MaxIdleConnsPerHost: -1}}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			t0 := time.Now()
			var connected, wrote time.Time
			req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/scrambles?puzzle=8&length=%d&count=100", base, 18+i%8), nil)
			req = req.WithContext(httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				ConnectDone:  func(string, string, error) { connected = time.Now() },
				WroteRequest: func(httptrace.WroteRequestInfo) { wrote = time.Now() },
			}))
			resp, err := client.Do(req)
			a := answer{err: err, late: wrote.Sub(connected)}
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				a.code, a.retry = resp.StatusCode, resp.Header.Get("Retry-After") != ""
			}
			a.took = time.Since(t0)
			answers[i] = a
		})
	}
	type probe struct {
		path string
		code int
		err  error
		took time.Duration
	}
	var probes []probe
	probeClient := &http.Client{Timeout: 30 * time.Second}
	burst := time.Now()
	close(start)
	for i := range 22 {
		time.Sleep(250 * time.Millisecond)
		p := probe{path: []string{"/healthz", "/readyz"}[i%2]}
		t0 := time.Now()
		resp, err := probeClient.Get(base + p.path)
		p.took, p.err = time.Since(t0), err
		if err == nil {
			resp.Body.Close()
			p.code = resp.StatusCode
		}
		probes = append(probes, p)
	}
	wg.Wait()
	elapsed := time.Since(burst)

	var ok, shed, dropped int
	var okTook, shedTook []time.Duration
	for i, a := range answers {
		switch {
		case a.err != nil && n > listenBacklog:
			// More connects at once than the kernel's listen backlog: some
			// may be dropped before the server sees them.
			dropped++
			if dropped <= 3 {
				t.Logf("request %d: %v (written %s after connecting)", i, a.err, a.late)
			}
		case a.err != nil:
			t.Errorf("request %d: %v (written %s after connecting)", i, a.err, a.late)
		case a.code == http.StatusOK:
			ok++
			okTook = append(okTook, a.took)
		case a.code == http.StatusServiceUnavailable && a.retry:
			shed++
			shedTook = append(shedTook, a.took)
		default:
			t.Errorf("request %d: %d (Retry-After %v) after %s, want 200 or 503 with Retry-After", i, a.code, a.retry, a.took)
		}
	}
	if ok == 0 {
		t.Errorf("no request of %d was answered 200", n)
	}
	var healthz []string
	for _, p := range probes {
		healthz = append(healthz, fmt.Sprintf("%s %d %s", p.path, p.code, p.took.Round(time.Millisecond)))
		if p.err != nil || p.code != http.StatusOK {
			t.Errorf("%s during the burst: %d %v after %s, want 200", p.path, p.code, p.err, p.took)
		}
	}
	t.Logf("%d concurrent requests in %s: %d answered 200 (median %s, max %s), %d shed with 503 + Retry-After (median %s, max %s), %d connections closed unanswered",
		n, elapsed.Round(time.Millisecond), ok, median(okTook), maxOf(okTook), shed, median(shedTook), maxOf(shedTook), dropped)
	t.Logf("probes during the burst: %v", healthz)
}

// listenBacklog is Linux's default net.core.somaxconn, the most
// connections a listener queues before accepting them.
const listenBacklog = 4096

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2].Round(time.Millisecond)
}

func maxOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Max(ds).Round(time.Millisecond)
}

// seedBurst stores rows optimal rows of sliding:3x3 with lengths 18..25.
func seedBurst(t *testing.T, url string, rows int) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	id, err := st.CreateBatch(ctx, "8", "optimal", int64(rows))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []job.Results
	for first := 0; first < rows; first += 1000 {
		rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-%d", id, first), BatchID: id, Puzzle: "sliding:3x3", FirstSeq: int64(first)}
		for i := first; i < min(first+1000, rows); i++ {
			l := 18 + i%8
			rs.Results = append(rs.Results, result.Result{Puzzle: "sliding:3x3", State: fmt.Sprintf("burst %d", i),
				Status: result.StatusSolved, Length: l, LowerBound: l, Optimal: true, Solver: "test", Moves: "U"})
		}
		msgs = append(msgs, rs)
	}
	if _, err := st.InsertResults(ctx, msgs); err != nil {
		t.Fatal(err)
	}
}

// waitReady waits up to 30 s for serve's /readyz to answer 200 "ok"
// (open: no token).
func waitReady(t *testing.T, base string, stderr *testenv.SyncBuffer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := httpGet(t, base+"/readyz")
		if code == 200 && body == "ok\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz: %d %q\n%s", code, body, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
