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

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

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
	Size   uint64
	SHA256 string // of the table's payload, from the object's metadata
}

// Open creates the bucket if needed (file storage, so it survives a server
// restart) and returns it.
func Open(ctx context.Context, nc *nats.Conn, bucket string) (*Store, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("table bucket %s: %w", bucket, err)
	}
	obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket:      bucket,
		Description: "tessera precomputed tables (solverd tables push/pull)",
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("table bucket %s: %w", bucket, err)
	}
	return &Store{bucket: bucket, obs: obs}, nil
}

const (
	metaSHA   = "sha256"
	metaTable = "table"
)

// Push uploads the table file at path unless the bucket already holds the
// same payload under its name; pushed says whether it uploaded. The file
// is streamed, never read into memory whole.
func (s *Store) Push(ctx context.Context, path string) (pushed bool, err error) {
	m, err := tables.ReadMeta(path)
	if err != nil {
		return false, fmt.Errorf("push %s: %w", path, err)
	}
	name := filepath.Base(path)
	if name != m.FileName() {
		return false, fmt.Errorf("push %s: header names the table %s: %w", path, m.FileName(), tables.ErrBadTable)
	}
	if info, err := s.obs.GetInfo(ctx, name); err == nil && info.Metadata[metaSHA] == m.SHA256 {
		return false, nil
	} else if err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return false, fmt.Errorf("push %s to bucket %s: %w", name, s.bucket, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("push %s: %w", path, err)
	}
	defer f.Close()
	_, err = s.obs.Put(ctx, jetstream.ObjectMeta{
		Name:        name,
		Description: m.Puzzle + " pattern " + m.Pattern,
		Metadata:    map[string]string{metaSHA: m.SHA256, metaTable: m.Name},
	}, f)
	if err != nil {
		return false, fmt.Errorf("push %s to bucket %s: %w", name, s.bucket, err)
	}
	return true, nil
}

// Pull downloads the table file fileName into dir and returns its path.
// The download goes to a temporary file that must pass the full table
// check (header and payload checksum) before it is renamed into place, so
// dir never holds a partial or corrupt table.
func (s *Store) Pull(ctx context.Context, dir, fileName string) (path string, err error) {
	wrap := func(err error) error {
		return fmt.Errorf("pull %s from bucket %s: %w", fileName, s.bucket, err)
	}
	res, err := s.obs.Get(ctx, fileName)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", wrap(ErrNotFound)
	}
	if err != nil {
		return "", wrap(err)
	}
	defer res.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", wrap(err)
	}
	tmp, err := os.CreateTemp(dir, "."+fileName+".pull-*")
	if err != nil {
		return "", wrap(err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// The object store checks its own digest at the end of the read.
	if _, err := io.Copy(tmp, res); err != nil {
		return "", wrap(err)
	}
	if err := tmp.Sync(); err != nil {
		return "", wrap(err)
	}
	if err := tmp.Close(); err != nil {
		return "", wrap(err)
	}
	m, err := tables.ReadMeta(tmp.Name())
	if err != nil {
		return "", wrap(err)
	}
	if m.FileName() != fileName {
		return "", wrap(fmt.Errorf("object holds table %s: %w", m.FileName(), tables.ErrBadTable))
	}
	t, err := tables.Open(tmp.Name(), m, true)
	if err != nil {
		return "", wrap(err)
	}
	if err := t.Close(); err != nil {
		return "", wrap(err)
	}
	// Tables are read-only on disk like the ones tables.Write makes.
	if err := os.Chmod(tmp.Name(), 0o444); err != nil {
		return "", wrap(err)
	}
	path = filepath.Join(dir, fileName)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", wrap(err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the rename durable; best effort where unsupported
		d.Close()
	}
	return path, nil
}

// List describes every table in the bucket.
func (s *Store) List(ctx context.Context) ([]Object, error) {
	infos, err := s.obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list bucket %s: %w", s.bucket, err)
	}
	out := make([]Object, 0, len(infos))
	for _, in := range infos {
		out = append(out, Object{Name: in.Name, Size: in.Size, SHA256: in.Metadata[metaSHA]})
	}
	return out, nil
}
