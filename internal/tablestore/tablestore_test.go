package tablestore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/tables"
)

// writeTable writes a table with n entries of pseudo-random bytes.
func writeTable(t *testing.T, dir, name string, n int) string {
	t.Helper()
	payload := make([]byte, n)
	x := uint32(n)
	for i := range payload {
		x = x*1664525 + 1013904223
		payload[i] = byte(x >> 24)
	}
	m := tables.Meta{Name: name, Puzzle: "sliding:4x4", Pattern: "1,2", Encoding: "u8", Entries: uint64(n), Generator: 1}
	path, _, err := tables.Write(dir, m, payload)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPushPull(t *testing.T) {
	ctx := context.Background()
	_, nc := natstest.Server(t)
	st, err := Open(ctx, nc, "tables")
	if err != nil {
		t.Fatal(err)
	}
	src, dst := t.TempDir(), t.TempDir()
	// 300 KB spans several of the object store's 128 KB chunks.
	small, big := writeTable(t, src, "small", 5000), writeTable(t, src, "big", 300_000)
	for _, p := range []string{small, big} {
		if pushed, err := st.Push(ctx, p); err != nil || !pushed {
			t.Fatalf("push %s: %v %v", p, pushed, err)
		}
		if pushed, err := st.Push(ctx, p); err != nil || pushed {
			t.Fatalf("second push of %s uploaded again (%v)", p, err)
		}
	}
	objs, err := st.List(ctx)
	if err != nil || len(objs) != 2 {
		t.Fatalf("list: %v %v", objs, err)
	}
	for _, p := range []string{small, big} {
		got, err := st.Pull(ctx, dst, filepath.Base(p))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(got)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s differs after the round trip", got)
		}
	}
	if _, err := st.Pull(ctx, dst, "missing.g1.tbl"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

// A corrupted object (same name, one payload byte flipped) is refused and
// leaves nothing in the directory.
func TestPullRefusesCorrupt(t *testing.T) {
	ctx := context.Background()
	_, nc := natstest.Server(t)
	st, err := Open(ctx, nc, "tables")
	if err != nil {
		t.Fatal(err)
	}
	path := writeTable(t, t.TempDir(), "bad", 200_000)
	b, _ := os.ReadFile(path)
	b[len(b)-7] ^= 0x40
	js, _ := jetstream.New(nc)
	obs, _ := js.ObjectStore(ctx, "tables")
	if _, err := obs.PutBytes(ctx, filepath.Base(path), b); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if _, err := st.Pull(ctx, dst, filepath.Base(path)); !errors.Is(err, tables.ErrBadTable) {
		t.Fatalf("corrupt pull: %v", err)
	}
	if ents, _ := os.ReadDir(dst); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}
