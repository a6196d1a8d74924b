// Package tablestore keeps table files in a JetStream Object Store bucket,
// so that a new solver host pulls its tables instead of rebuilding them
// (the 15-puzzle's 7-8 set takes minutes and 1.6 GB to build; pulling it
// is a copy). Objects are named after the table file and carry the
// payload's SHA-256 in their metadata; every pulled file is checked
// against its own header before it is moved into place.
package tablestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/atomicfile"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/tables"
)

// ErrNotFound is wrapped when the bucket has no object of the name asked for.
var ErrNotFound = errors.New("table not in the bucket")

// Store is one Object Store bucket of table files.
type Store struct {
	bucket string
	obs    jetstream.ObjectStore
}

// Object describes a stored table file.
type Object struct {
	Name   string // file name, e.g. 15-pdb-78-a.g1.tbl
	Table  string // the table's name, e.g. 15-pdb-78-a (from the object's metadata)
	Size   uint64 // bytes of the whole file
	SHA256 string // of the table's payload, from the object's metadata
	// Digest is the object store's digest of the whole file: a new upload
	// of different bytes under the same name has another.
	Digest string
}

// Object metadata keys. Objects put by other tools lack them: Push then
// uploads again and Pull relies on the file's own header.
const (
	metaSHA   = "sha256"
	metaTable = "table"
)

// Deadlines used when the caller's context has none. The object store
// otherwise applies its 5 s API timeout to a whole download, which a
// 500 MB table does not survive.
const (
	pullBase    = time.Minute
	pullMinRate = 1 << 20 // bytes per second
	listTimeout = time.Minute
)

// Open binds the bucket, creating it (file storage, so it survives a
// server restart) with replicas (nats.replicas) when it does not exist. An
// existing bucket's configuration is left alone: replicas, limits and
// description are the operator's (`solverd queue apply` changes replicas),
// and a host with read-only permissions can still bind.
func Open(ctx context.Context, nc *nats.Conn, bucket string, replicas int) (*Store, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("table bucket %s: %w", bucket, err)
	}
	obs, err := queue.EnsureBucket(ctx, js, replicas, bucket, queue.ObjectStoreStream(bucket),
		func(ctx context.Context) (jetstream.ObjectStore, error) { return js.ObjectStore(ctx, bucket) },
		func(ctx context.Context) (jetstream.ObjectStore, error) {
			return js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{
				Bucket:      bucket,
				Description: "tessera precomputed tables (solverd tables push/pull)",
				Storage:     jetstream.FileStorage,
				Replicas:    replicas,
			})
		})
	if err != nil {
		return nil, fmt.Errorf("tables: %w", err)
	}
	return &Store{bucket: bucket, obs: obs}, nil
}

// Push uploads the table file at path unless the bucket already holds the
// same payload under its name; pushed says whether it uploaded. The file
// must pass the full table check first, so a corrupt local file never
// reaches other hosts. It is streamed, never read into memory whole.
func (s *Store) Push(ctx context.Context, path string) (pushed bool, err error) {
	name := filepath.Base(path)
	wrap := func(err error) error {
		return fmt.Errorf("push %s to bucket %s: %w", path, s.bucket, err)
	}
	m, err := tables.ReadMeta(path)
	if err != nil {
		return false, wrap(err)
	}
	if name != m.FileName() {
		// Pull would refuse it: the name is the table's identity.
		return false, wrap(fmt.Errorf("header names the table %s: %w", m.FileName(), tables.ErrBadTable))
	}
	f, err := os.Open(path)
	if err != nil {
		return false, wrap(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, wrap(err)
	}
	info, err := s.obs.GetInfo(ctx, name)
	switch {
	case err == nil && info.Metadata[metaSHA] == m.SHA256 && info.Size == uint64(fi.Size()):
		return false, nil
	case err != nil && !errors.Is(err, jetstream.ErrObjectNotFound):
		return false, wrap(err)
	}
	t, err := tables.Open(path, m, true)
	if err != nil {
		return false, wrap(err)
	}
	t.Close()
	_, err = s.obs.Put(ctx, jetstream.ObjectMeta{
		Name:        name,
		Description: m.Puzzle + " pattern " + m.Pattern,
		Metadata:    map[string]string{metaSHA: m.SHA256, metaTable: m.Name},
	}, f)
	if err != nil {
		return false, wrap(err)
	}
	return true, nil
}

// Pull downloads the table file fileName into dir and returns its path,
// replacing a file of that name. The download goes to a temporary file
// that must pass the full table check (header names fileName, payload
// checksum matches) before it is renamed into place, so dir never holds a
// partial or corrupt table. Without a deadline in ctx, the download gets
// one scaled to the object's size.
func (s *Store) Pull(ctx context.Context, dir, fileName string) (path string, err error) {
	wrap := func(err error) error {
		return fmt.Errorf("pull %s from bucket %s: %w", fileName, s.bucket, err)
	}
	// The name becomes a path in dir: refuse anything that could escape
	// it or that Scan would not list.
	if fileName != filepath.Base(fileName) || strings.HasPrefix(fileName, ".") || !strings.HasSuffix(fileName, tables.Ext) {
		return "", wrap(errors.New("not a table file name"))
	}
	info, err := s.obs.GetInfo(ctx, fileName)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", wrap(ErrNotFound)
	}
	if err != nil {
		return "", wrap(err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, pullBase+time.Duration(info.Size/pullMinRate)*time.Second)
		defer cancel()
	}
	res, err := s.obs.Get(ctx, fileName)
	if errors.Is(err, jetstream.ErrObjectNotFound) { // deleted since GetInfo
		return "", wrap(ErrNotFound)
	}
	if err != nil {
		return "", wrap(err)
	}
	defer res.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", wrap(err)
	}
	path = filepath.Join(dir, fileName)
	err = atomicfile.Write(path, 0o444, func(tmp *os.File) error {
		// The object store checks its own digest at the end of the read;
		// that only proves the bytes are the ones uploaded, hence the
		// table check before the file takes its name.
		if _, err := io.Copy(tmp, res); err != nil {
			return err
		}
		m, err := tables.ReadMeta(tmp.Name())
		if err != nil {
			return err
		}
		if m.FileName() != fileName {
			return fmt.Errorf("object holds table %s: %w", m.FileName(), tables.ErrBadTable)
		}
		if sum := info.Metadata[metaSHA]; sum != "" && sum != m.SHA256 {
			return fmt.Errorf("object metadata says payload SHA-256 %s, header says %s: %w", sum, m.SHA256, tables.ErrBadTable)
		}
		t, err := tables.Open(tmp.Name(), m, true)
		if err != nil {
			return err
		}
		return t.Close()
	})
	if err != nil {
		return "", wrap(err)
	}
	return path, nil
}

// List describes every table in the bucket, sorted by name. An empty
// bucket is an empty list.
func (s *Store) List(ctx context.Context) ([]Object, error) {
	// List waits on a watcher with no timeout of its own: bound it so a
	// stalled server cannot hang a solver's start.
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, listTimeout)
		defer cancel()
	}
	infos, err := s.obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list bucket %s: %w", s.bucket, err)
	}
	out := make([]Object, 0, len(infos))
	for _, in := range infos {
		out = append(out, Object{Name: in.Name, Table: in.Metadata[metaTable], Size: in.Size, SHA256: in.Metadata[metaSHA], Digest: in.Digest})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Changes signals (without blocking, coalescing bursts) every object put
// into the bucket from now on; deletions are not signalled. A put is
// signalled once the object is complete. The channel is closed when stop
// is called or the connection closes.
func (s *Store) Changes(ctx context.Context) (changed <-chan struct{}, stop func() error, err error) {
	w, err := s.obs.Watch(ctx, jetstream.UpdatesOnly(), jetstream.IgnoreDeletes())
	if err != nil {
		return nil, nil, fmt.Errorf("watch bucket %s: %w", s.bucket, err)
	}
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		// The watcher's callback blocks while its channel is full: drain
		// it always, signal at most one pending change.
		for info := range w.Updates() {
			if info == nil {
				continue
			}
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out, w.Stop, nil
}
