package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// solverd run serves /metrics (client_golang: solves by puzzle,
// mode and status, nodes, solve times, queue lag, jobs in flight, and the
// Go runtime and process collectors) behind solver.metrics_token, and an
// open /healthz, on solver.metrics_addr.
func TestRunServesMetrics(t *testing.T) {
	testenv.ClearConfigEnv(t)
	url, nc := natstest.Server(t)
	t.Setenv("TESSERA_SOLVER_METRICS_TOKEN", testenv.HTTPToken)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var o, e testenv.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"run", "--nats-url", url, "--workers", "1", "--metrics-addr", "127.0.0.1:0", "--tables", "none"},
			strings.NewReader(""), &o, &e)
	}()
	addrRe := regexp.MustCompile(`serving /metrics, /healthz and /readyz" addr=(\S+) auth="bearer token"`)
	var addr string
	for deadline := time.Now().Add(20 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(e.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no metrics listener:\n%s", e.String())
		}
	}
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz", ""); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, _ := get("/metrics", ""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d, want 401", code)
	}

	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	for !strings.Contains(e.String(), "solving jobs") {
		if wctx.Err() != nil {
			t.Fatalf("never started solving:\n%s", e.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := queuetest.PublishJob(wctx, js, job.Job{V: job.Version, ID: "1-0", BatchID: 1, Puzzle: "8", Mode: "optimal",
		States: []string{"8 6 7/2 5 4/3 0 1", "1 2 3/4 5 6/8 7 0", "1 2 3/4 5 6/7 8 0"}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`tessera_solver_solves_total{mode="optimal",puzzle="sliding:3x3",status="solved"} 2`,
		`tessera_solver_solves_total{mode="optimal",puzzle="sliding:3x3",status="unsolvable"} 1`,
		`tessera_solver_solve_seconds_count{mode="optimal",puzzle="sliding:3x3"} 3`,
		`tessera_solver_nodes_total{mode="optimal",puzzle="sliding:3x3"}`,
		`tessera_solver_jobs_total{lane="quick"} 1`,
		`tessera_solver_jobs_in_flight{lane="quick"} 0`,
		`tessera_solver_queue_lag_seconds_count{lane="quick"} 1`,
		`tessera_solver_redeliveries_total{lane="quick"} 0`,
		`tessera_solver_workers{lanes="quick+heavy"} `,
		// The streams' sizes against their limits (nats.max_bytes's default).
		`tessera_stream_bytes{stream="TESSERA_JOBS"} `, `tessera_stream_bytes{stream="TESSERA_RESULTS"} `,
		`tessera_stream_max_bytes{stream="TESSERA_JOBS"} 1.073741824e+09`,
		`tessera_stream_max_bytes{stream="TESSERA_DEAD"} 1.073741824e+09`,
		`tessera_stream_up{stream="TESSERA_JOBS"} 1`, `tessera_stream_messages{stream="TESSERA_RESULTS"} `,
		`tessera_stream_replicas{stream="TESSERA_JOBS"} 1`, `tessera_stream_replicas_current{stream="TESSERA_JOBS"} 1`,
		`tessera_consumer_pending{consumer="solverd-quick",stream="TESSERA_JOBS"} `,
		`tessera_consumer_ack_pending{consumer="solverd-quick",stream="TESSERA_JOBS"} 0`,
		`tessera_ready 1`, `tessera_nats_connected 1`,
		`go_goroutines `, `go_memstats_alloc_bytes `, `process_resident_memory_bytes `, `process_cpu_seconds_total `,
	}
	var body string
	for {
		var code int
		code, body = get("/metrics", testenv.HTTPToken)
		missing := ""
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = w
				break
			}
		}
		if code == http.StatusOK && missing == "" {
			break
		}
		if wctx.Err() != nil {
			t.Fatalf("/metrics: %d, lacks %q:\n%s", code, missing, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	testenv.NoSecrets(t, "metrics", body)
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d", code)
	}
	testenv.NoSecrets(t, "stderr", e.String())
	testenv.NoSecrets(t, "stdout", o.String())
}
