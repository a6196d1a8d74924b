package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// The daemon solves a job published on a real (in-process) JetStream,
// publishes verified results, caps the job's budget with the host's, and
// returns cleanly when its context ends (SIGTERM in production).
func TestDaemonSolvesAndDrains(t *testing.T) {
	url, nc := natstest.Server(t)
	cfg := config.Default()
	cfg.NATS.URL = url
	cfg.Solver.Workers = 2
	cfg.Solver.MaxNodes = 2000 // the host's cap: Korf #1 cannot be proved in it

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- daemon(ctx, cfg, solve.New(solve.NewRegistry(solve.Builtin()...)), cmdkit.NewHealth(), slog.New(slog.NewTextHandler(io.Discard, nil)), nil, nil)
	}()

	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	// The daemon creates the streams; wait for them rather than race it.
	for {
		if _, err := js.Stream(wctx, queue.ResultsStream); err == nil {
			break
		}
		select {
		case <-wctx.Done():
			t.Fatal("daemon never created the streams")
		case <-time.After(20 * time.Millisecond):
		}
	}
	qc := queueConfig(cfg.NATS)
	res, err := queue.EnsureResultsConsumer(wctx, js, qc)
	if err != nil {
		t.Fatal(err)
	}
	states := []string{"8 6 7/2 5 4/3 0 1", "1 2 3/4 5 6/8 7 0"}
	if err := queuetest.PublishJob(wctx, js, job.Job{V: job.Version, ID: "1-0", BatchID: 1, Puzzle: "8", States: states, Mode: "optimal"}); err != nil {
		t.Fatal(err)
	}
	if err := queuetest.PublishJob(wctx, js, job.Job{V: job.Version, ID: "2-0", BatchID: 2, Puzzle: "15", Mode: "optimal",
		States: []string{"13 6 8 12/15 14 0 10/11 7 4 5/9 1 3 2"}}); err != nil {
		t.Fatal(err)
	}
	got := map[string]job.Results{}
	for len(got) < 2 {
		msgs, err := queue.Fetch(wctx, res, 2, time.Second)
		if err != nil && wctx.Err() != nil {
			t.Fatalf("results: %v (got %d)", err, len(got))
		}
		for _, m := range msgs {
			var r job.Results
			if err := json.Unmarshal(m.Data(), &r); err != nil {
				t.Fatal(err)
			}
			got[r.JobID] = r
			_ = m.Ack()
		}
	}
	r8 := got["1-0"].Results
	if len(r8) != 2 || r8[0].Status != result.StatusSolved || r8[0].Length != 31 || r8[1].Status != result.StatusUnsolvable {
		t.Fatalf("8-puzzle results %+v", r8)
	}
	st, _ := puzzle.Parse(puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}, states[0])
	if err := puzzle.Verify(st, r8[0].Moves); err != nil {
		t.Error(err)
	}
	r15 := got["2-0"].Results
	if len(r15) != 1 || r15[0].Status != result.StatusBudgetExceeded || r15[0].Nodes < 2000 || r15[0].Nodes > 2000+70000 {
		t.Errorf("15-puzzle under the host's 2000-node cap: %+v", r15)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("daemon: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("daemon did not stop after cancel")
	}
}

// A daemon started before its NATS server keeps retrying and stops
// cleanly when told to.
func TestDaemonWaitsForNATS(t *testing.T) {
	cfg := config.Default()
	cfg.NATS.URL = "nats://127.0.0.1:1" // nothing listens there
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	if err := daemon(ctx, cfg, solve.New(solve.NewRegistry(solve.Builtin()...)), cmdkit.NewHealth(), slog.New(slog.NewTextHandler(io.Discard, nil)), nil, nil); err != nil {
		t.Errorf("daemon stopped while retrying: %v", err)
	}
}

// `solverd queue apply` is the one way to change the consumers' shared
// settings: run does not rewrite them.
func TestQueueApply(t *testing.T) {
	url, _ := natstest.Server(t)
	code, out, stderr := solverd(t, "", "queue", "apply", "--nats-url", url, "--nats-max-deliver", "3", "--nats-ack-wait", "7s")
	if code != exitOK || !strings.Contains(out, "consumer solverd-quick: max_deliver 3, ack wait 7s") || !strings.Contains(out, "consumer solverd: max_deliver 3") {
		t.Fatalf("queue apply: exit %d\n%s%s", code, out, stderr)
	}
}

// On a real three-node cluster: `queue apply --nats-replicas 3` raises the
// streams and says so, and a `solverd run` left at the default of one
// replica keeps them at three, with one warning.
func TestRunKeepsAppliedReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node nats-server cluster (skipped with -short)")
	}
	cl := natstest.StartCluster(t, 3)
	// Created at one replica first, as a deployment that grew would be.
	if code, out, stderr := solverd(t, "", "queue", "apply", "--nats-url", cl.URLs()); code != exitOK || !strings.Contains(out, "replicas: 1 for every") {
		t.Fatalf("queue apply: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr := solverd(t, "", "queue", "apply", "--nats-url", cl.URLs(), "--nats-replicas", "3")
	if code != exitOK || !strings.Contains(out, "stream TESSERA_JOBS: replicas 1 -> 3") || !strings.Contains(out, "stream KV_tessera-cancelled: replicas 1 -> 3") {
		t.Fatalf("queue apply --nats-replicas 3: exit %d\n%s%s", code, out, stderr)
	}

	cfg := config.Default()
	cfg.NATS.URL = cl.URLs()
	cfg.Solver.Workers = 1
	var logs testenv.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- daemon(ctx, cfg, solve.New(solve.NewRegistry(solve.Builtin()...)), cmdkit.NewHealth(), slog.New(slog.NewTextHandler(&logs, nil)), nil, nil)
	}()
	js, err := queue.New(cl.Conn(t))
	if err != nil {
		t.Fatal(err)
	}
	sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer scancel()
	// Started: a worker is pulling jobs, so everything it ensures at start
	// (streams, consumers) is done. The consumers existed before (queue
	// apply made them), so their existence says nothing.
	for {
		if c, err := js.Consumer(sctx, queue.JobsStream, queue.JobsConsumer); err == nil {
			if info, err := c.Info(sctx); err == nil && info.NumWaiting > 0 {
				break
			}
		}
		if sctx.Err() != nil {
			t.Fatalf("daemon did not start:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("daemon: %v", err)
	}
	if n := strings.Count(logs.String(), "existing streams keep their replica count"); n != 1 {
		t.Errorf("%d replica warnings, want 1:\n%s", n, logs.String())
	}
	for _, name := range []string{queue.JobsStream, queue.ResultsStream, queue.DeadStream, queue.BucketStream(queue.CancelledBucket)} {
		s, err := js.Stream(sctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if r := s.CachedInfo().Config.Replicas; r != 3 {
			t.Errorf("%s: %d replicas after solverd run with nats.replicas 1, want 3", name, r)
		}
	}
}

// Settings NATS refuses are not retried for ever: `solverd run` exits
// non-zero after a few tries, saying why, while an outage (TestDaemonWaitsForNATS) is still waited out.
func TestRunExitsOnRefusedSettings(t *testing.T) {
	s := natstest.StartWith(t, func(o *server.Options) { o.Username, o.Password = "solver", "right-pw-3b1f" })
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"wrong password", []string{"--nats-user", "solver", "--nats-password", "wrong-pw-77c2"}, "Authorization Violation"},
		{"nkey file without a seed", []string{"--nats-nkey-file", "daemon_test.go"}, "no nkey seed found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TESSERA_NATS_PASSWORD", "")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var stdout, stderr strings.Builder
			args := append([]string{"run", "--nats-url", s.ClientURL(), "--metrics-addr", "", "--tables", "none"}, c.args...)
			code := runContext(ctx, args, strings.NewReader(""), &stdout, &stderr)
			if ctx.Err() != nil {
				t.Fatalf("still retrying after 20 s: %s", stderr.String())
			}
			if code == exitOK || !strings.Contains(stderr.String(), c.want) || !strings.Contains(stderr.String(), "refused 3 times") ||
				strings.Contains(stderr.String(), "wrong-pw-77c2") {
				t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
			}
		})
	}
}
