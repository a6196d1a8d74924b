package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/tableservice"
	"github.com/tessera-solver/tessera/internal/tablestore"
	"github.com/tessera-solver/tessera/tables"
)

// namedBucket is what push and pull share: their configuration, the file
// names of the tables or sets named (tableservice.FileNames) and the open bucket,
// closed by done.
func namedBucket(c *cobra.Command, names []string) (cfg config.Config, want map[string]bool, st *tablestore.Store, done func(), err error) {
	if cfg, err = syncKeys.Load(c.Flags()); err != nil {
		return cfg, nil, nil, nil, usageError{Err: err}
	}
	if want, err = tableservice.FileNames(names); err != nil {
		return cfg, nil, nil, nil, usageError{Err: err}
	}
	st, done, err = tableservice.OpenBucket(c.Context(), cfg)
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
				fmt.Fprintf(c.OutOrStdout(), "%s %s (%s)\n", verb, name, tableservice.HumanBytes(in.Size))
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
			got, err := tableservice.PullMissing(c.Context(), st, cfg.Solver.TablesDir, want, c.OutOrStdout())
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
