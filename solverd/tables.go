package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/progress"
	"github.com/tessera-solver/tessera/internal/tableservice"
	"github.com/tessera-solver/tessera/tables"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// tablesCmd manages the precomputed tables of this host (solver.tables_dir).
func tablesCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "tables",
		Short: "Build, list, verify, push and pull the precomputed tables in the tables directory (--tables-dir)",
	}
	for _, sub := range []*cobra.Command{tablesBuildCmd(), tablesListCmd(), tablesVerifyCmd()} {
		tablesKeys.Bind(sub.Flags())
		c.AddCommand(sub)
	}
	for _, sub := range []*cobra.Command{tablesPushCmd(), tablesPullCmd()} {
		syncKeys.Bind(sub.Flags())
		c.AddCommand(sub)
	}
	return c
}

// The config keys of the tables commands: the directory, and for push
// and pull the bucket and NATS.
var (
	tablesKeys = config.Uses("solver.tables_dir")
	syncKeys   = config.Uses("solver.tables_dir", "solver.tables_bucket", "nats")
)

func tablesDir(c *cobra.Command) (string, error) {
	cfg, err := tablesKeys.Load(c.Flags())
	if err != nil {
		return "", usageError{Err: err}
	}
	return cfg.Solver.TablesDir, nil
}

func tablesBuildCmd() *cobra.Command {
	var all, force bool
	c := &cobra.Command{
		Use:   "build (NAME... | --all)",
		Short: "Build tables or table sets by name (e.g. 15-pdb-78) into the tables directory",
		Long: `Build tables or whole table sets into the tables directory. Tables already
present are skipped unless --force. Known sets:
` + knownSets(),
		RunE: func(c *cobra.Command, args []string) error {
			if all == (len(args) > 0) {
				return usagef("name tables or sets to build, or give --all (known sets: %s)", strings.Join(catalog.SetNames(), ", "))
			}
			if all {
				args = catalog.SetNames()
			}
			todo, err := catalog.Resolve(args)
			if err != nil {
				return usageError{Err: err}
			}
			dir, err := tablesDir(c)
			if err != nil {
				return err
			}
			out, errw := c.OutOrStdout(), c.ErrOrStderr()
			for _, t := range todo {
				if !force && t.Present(dir) {
					fmt.Fprintf(out, "have %s (%s)\n", t.Meta.Name, t.Path(dir))
					continue
				}
				fmt.Fprintf(errw, "building %s: %s pattern %s, %d entries (%s)\n", t.Meta.Name, t.Meta.Puzzle, t.Meta.Pattern, t.Meta.Entries, t.Cost)
				t0 := time.Now()
				report, stop := buildProgress(errw, t.Meta.Name)
				path, m, err := catalog.Build(c.Context(), dir, t, report)
				stop()
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "built %s in %s: %s, %s\n", m.Name, time.Since(t0).Round(time.Millisecond), path, tableservice.HumanBytes(int64(m.Bytes)))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "build every known table")
	c.Flags().BoolVar(&force, "force", false, "rebuild tables that are already present")
	return c
}

func knownSets() string {
	var b strings.Builder
	for _, s := range catalog.Sets() {
		count := fmt.Sprintf("%d tables", len(s.Tables))
		if len(s.Tables) == 1 {
			count = "1 table"
		}
		fmt.Fprintf(&b, "  %-12s %s; %s, %s\n", s.Name, s.About, count, s.Tables[0].Cost)
	}
	return b.String()
}

// buildProgress reports a table build: a bar on a terminal, elsewhere
// (logs, CI) a line every 10 s with the placements done, the rate and the
// time left. Call the returned stop when the build ends.
func buildProgress(w io.Writer, name string) (catalog.Progress, func()) {
	var m *progress.Meter
	return func(done, total uint64) {
			if m == nil {
				m = progress.New(w, name, "placements", int64(total), progress.Options{})
			}
			m.Set(int64(done))
		}, func() {
			if m != nil {
				m.Finish()
			}
		}
}

func tablesListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "One line per table file: name, puzzle, pattern, entries, size, mean value, build time",
		Args:  nArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			dir, infos, err := scanTables(c)
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			if len(infos) == 0 {
				fmt.Fprintf(c.ErrOrStderr(), "no tables in %s\n", dir)
				return nil
			}
			fmt.Fprintf(out, "%-20s %-14s %-16s %14s %10s %6s %9s\n", "name", "puzzle", "pattern", "entries", "size", "mean", "build")
			return eachTable(c, infos, func(in tables.Info) error {
				if in.Err != nil {
					return in.Err
				}
				mean, err := tableMean(in)
				if err != nil {
					return err
				}
				m := in.Meta
				fmt.Fprintf(out, "%-20s %-14s %-16s %14d %10s %6.3f %9s\n", m.Name, m.Puzzle, m.Pattern, m.Entries,
					tableservice.HumanBytes(in.Size), mean, (time.Duration(m.BuildMS) * time.Millisecond).String())
				return nil
			}, nil)
		},
	}
}

// scanTables reads the header of every table file in the command's
// tables directory.
func scanTables(c *cobra.Command) (dir string, infos []tables.Info, err error) {
	if dir, err = tablesDir(c); err != nil {
		return "", nil, err
	}
	infos, err = tables.Scan(dir)
	return dir, infos, err
}

// eachTable runs f on every table, printing each refusal on stderr, then
// done (when not nil) with the count of refusals; any refusal makes the
// command exit 1 (errRejected).
func eachTable(c *cobra.Command, infos []tables.Info, f func(tables.Info) error, done func(bad int)) error {
	bad := 0
	for _, in := range infos {
		if err := f(in); err != nil {
			bad++
			fmt.Fprintln(c.ErrOrStderr(), err)
		}
	}
	if done != nil {
		done(bad)
	}
	if bad > 0 {
		return errRejected
	}
	return nil
}

func tableMean(in tables.Info) (float64, error) {
	t, err := tables.Open(in.Path, in.Meta, false)
	if err != nil {
		return 0, err
	}
	defer t.Close()
	return t.Mean(), nil
}

func tablesVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check every table file's layout and payload checksum; exit 1 if any is bad",
		Args:  nArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			_, infos, err := scanTables(c)
			if err != nil {
				return err
			}
			return eachTable(c, infos, func(in tables.Info) error { return verifyOne(c.OutOrStdout(), in) }, func(bad int) {
				fmt.Fprintf(c.OutOrStdout(), "%d tables, %d bad\n", len(infos), bad)
			})
		},
	}
}

func verifyOne(w io.Writer, in tables.Info) error {
	if in.Err != nil {
		return in.Err
	}
	t, err := tables.Open(in.Path, in.Meta, true)
	if err != nil {
		return err
	}
	t.Close()
	fmt.Fprintf(w, "ok %s (%s)\n", in.Meta.Name, tableservice.HumanBytes(in.Size))
	return nil
}
