package tablestore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/tables"
)

const bucket = "tables"

// writeTable writes a u8 table of n pseudo-random entries into dir.
func writeTable(t *testing.T, dir, name string, n int) (string, tables.Meta) {
	t.Helper()
	payload := make([]byte, n)
	x := uint32(n)
	for i := range payload {
		x = x*1664525 + 1013904223
		payload[i] = byte(x >> 24)
	}
	m := tables.Meta{Name: name, Puzzle: "sliding:4x4", Pattern: "1-2", Encoding: "u8", Entries: uint64(n), Generator: 1}
	path, full, err := tables.Write(dir, m, payload)
	if err != nil {
		t.Fatal(err)
	}
	return path, full
}

func open(t *testing.T) (*Store, *nats.Conn) {
	t.Helper()
	_, nc := natstest.Server(t)
	st, err := Open(context.Background(), nc, bucket, 1)
	if err != nil {
		t.Fatal(err)
	}
	return st, nc
}

// rawBucket is the bucket without the adapter, to plant objects.
func rawBucket(t *testing.T, nc *nats.Conn) jetstream.ObjectStore {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := js.ObjectStore(context.Background(), bucket)
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%s holds %v, want nothing", dir, ents)
	}
}

func TestPushPull(t *testing.T) {
	ctx := context.Background()
	st, nc := open(t)
	if objs, err := st.List(ctx); err != nil || len(objs) != 0 {
		t.Fatalf("empty bucket lists %v, %v", objs, err)
	}
	src, dst := t.TempDir(), t.TempDir()
	// 300 KB spans several of the object store's 128 KB chunks.
	small, smallMeta := writeTable(t, src, "small", 5000)
	big, bigMeta := writeTable(t, src, "big", 300_000)
	for _, p := range []string{small, big} {
		if pushed, err := st.Push(ctx, p); err != nil || !pushed {
			t.Fatalf("push %s: pushed=%v err=%v", p, pushed, err)
		}
		if pushed, err := st.Push(ctx, p); err != nil || pushed {
			t.Fatalf("second push of %s: pushed=%v err=%v, want a skip", p, pushed, err)
		}
	}
	if info, err := rawBucket(t, nc).GetInfo(ctx, filepath.Base(big)); err != nil || info.Chunks < 3 {
		t.Fatalf("big object: %+v, %v; want several chunks", info, err)
	}

	objs, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(big)
	want := []Object{
		{Name: "big.g1.tbl", Table: "big", Size: uint64(fi.Size()), SHA256: bigMeta.SHA256},
		{Name: "small.g1.tbl", Table: "small", Size: objs[1].Size, SHA256: smallMeta.SHA256},
	}
	if len(objs) != 2 || objs[0] != want[0] || objs[1] != want[1] {
		t.Fatalf("list: %+v, want %+v", objs, want)
	}

	for _, c := range []struct {
		path string
		meta tables.Meta
	}{{small, smallMeta}, {big, bigMeta}} {
		got, err := st.Pull(ctx, dst, filepath.Base(c.path))
		if err != nil {
			t.Fatal(err)
		}
		if got != filepath.Join(dst, filepath.Base(c.path)) {
			t.Fatalf("pulled to %s", got)
		}
		a, _ := os.ReadFile(c.path)
		b, _ := os.ReadFile(got)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s differs after the round trip", got)
		}
		tb, err := tables.Open(got, c.meta, true)
		if err != nil {
			t.Fatal(err)
		}
		tb.Close()
	}
	if ents, _ := os.ReadDir(dst); len(ents) != 2 {
		t.Fatalf("dst holds %v, want the two tables and no temporary files", ents)
	}
}

func TestPullMissing(t *testing.T) {
	st, _ := open(t)
	dst := t.TempDir()
	_, err := st.Pull(context.Background(), dst, "missing.g1.tbl")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing object: %v, want ErrNotFound", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "missing.g1.tbl") || !strings.Contains(msg, bucket) {
		t.Fatalf("error %q should name the file and the bucket", msg)
	}
	assertEmpty(t, dst)
}

// A corrupted object (same name, one payload byte flipped) is refused and
// leaves nothing in the directory; pushing the good file again heals it.
func TestPullRefusesCorrupt(t *testing.T) {
	ctx := context.Background()
	st, nc := open(t)
	path, _ := writeTable(t, t.TempDir(), "bad", 200_000)
	if _, err := st.Push(ctx, path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	b[len(b)-7] ^= 0x40
	if _, err := rawBucket(t, nc).PutBytes(ctx, filepath.Base(path), b); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if _, err := st.Pull(ctx, dst, filepath.Base(path)); !errors.Is(err, tables.ErrBadTable) {
		t.Fatalf("corrupt pull: %v, want ErrBadTable", err)
	}
	assertEmpty(t, dst)

	if pushed, err := st.Push(ctx, path); err != nil || !pushed {
		t.Fatalf("push over the corrupt object: pushed=%v err=%v", pushed, err)
	}
	if _, err := st.Pull(ctx, dst, filepath.Base(path)); err != nil {
		t.Fatal(err)
	}
}

// A valid table stored under another table's name is refused: the name
// is what solvers load it as.
func TestPullRefusesMisnamed(t *testing.T) {
	ctx := context.Background()
	st, nc := open(t)
	path, _ := writeTable(t, t.TempDir(), "other", 1000)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := rawBucket(t, nc).Put(ctx, jetstream.ObjectMeta{Name: "wanted.g1.tbl"}, f); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if _, err := st.Pull(ctx, dst, "wanted.g1.tbl"); !errors.Is(err, tables.ErrBadTable) {
		t.Fatalf("misnamed pull: %v, want ErrBadTable", err)
	}
	assertEmpty(t, dst)
}

func TestPullRefusesBadName(t *testing.T) {
	st, _ := open(t)
	for _, name := range []string{"../x.g1.tbl", "sub/x.g1.tbl", ".x.g1.tbl", "x.g1", ""} {
		if _, err := st.Pull(context.Background(), t.TempDir(), name); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("pull %q: %v, want a refusal of the name", name, err)
		}
	}
}

// A corrupt local file is not uploaded: it would spread to every host.
func TestPushRefusesCorrupt(t *testing.T) {
	ctx := context.Background()
	st, _ := open(t)
	path, _ := writeTable(t, t.TempDir(), "local", 10_000)
	b, _ := os.ReadFile(path)
	b[len(b)-1] ^= 1
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if pushed, err := st.Push(ctx, path); !errors.Is(err, tables.ErrBadTable) || pushed {
		t.Fatalf("push of a corrupt file: pushed=%v err=%v, want ErrBadTable", pushed, err)
	}
	if objs, err := st.List(ctx); err != nil || len(objs) != 0 {
		t.Fatalf("bucket holds %v, %v", objs, err)
	}
}

// Open binds an existing bucket without rewriting its configuration.
func TestOpenKeepsBucketConfig(t *testing.T) {
	ctx := context.Background()
	_, nc := natstest.Server(t)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := jetstream.ObjectStoreConfig{Bucket: bucket, Description: "operator's", MaxBytes: 1 << 30}
	if _, err := js.CreateObjectStore(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, nc, bucket, 1); err != nil {
		t.Fatal(err)
	}
	obs, err := js.ObjectStore(ctx, bucket)
	if err != nil {
		t.Fatal(err)
	}
	status, err := obs.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if status.Description() != "operator's" {
		t.Fatalf("description is %q after Open", status.Description())
	}
	if _, err := Open(ctx, nc, "bad bucket name", 1); err == nil || !strings.Contains(err.Error(), "bad bucket name") {
		t.Fatalf("invalid bucket name: %v", err)
	}
}

// The bucket is created at the replicas asked for (nats.replicas): on a
// three-node cluster at three, and on a single server asking for three is
// an error that says so.
func TestOpenReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nats-server processes (skipped with -short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, nc := natstest.Server(t)
	if _, err := Open(ctx, nc, bucket, 3); !errors.Is(err, queue.ErrReplicas) || !strings.Contains(err.Error(), "bucket "+bucket+": 3 replicas asked but a single NATS server") {
		t.Errorf("Open at 3 replicas on a single server: %v", err)
	}
	cl := natstest.StartCluster(t, 3)
	cnc := cl.Conn(t)
	if _, err := Open(ctx, cnc, bucket, 3); err != nil {
		t.Fatalf("Open at 3 replicas on a cluster: %v", err)
	}
	js, err := jetstream.New(cnc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, queue.ObjectStoreStream(bucket))
	if err != nil {
		t.Fatal(err)
	}
	if r := s.CachedInfo().Config.Replicas; r != 3 {
		t.Errorf("bucket created at %d replicas, want 3", r)
	}
}
