package main

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

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/tablestore"
	"github.com/tessera-solver/tessera/tables"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// defaultBucket is the bucket of `tables push/pull` when solver.tables_bucket
// is not set (at start, an unset bucket means "do not pull").
const defaultBucket = "tessera-tables"

func openBucket(ctx context.Context, cfg config.Config) (*tablestore.Store, func(), error) {
	bucket := cfg.Solver.TablesBucket
	if bucket == "" {
		bucket = defaultBucket
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

// namedBucket is what push and pull share: their configuration, the file
// names of the tables or sets named (fileNames) and the open bucket,
// closed by done.
func namedBucket(c *cobra.Command, names []string) (cfg config.Config, want map[string]bool, st *tablestore.Store, done func(), err error) {
	if cfg, err = syncKeys.Load(c.Flags()); err != nil {
		return cfg, nil, nil, nil, usageError{Err: err}
	}
	if want, err = fileNames(names); err != nil {
		return cfg, nil, nil, nil, usageError{Err: err}
	}
	st, done, err = openBucket(c.Context(), cfg)
	return cfg, want, st, done, err
}

func tablesPushCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "push [NAME...]",
		Short: "Upload tables of the tables directory (all, or the named tables/sets) to the JetStream Object Store bucket (--tables-bucket)",
		RunE: func(c *cobra.Command, args []string) error {
			cfg, want, st, done, err := namedBucket(c, args)
			if err != nil {
				return err
			}
			defer done()
			infos, err := tables.Scan(cfg.Solver.TablesDir)
			if err != nil {
				return err
			}
			n := 0
			for _, in := range infos {
				name := filepath.Base(in.Path)
				if _, named := want[name]; want != nil && !named {
					continue
				}
				if in.Err != nil {
					return in.Err
				}
				n++
				pushed, err := st.Push(c.Context(), in.Path)
				if err != nil {
					return err
				}
				verb := "pushed"
				if !pushed {
					verb = "bucket has"
				}
				fmt.Fprintf(c.OutOrStdout(), "%s %s (%s)\n", verb, name, humanBytes(in.Size))
			}
			if n == 0 {
				return fmt.Errorf("no tables to push in %s", cfg.Solver.TablesDir)
			}
			return nil
		},
	}
}

func tablesPullCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "pull [NAME...]",
		Short: "Download tables missing from the tables directory (all in the bucket, or the named tables/sets) from the Object Store bucket",
		RunE: func(c *cobra.Command, args []string) error {
			cfg, want, st, done, err := namedBucket(c, args)
			if err != nil {
				return err
			}
			defer done()
			got, err := pullMissing(c.Context(), st, cfg.Solver.TablesDir, want, c.OutOrStdout())
			if err != nil {
				return err
			}
			if got == 0 {
				fmt.Fprintln(c.ErrOrStderr(), "nothing to pull")
			}
			return nil
		},
	}
}

// fileNames maps table or set names to their tables' file names, each
// marked required unless it is an optional table named only through its
// set (a bucket filled before that table existed still serves the set);
// no names is nil (every table).
func fileNames(names []string) (map[string]bool, error) {
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

// pullMissing pulls the tables of want (nil: every table in the bucket)
// that dir lacks. A required table the bucket lacks is an error, found
// before anything is pulled.
func pullMissing(ctx context.Context, st *tablestore.Store, dir string, want map[string]bool, out io.Writer) (int, error) {
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
		fmt.Fprintf(out, "pulled %s (%s)\n", path, humanBytes(int64(o.Size)))
	}
	return n, nil
}

// startupPull fetches missing tables before solverd run loads them, when
// a bucket is configured: the named sets, or with auto every table in the
// bucket. Failure to reach the bucket is logged, not fatal: the host still
// solves with what it has.
func startupPull(ctx context.Context, cfg config.Config, log *slog.Logger) {
	if cfg.Solver.TablesBucket == "" {
		return
	}
	want, err := bucketWant(cfg.Solver.Tables)
	if err != nil {
		return // LoadTables reports the unknown name
	}
	st, done, err := openBucket(ctx, cfg)
	if err != nil {
		log.Warn("cannot reach the table bucket; using local tables", "bucket", cfg.Solver.TablesBucket, "err", err)
		return
	}
	defer done()
	w := &logWriter{log: log}
	if _, err := pullMissing(ctx, st, cfg.Solver.TablesDir, want, w); err != nil {
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
	return fileNames(names)
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
