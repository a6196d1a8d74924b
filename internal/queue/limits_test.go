package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
)

// A stream at its byte limit refuses the next publish, on the pinned
// server and on Debian's 2.9.10, with an answer IsStoreFull recognises
// (synchronous and asynchronous, wrapped as the publishers wrap it); the
// stream keeps what it holds, and takes messages again once consumers
// have removed some.
func TestStreamFullRefusesPublish(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nats-server processes (skipped with -short)")
	}
	run := func(t *testing.T, bin string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		js, err := New(natstest.StartProcessWith(t, bin).Conn(t))
		if err != nil {
			t.Fatal(err)
		}
		c := DefaultConfig()
		c.MaxBytes = 64 << 10
		if err := EnsureStreams(ctx, js, c); err != nil {
			t.Fatal(err)
		}
		s, err := js.Stream(ctx, JobsStream)
		if err != nil {
			t.Fatal(err)
		}
		if sc := s.CachedInfo().Config; sc.MaxBytes != c.MaxBytes || sc.Discard != jetstream.DiscardNew {
			t.Fatalf("%s: max bytes %d, discard %v: want %d, discard new", JobsStream, sc.MaxBytes, sc.Discard, c.MaxBytes)
		}
		state := strings.Repeat("1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15,", 20)
		var full error
		stored := 0
		for i := range 1000 {
			j := job.Job{ID: fmt.Sprintf("9-%d", i), BatchID: 9, Puzzle: "15", FirstSeq: int64(i), States: []string{state}, Mode: "optimal"}
			if full = publishJob(ctx, js, j); full != nil {
				break
			}
			stored++
		}
		if !IsStoreFull(full) {
			t.Fatalf("after %d jobs: %v: want a refusal IsStoreFull recognises", stored, full)
		}
		t.Logf("%s after %d jobs: %v", bin, stored, full)
		// The Publisher waits out a full stream, saying so, until its
		// context ends.
		pctx, pcancel := context.WithCancel(ctx)
		defer pcancel()
		p := NewPublisher(js, 4)
		told := false
		p.OnFull = func(full bool) {
			told = told || full
			pcancel()
		}
		err = p.Publish(pctx, job.Job{ID: "9-async", BatchID: 9, Puzzle: "15", States: []string{state}, Mode: "optimal"})
		if err == nil {
			err = p.Flush(pctx)
		}
		if !told || !IsStoreFull(err) || !errors.Is(err, context.Canceled) {
			t.Fatalf("asynchronous publish to the full stream: told %v, %v: want OnFull(true) and IsStoreFull", told, err)
		}
		t.Logf("asynchronous: %v", err)
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs != uint64(stored) {
			t.Errorf("%s holds %d messages, %d were stored: discard-new must keep them", JobsStream, info.State.Msgs, stored)
		}
		// Room again once one is consumed.
		if err := s.DeleteMsg(ctx, info.State.FirstSeq); err != nil {
			t.Fatal(err)
		}
		j := job.Job{ID: "9-again", BatchID: 9, Puzzle: "15", States: []string{"1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15"}, Mode: "optimal"}
		if err := publishJob(ctx, js, j); err != nil {
			t.Errorf("publish after a message was removed: %v", err)
		}
	}
	t.Run("pinned", func(t *testing.T) { run(t, natstest.Binary(t)) })
	t.Run("2.9", func(t *testing.T) {
		if _, err := os.Stat(natstest.ExternalBinary); err != nil {
			t.Skipf("no %s: %v", natstest.ExternalBinary, err)
		}
		run(t, natstest.ExternalBinary)
	})
}

func TestIsStoreFull(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("maximum bytes exceeded"), false},
		{&jetstream.APIError{Code: 503, ErrorCode: 10077, Description: "maximum bytes exceeded"}, true},
		{fmt.Errorf("publish job 1-0: %w", &jetstream.APIError{Code: 503, ErrorCode: 10077, Description: "maximum bytes exceeded"}), true},
		{&jetstream.APIError{Code: 503, ErrorCode: 10077, Description: "message too large"}, false},
		{&jetstream.APIError{Code: 503, ErrorCode: 10023, Description: "insufficient resources"}, true},
		{&jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "jetstream not enabled"}, false},
		{fmt.Errorf("x: %w", ErrStoreFull), true},
		{context.DeadlineExceeded, false},
	} {
		if got := IsStoreFull(c.err); got != c.want {
			t.Errorf("IsStoreFull(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// queue apply sets the byte limit of existing streams (discard-new first)
// but never below what a stream holds, naming it; new streams get it at
// creation, existing ones keep theirs and the drift says so.
func TestApplyMaxBytes(t *testing.T) {
	_, nc := natstest.Server(t)
	js, err := New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	none := DefaultConfig()
	none.MaxBytes = 0
	if err := EnsureStreams(ctx, js, none); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		j := job.Job{ID: fmt.Sprintf("3-%d", i), BatchID: 3, Puzzle: "15", FirstSeq: int64(i), States: []string{strings.Repeat("1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15,", 20)}, Mode: "optimal"}
		if err := publishJob(ctx, js, j); err != nil {
			t.Fatal(err)
		}
	}
	limited := DefaultConfig()
	if err := EnsureStreams(ctx, js, limited); err != nil {
		t.Fatal(err)
	}
	drift, err := ReplicaDrift(ctx, js, limited)
	if err != nil || len(drift) != 3 || !strings.Contains(drift[0], "TESSERA_JOBS: max bytes none on the server, nats.max_bytes 1.0 GiB") {
		t.Errorf("drift %q, %v: want the three streams' limits", drift, err)
	}
	tiny := DefaultConfig()
	tiny.MaxBytes = 4096
	done, err := ApplyMaxBytes(ctx, js, tiny)
	if err == nil || !strings.Contains(err.Error(), "stream TESSERA_JOBS holds") || len(done) != 2 {
		t.Errorf("apply below what TESSERA_JOBS holds: %q, %v: want the two others set and TESSERA_JOBS named", done, err)
	}
	s, err := js.Stream(ctx, JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	if info := s.CachedInfo(); info.Config.MaxBytes > 0 || info.State.Msgs != 20 {
		t.Errorf("%s after a refused apply: max bytes %d, %d messages", JobsStream, info.Config.MaxBytes, info.State.Msgs)
	}
	done, err = ApplyMaxBytes(ctx, js, limited)
	if err != nil || len(done) != 3 || done[0] != "stream TESSERA_JOBS: max bytes none -> 1.0 GiB" {
		t.Errorf("apply: %q, %v", done, err)
	}
	if drift, err := ReplicaDrift(ctx, js, limited); err != nil || len(drift) != 0 {
		t.Errorf("drift after apply %q, %v", drift, err)
	}
	if done, err := ApplyMaxBytes(ctx, js, limited); err != nil || len(done) != 0 {
		t.Errorf("apply again: %q, %v: want nothing to do", done, err)
	}
}

// A limit the servers' store cannot reserve is refused in plain words.
func TestMaxBytesBeyondStore(t *testing.T) {
	_, nc := natstest.Server(t)
	js, err := New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := DefaultConfig()
	c.MaxBytes = 1 << 60
	err = EnsureStreams(ctx, js, c)
	if err == nil || !strings.Contains(err.Error(), "stream TESSERA_JOBS: its byte limit of 1.0 EiB (nats.max_bytes) cannot be reserved") {
		t.Fatalf("EnsureStreams with a 1 EiB limit: %v", err)
	}
	t.Log(err)
}

// The in-process server's limit fits its store.
func TestFitMaxBytes(t *testing.T) {
	s, nc, err := StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { nc.Close(); s.Shutdown(); s.WaitForShutdown() }()
	store := s.JetStreamConfig().MaxStore
	if got := FitMaxBytes(s, 1<<20); got != 1<<20 {
		t.Errorf("1 MiB in a store of %d: %d", store, got)
	}
	if got := FitMaxBytes(s, store); got != store/4 {
		t.Errorf("the whole store %d: %d, want a quarter", store, got)
	}
	if got := FitMaxBytes(s, 0); got != 0 {
		t.Errorf("no limit: %d", got)
	}
}

// publishJob publishes j and waits for the server to store it, returning
// the server's refusal (the product publishes through a Publisher).
func publishJob(ctx context.Context, js jetstream.JetStream, j job.Job) error {
	subj, data, err := EncodeJob(j)
	if err != nil {
		return err
	}
	_, err = js.Publish(ctx, subj, data, jetstream.WithMsgID(j.ID), jetstream.WithExpectStream(JobsStream))
	return err
}
