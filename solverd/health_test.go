package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// notReadyWithin is the operator's promise: a solverd cut off from NATS
// (its server dead, or frozen and silent) answers /readyz 503 within it.
const notReadyWithin = 10 * time.Second

// solverd run against a real nats-server process: /healthz answers 200
// throughout (the process lives), /readyz and tessera_nats_connected
// follow the connection: not ready within 10 s of a kill -9 and of a
// SIGSTOP of the server, ready again when it is back, and the daemon
// never exits.
func TestRunReadinessFollowsNATS(t *testing.T) {
	testenv.ClearConfigEnv(t)
	p := natstest.StartProcess(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var o, e testenv.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"run", "--nats-url", p.URL(), "--workers", "1", "--metrics-addr", "127.0.0.1:0", "--tables", "none"},
			strings.NewReader(""), &o, &e)
	}()
	addrRe := regexp.MustCompile(`serving /metrics, /healthz and /readyz" addr=(\S+)`)
	var addr string
	for deadline := time.Now().Add(20 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(e.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no metrics listener:\n%s", e.String())
		}
	}
	connected := func() float64 {
		_, body := testenv.Probe(addr, "/metrics")
		return testenv.Gauge(body, "tessera_nats_connected")
	}
	ready := func(what string) {
		t.Helper()
		took := testenv.WaitProbe(t, addr, "/readyz", http.StatusOK, 30*time.Second)
		if g := connected(); g != 1 {
			t.Errorf("%s: ready, but tessera_nats_connected %v", what, g)
		}
		t.Logf("%s: ready after %v", what, took.Round(time.Millisecond))
	}
	notReady := func(what string) {
		t.Helper()
		took := testenv.WaitProbe(t, addr, "/readyz", http.StatusServiceUnavailable, notReadyWithin)
		code, body := testenv.Probe(addr, "/readyz")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "not connected to NATS") || !strings.Contains(body, p.URL()) ||
			strings.Count(strings.TrimSpace(body), "\n") != 0 {
			t.Errorf("%s: /readyz %d %q, want 503 and one line naming the lost server", what, code, body)
		}
		if g := connected(); g != 0 {
			t.Errorf("%s: not ready, but tessera_nats_connected %v", what, g)
		}
		if code, body := testenv.Probe(addr, "/healthz"); code != http.StatusOK || body != "ok\n" {
			t.Errorf("%s: /healthz %d %q, want 200: the process lives", what, code, body)
		}
		t.Logf("%s: not ready after %v", what, took.Round(time.Millisecond))
	}

	ready("started")
	p.Kill()
	notReady("nats-server killed")
	p.Restart()
	ready("nats-server restarted")
	p.Freeze()
	notReady("nats-server frozen (SIGSTOP)")
	p.Thaw()
	ready("nats-server thawed (SIGCONT)")

	select {
	case code := <-done:
		t.Fatalf("solverd run exited %d during the outages:\n%s", code, e.String())
	default:
	}
	for _, want := range []string{"NATS connection lost", "NATS connection back"} {
		if n := strings.Count(e.String(), want); n != 2 {
			t.Errorf("%d lines %q, want 2 (one per outage):\n%s", n, want, e.String())
		}
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d:\n%s", code, e.String())
	}
}
