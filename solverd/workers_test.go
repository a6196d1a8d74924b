package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// A running solverd is listed by `solverd workers` with its job in flight
// and that job's nodes so far, its entry holds no secret of its
// configuration, and a clean stop removes it.
func TestWorkersListsRunningSolverd(t *testing.T) {
	testenv.ClearConfigEnv(t)
	pw := testenv.NATSPassword
	srv := natstest.StartWith(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "alice", Password: pw}}
	})
	url := srv.ClientURL()
	for k, v := range map[string]string{"TESSERA_NATS_USER": "alice", "TESSERA_NATS_PASSWORD": pw,
		"TESSERA_DATABASE_PASSWORD": testenv.DBPassword, "TESSERA_SOLVER_METRICS_TOKEN": testenv.HTTPToken} {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var o, e testenv.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"run", "--nats-url", url, "--workers", "1", "--quick-workers", "0", "--tables", "none"},
			strings.NewReader(""), &o, &e)
	}()
	wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
	defer wcancel()
	for !strings.Contains(e.String(), "solving jobs") {
		if wctx.Err() != nil {
			t.Fatalf("never started solving:\n%s", e.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	nc, err := nats.Connect(url, nats.UserInfo("alice", pw))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// A 24-puzzle without tables: it runs until its budget ends.
	kf1 := "12 3 9 22 1/18 24 4 14 19/21 5 15 0 10/8 13 6 2 17/7 23 16 20 11" // Korf–Felner #1
	if err := queuetest.PublishJob(wctx, js, job.Job{V: job.Version, ID: "7-3", BatchID: 7, FirstSeq: 3, Puzzle: "24", Mode: "optimal",
		States: []string{kf1}, Budget: job.NewBudget(0, 15*time.Second)}); err != nil {
		t.Fatal(err)
	}
	workers := func(args ...string) string {
		t.Helper()
		var wo, we testenv.SyncBuffer
		if code := runContext(wctx, append([]string{"workers", "--nats-url", url}, args...), strings.NewReader(""), &wo, &we); code != exitOK {
			t.Fatalf("solverd workers: exit %d:\n%s", code, we.String())
		}
		testenv.NoSecrets(t, "solverd workers", wo.String()+we.String())
		return wo.String()
	}
	var entry queue.WorkerEntry
	for {
		var ws []queue.WorkerEntry
		out := workers("--json")
		if err := json.Unmarshal([]byte(out), &ws); err != nil {
			t.Fatalf("workers --json: %v\n%s", err, out)
		}
		if len(ws) == 1 && len(ws[0].Jobs) == 1 && ws[0].Jobs[0].Nodes > 0 && ws[0].NodesPerSecond > 0 {
			entry = ws[0]
			break
		}
		if wctx.Err() != nil {
			t.Fatalf("no entry with a job in flight and its nodes:\n%s", out)
		}
		time.Sleep(500 * time.Millisecond)
	}
	j := entry.Jobs[0]
	if entry.Role != "solverd" || entry.PID != os.Getpid() || entry.Workers != 1 || entry.Version == "" || entry.Host == "" ||
		j.Batch != 7 || j.FirstSeq != 3 || j.States != 1 || j.Puzzle != "sliding:5x5" || j.Lane != "heavy" || j.Delivery != 1 {
		t.Errorf("entry %+v", entry)
	}
	if entry.TableSets["sliding:5x5 optimal"] != "none" {
		t.Errorf("table sets %v", entry.TableSets)
	}
	table := workers()
	for _, want := range []string{"HOST", "NODES/S", strconv.Itoa(os.Getpid()), "solverd", "sliding:5x5", "heavy"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	// The raw entry, as any client of the bucket reads it.
	kv, err := js.KeyValue(wctx, queue.WorkersBucket)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := kv.Get(wctx, entry.Key)
	if err != nil {
		t.Fatal(err)
	}
	testenv.NoSecrets(t, "registry entry", string(raw.Value()))
	if strings.Contains(string(raw.Value()), "alice") || strings.Contains(string(raw.Value()), url) {
		t.Errorf("the entry names the NATS user or URL: %s", raw.Value())
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d:\n%s", code, e.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("solverd run did not stop:\n%s", e.String())
	}
	wctx, wcancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	if out := strings.TrimSpace(workers("--json")); out != "[]" {
		t.Errorf("after a clean stop: %s", out)
	}
	if out := workers(); !strings.Contains(out, "no process is registered") {
		t.Errorf("empty table: %s", out)
	}
	testenv.NoSecrets(t, "stderr", e.String())
}

// A solverd killed with SIGKILL cannot remove its entry: the bucket's TTL
// does, within queue.WorkerTTL of its last refresh, on the pinned
// nats-server and on Debian's 2.9.10 (when installed).
func TestKilledWorkerDisappears(t *testing.T) {
	servers := map[string]string{"pinned": natstest.Binary(t)}
	if _, err := os.Stat(debianNATS); err == nil {
		servers["2.9.10"] = debianNATS
	}
	for name, bin := range servers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := natstest.StartProcessWith(t, bin)
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), helperEnv+"=run --nats-url "+srv.URL()+" --workers 1 --quick-workers 0 --tables none")
			var stderr testenv.SyncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			nc := srv.Conn(t)
			js, err := queue.New(nc)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			listed := func() bool {
				ws, err := queue.Workers(ctx, js)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range ws {
					if w.PID == cmd.Process.Pid {
						return true
					}
				}
				return false
			}
			for !listed() {
				if ctx.Err() != nil {
					t.Fatalf("the process never registered:\n%s", stderr.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
			// Kill it just after a refresh, so that its entry lives its
			// whole TTL: the worst case.
			kv, err := js.KeyValue(ctx, queue.WorkersBucket)
			if err != nil {
				t.Fatal(err)
			}
			w, err := kv.WatchAll(ctx, jetstream.UpdatesOnly())
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-w.Updates():
			case <-ctx.Done():
				t.Fatal("no refresh")
			}
			_ = w.Stop()
			killed := time.Now()
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			for listed() {
				if time.Since(killed) > 30*time.Second {
					t.Fatalf("the entry of a process killed %v ago is still listed", time.Since(killed).Round(time.Millisecond))
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Logf("nats-server %s: the entry of a killed solverd disappeared %v after SIGKILL (TTL %v)",
				name, time.Since(killed).Round(10*time.Millisecond), queue.WorkerTTL)
		})
	}
}

// debianNATS is Debian's nats-server (2.9.10 on the development machines).
const debianNATS = "/usr/sbin/nats-server"
