package queue_test

import (
	"errors"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/redact"
	"github.com/tessera-solver/tessera/internal/testenv"
)

// waitLink waits up to within for link's readiness to be want (true:
// connected) and returns how long it took.
func waitLink(t *testing.T, link *queue.Link, want bool, within time.Duration, what string) time.Duration {
	t.Helper()
	start := time.Now()
	for (link.Ready() == nil) != want {
		if time.Since(start) > within {
			t.Fatalf("%s: link still %v after %v", what, link.Ready(), within)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

// A connection notices a stopped and a frozen (SIGSTOP) nats-server within
// 10 s with the default pings, and its Link follows it down and back up;
// each event is one log line naming the server.
func TestLinkFollowsStoppedAndFrozenServer(t *testing.T) {
	p := natstest.StartProcess(t)
	link := queue.NewLink()
	var logs testenv.SyncBuffer
	var states []bool
	link.OnChange(func(up bool) { states = append(states, up) })
	nc, err := queue.ConnectWatched(p.URL(), t.Name(), queue.Auth{}, queue.Watch{
		Log: slog.New(slog.NewTextHandler(&logs, nil)), Link: link})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := link.Ready(); err != nil {
		t.Fatalf("connected, but the link says %v", err)
	}

	p.Kill()
	t.Logf("not ready %v after kill -9", waitLink(t, link, false, 10*time.Second, "server killed"))
	if err := link.Ready(); !errors.Is(err, queue.ErrNotConnected) || !strings.Contains(err.Error(), p.URL()) {
		t.Errorf("down: %v, want ErrNotConnected naming %s", err, p.URL())
	}
	p.Restart()
	t.Logf("ready %v after the restart", waitLink(t, link, true, 15*time.Second, "server restarted"))

	p.Freeze()
	frozen := waitLink(t, link, false, 10*time.Second, "server frozen")
	t.Logf("not ready %v after SIGSTOP", frozen)
	p.Thaw()
	t.Logf("ready %v after SIGCONT", waitLink(t, link, true, 15*time.Second, "server thawed"))

	if want := []bool{false, true, false, true, false, true}; !equalBools(states, want) {
		t.Errorf("link states %v, want %v", states, want)
	}
	out := logs.String()
	if n := strings.Count(out, "NATS connection lost"); n != 2 {
		t.Errorf("%d lines of a lost connection, want 2:\n%s", n, out)
	}
	if n := strings.Count(out, "NATS connection back"); n != 2 || !strings.Contains(out, "server="+p.URL()) || !strings.Contains(out, "down=") {
		t.Errorf("%d lines of a connection back (want 2, naming %s and how long it was down):\n%s", n, p.URL(), out)
	}
	if !strings.Contains(out, "stale connection") {
		t.Errorf("the frozen server's line does not say the pings went unanswered:\n%s", out)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The handlers' lines (lost, back, closed, asynchronous error) name the
// server without its credentials: a password or a token in the URL
// never reaches the log.
func TestConnectionLogsShowNoSecret(t *testing.T) {
	perms := &server.Permissions{Publish: &server.SubjectPermission{Deny: []string{"forbidden.>"}}}
	for _, tc := range []struct {
		name      string
		configure func(*server.Options)
		userinfo  string
	}{
		{"password", func(o *server.Options) {
			o.Users = []*server.User{{Username: "alice", Password: testPassword, Permissions: perms}}
		}, "alice:" + testPassword},
		{"token", func(o *server.Options) { o.Authorization = testToken }, testToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := natstest.StartWith(t, tc.configure)
			port := s.Addr().(*net.TCPAddr).Port
			u := withUserinfo(s.ClientURL(), tc.userinfo)
			var logs testenv.SyncBuffer
			link := queue.NewLink()
			nc, err := queue.ConnectWatched(u, t.Name(), queue.Auth{}, queue.Watch{
				Log: slog.New(slog.NewTextHandler(&logs, nil)), Link: link})
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "password" {
				// A publish the server refuses: an asynchronous error.
				_ = nc.Publish("forbidden.x", nil)
				_ = nc.Flush()
			}
			s.Shutdown()
			s.WaitForShutdown()
			waitLink(t, link, false, 10*time.Second, "server shut down")
			natstest.StartWith(t, func(o *server.Options) {
				tc.configure(o)
				o.Port = port
			})
			waitLink(t, link, true, 15*time.Second, "server back")
			nc.Close()
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(logs.String(), "NATS connection closed") && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			out := logs.String()
			for _, want := range []string{"NATS connection lost", "NATS connection back", "NATS connection closed", redact.Mask + "@127.0.0.1"} {
				if !strings.Contains(out, want) {
					t.Errorf("no %q in the log:\n%s", want, out)
				}
			}
			if tc.name == "password" && !strings.Contains(out, "NATS asynchronous error") {
				t.Errorf("no asynchronous error logged for a refused publish:\n%s", out)
			}
			for _, secret := range []string{testPassword, testToken, url.QueryEscape(testPassword)} {
				if strings.Contains(out, secret) {
					t.Errorf("the log shows a secret:\n%s", out)
				}
			}
			testenv.NoSecrets(t, "connection log", out)
		})
	}
}
