package tableservice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/tablestore"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// DefaultBucket is the bucket of `tables push/pull` when solver.tables_bucket
// is not set (at start, an unset bucket means "do not pull").
const DefaultBucket = "tessera-tables"

// OpenBucket connects to NATS with cfg and opens the table bucket
// (solver.tables_bucket, or DefaultBucket); the func closes both.
func OpenBucket(ctx context.Context, cfg config.Config) (*tablestore.Store, func(), error) {
	bucket := cfg.Solver.TablesBucket
	if bucket == "" {
		bucket = DefaultBucket
	}
	conn, err := cmdkit.Connect(cfg.NATS, "tessera-solverd-tables")
	if err != nil {
		return nil, nil, err
	}
	st, err := tablestore.Open(ctx, conn.NC, bucket, cfg.NATS.Replicas)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return st, conn.Close, nil
}

// FileNames maps table or set names to their tables' file names, each
// marked required unless it is an optional table named only through its
// set (a bucket filled before that table existed still serves the set);
// no names is nil (every table).
func FileNames(names []string) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	ts, err := catalog.Resolve(names)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, t := range ts {
		out[t.Meta.FileName()] = !t.Optional || slices.Contains(names, t.Meta.Name)
	}
	return out, nil
}

// PullMissing pulls the tables of want (nil: every table in the bucket)
// that dir lacks. A required table the bucket lacks is an error, found
// before anything is pulled.
func PullMissing(ctx context.Context, st *tablestore.Store, dir string, want map[string]bool, out io.Writer) (int, error) {
	objs, err := st.List(ctx)
	if err != nil {
		return 0, err
	}
	have := map[string]bool{}
	for _, o := range objs {
		have[o.Name] = true
	}
	todo := map[string]bool{}
	if want == nil {
		todo = have
	} else {
		var missing []string
		for name, required := range want {
			if required && !have[name] {
				missing = append(missing, name)
			}
			todo[name] = true
		}
		if len(missing) > 0 {
			return 0, fmt.Errorf("%w: %s", tablestore.ErrNotFound, strings.Join(missing, ", "))
		}
	}
	n := 0
	for _, o := range objs {
		if !todo[o.Name] || exists(filepath.Join(dir, o.Name)) {
			continue
		}
		path, err := st.Pull(ctx, dir, o.Name)
		if err != nil {
			return n, err
		}
		n++
		fmt.Fprintf(out, "pulled %s (%s)\n", path, HumanBytes(int64(o.Size)))
	}
	return n, nil
}

// StartupPull fetches missing tables before solverd run loads them, when
// a bucket is configured: the named sets, or with auto every table in the
// bucket. Failure to reach the bucket is logged, not fatal: the host still
// solves with what it has.
func StartupPull(ctx context.Context, cfg config.Config, log *slog.Logger) {
	if cfg.Solver.TablesBucket == "" {
		return
	}
	want, err := bucketWant(cfg.Solver.Tables)
	if err != nil {
		return // LoadTables reports the unknown name
	}
	st, done, err := OpenBucket(ctx, cfg)
	if err != nil {
		log.Warn("cannot reach the table bucket; using local tables", "bucket", cfg.Solver.TablesBucket, "err", err)
		return
	}
	defer done()
	w := &logWriter{log: log}
	if _, err := PullMissing(ctx, st, cfg.Solver.TablesDir, want, w); err != nil {
		level := slog.LevelWarn
		if errors.Is(err, tablestore.ErrNotFound) {
			level = slog.LevelInfo
		}
		log.Log(ctx, level, "table pull incomplete", "bucket", cfg.Solver.TablesBucket, "err", err)
	}
}

// bucketWant is the files solverd run pulls for solver.tables (tables):
// those of the named sets, or with auto (or none) every table in the
// bucket (nil).
func bucketWant(tables string) (map[string]bool, error) {
	var names []string
	for _, n := range strings.Split(tables, ",") {
		if n = strings.TrimSpace(n); n != "" && n != "auto" && n != "none" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	return FileNames(names)
}

type logWriter struct{ log *slog.Logger }

func (w *logWriter) Write(p []byte) (int, error) {
	w.log.Info(strings.TrimSpace(string(p)))
	return len(p), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// HumanBytes is n in B, KiB, MiB or GiB, for the table commands' lines.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
