package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/tables"
)

func init() { extraCommands = append(extraCommands, tablesCmd) }

// tablesCmd manages the precomputed tables of this host (solver.tables_dir).
func tablesCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "tables",
		Short: "List and verify the precomputed tables in the tables directory (--tables-dir)",
	}
	config.BindFlags(c.PersistentFlags())
	c.AddCommand(tablesListCmd(), tablesVerifyCmd())
	return c
}

func tablesDir(c *cobra.Command) (string, error) {
	cfg, err := config.Load("", c.Flags())
	if err != nil {
		return "", usageError{err}
	}
	return cfg.Solver.TablesDir, nil
}

func tablesListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "One line per table file: name, puzzle, pattern, entries, size, mean value, build time",
		Args:  nArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			dir, err := tablesDir(c)
			if err != nil {
				return err
			}
			infos, err := tables.Scan(dir)
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			if len(infos) == 0 {
				fmt.Fprintf(c.ErrOrStderr(), "no tables in %s\n", dir)
				return nil
			}
			fmt.Fprintf(out, "%-20s %-14s %-16s %14s %10s %6s %9s\n", "name", "puzzle", "pattern", "entries", "size", "mean", "build")
			bad := 0
			for _, in := range infos {
				if in.Err != nil {
					bad++
					fmt.Fprintf(c.ErrOrStderr(), "%v\n", in.Err)
					continue
				}
				mean, err := tableMean(in)
				if err != nil {
					bad++
					fmt.Fprintf(c.ErrOrStderr(), "%v\n", err)
					continue
				}
				m := in.Meta
				fmt.Fprintf(out, "%-20s %-14s %-16s %14d %10s %6.3f %9s\n", m.Name, m.Puzzle, m.Pattern, m.Entries,
					humanBytes(in.Size), mean, (time.Duration(m.BuildMS) * time.Millisecond).String())
			}
			if bad > 0 {
				return errRejected
			}
			return nil
		},
	}
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
			dir, err := tablesDir(c)
			if err != nil {
				return err
			}
			infos, err := tables.Scan(dir)
			if err != nil {
				return err
			}
			bad := 0
			for _, in := range infos {
				if err := verifyOne(c.OutOrStdout(), in); err != nil {
					bad++
					fmt.Fprintln(c.ErrOrStderr(), err)
				}
			}
			fmt.Fprintf(c.OutOrStdout(), "%d tables, %d bad\n", len(infos), bad)
			if bad > 0 {
				return errRejected
			}
			return nil
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
	fmt.Fprintf(w, "ok %s (%s)\n", in.Meta.Name, humanBytes(in.Size))
	return nil
}

func humanBytes(n int64) string {
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
