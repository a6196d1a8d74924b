package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/store"
)

// flaky is a store whose reads fail from the downth call on for n calls
// (PostgreSQL restarting), then report the batch finished.
type flaky struct {
	calls, down, n int
	secret         string
}

func (f *flaky) fail() error {
	f.calls++
	if f.calls >= f.down && f.calls < f.down+f.n {
		return errors.New("dial postgres://tessera:" + f.secret + "@db:5432/tessera: connection refused")
	}
	return nil
}

func (f *flaky) BatchProgress(context.Context, int64) (store.Batch, error) {
	if err := f.fail(); err != nil {
		return store.Batch{}, err
	}
	if f.calls < f.down+f.n+2 {
		return store.Batch{Solved: 1}, nil
	}
	now := time.Now()
	return store.Batch{Solved: 3, Done: 3, Total: 3, FinishedAt: &now}, nil
}

func (f *flaky) BatchDistribution(context.Context, int64) (store.Distribution, error) {
	if err := f.fail(); err != nil {
		return store.Distribution{}, err
	}
	return store.Distribution{Counts: []store.LengthCount{{Length: 4, Count: 3}}, Total: 3, Mean: 4, Max: 4}, nil
}

// --wait rides out a database outage longer than any fixed patience:
// it says once that it is still waiting (no password in the message),
// then that the database is back, and ends with the batch's histogram.
func TestWaitRidesOutDatabaseOutage(t *testing.T) {
	// More failed reads than the 150 the old --wait allowed, polled fast.
	defer func(d time.Duration) { pollEvery = d }(pollEvery)
	pollEvery = time.Millisecond
	f := &flaky{down: 2, n: 400, secret: "s3cret-pw"}
	var out, errs bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := follow(ctx, f, 1, 3, true, time.Now(), nil, nil, &out, &errs); err != nil {
		t.Fatalf("follow: %v\n%s", err, errs.String())
	}
	e := errs.String()
	if !strings.Contains(e, "still waiting") || !strings.Contains(e, "PostgreSQL is back") || strings.Contains(e, f.secret) {
		t.Errorf("stderr:\n%s", e)
	}
	if out.String() != "4 3\n" {
		t.Errorf("stdout %q", out.String())
	}
}

// A --local run killed with -9 leaves its NATS store behind; the next run
// removes the stores whose owner is gone and keeps the live ones.
func TestSweepLocalStores(t *testing.T) {
	parent := t.TempDir()
	mk := func(name, owner string) string {
		d := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(d, "jetstream"), 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			os.WriteFile(filepath.Join(d, ownerFile), []byte(owner), 0o644)
		}
		return d
	}
	// A process that has exited: its pid is free (until reused).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := mk(localPrefix+"dead", strconv.Itoa(cmd.Process.Pid))
	live := mk(localPrefix+"live", strconv.Itoa(os.Getpid()))
	starting := mk(localPrefix+"starting", "")
	other := mk("someone-else", "1")
	got := sweepLocalStores(parent)
	if len(got) != 1 || got[0] != dead {
		t.Fatalf("removed %v, want only %s", got, dead)
	}
	for _, d := range []string{live, starting, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
