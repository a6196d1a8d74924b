package main

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// results run against a real nats-server process and PostgreSQL: /healthz
// answers 200 throughout, /readyz and tessera_nats_connected follow the
// NATS connection (503 within 10 s of a kill -9 of the server, with one
// line saying why; 200 again once it is back), and the writer rides the
// outage out.
func TestRunReadinessFollowsNATS(t *testing.T) {
	isolate(t)
	u := storetest.SchemaURL(t)
	p := natstest.StartProcess(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exit := make(chan int, 1)
	var stderr testenv.SyncBuffer
	go func() {
		exit <- run(ctx, []string{"run", "--database-url=" + u, "--nats-url=" + p.URL(), "--fetch-wait=50ms"}, &bytes.Buffer{}, &stderr)
	}()
	addrRe := regexp.MustCompile(`serving /metrics, /healthz and /readyz" addr=(\S+)`)
	var addr string
	for deadline := time.Now().Add(20 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no metrics listener:\n%s", stderr.String())
		}
	}
	connected := func() float64 {
		_, body := testenv.Probe(addr, "/metrics")
		return testenv.Gauge(body, "tessera_nats_connected")
	}
	testenv.WaitProbe(t, addr, "/readyz", http.StatusOK, 30*time.Second)
	if g := connected(); g != 1 {
		t.Errorf("ready, but tessera_nats_connected %v", g)
	}

	p.Kill()
	took := testenv.WaitProbe(t, addr, "/readyz", http.StatusServiceUnavailable, 10*time.Second)
	t.Logf("not ready %v after kill -9 of nats-server", took.Round(time.Millisecond))
	if code, body := testenv.Probe(addr, "/readyz"); code != http.StatusServiceUnavailable ||
		!strings.HasPrefix(body, "not connected to NATS") || strings.Count(body, "\n") != 1 {
		t.Errorf("/readyz %d %q, want 503 and one line", code, body)
	}
	if g := connected(); g != 0 {
		t.Errorf("not ready, but tessera_nats_connected %v", g)
	}
	if code, _ := testenv.Probe(addr, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz %d while NATS is down: the process lives", code)
	}
	p.Restart()
	testenv.WaitProbe(t, addr, "/readyz", http.StatusOK, 30*time.Second)
	if g := connected(); g != 1 {
		t.Errorf("ready again, but tessera_nats_connected %v", g)
	}
	cancel()
	waitExit(t, "run", exit, &stderr)
	testenv.NoSecrets(t, "stderr", stderr.String())
}
