package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/atomicfile"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

func exportCmd() *cobra.Command {
	var (
		batch    int64
		spec     string
		length   int
		statuses []string
		format   string
		output   string
	)
	c := &cobra.Command{
		Use:   "export (--batch ID | --puzzle P) [--length L] [--status S[,S]] [--format csv|jsonl] [--output FILE]",
		Short: "Write the solutions of a batch, or of every batch of a puzzle, in (batch, seq) order",
		Long: "CSV has a header row of the solutions columns; JSONL has one object per row\n" +
			"with the same keys. NULL (moves and length of unsolved rows, absent errors) is\n" +
			"an empty CSV field or JSON null. --length keeps rows of that solution length\n" +
			"(solved rows only), --status rows of the given statuses (" + result.StatusNames() + ").",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("batch") == cmd.Flags().Changed("puzzle") {
				return usagef("give exactly one of --batch and --puzzle")
			}
			q := store.ExportQuery{Batch: batch, Puzzle: spec}
			if cmd.Flags().Changed("batch") && batch == 0 {
				return usagef("--batch 0: batch ids start at 1")
			}
			if cmd.Flags().Changed("puzzle") {
				if _, err := puzzle.ParseSpec(spec); err != nil {
					return usageError{Err: fmt.Errorf("--puzzle: %w", err)}
				}
			}
			if cmd.Flags().Changed("length") {
				if length < 0 {
					return usagef("--length %d: want 0 or more", length)
				}
				q.Length = &length
			}
			for _, s := range statuses {
				if !result.Status(s).Valid() {
					return usagef("--status %q: want one of %s", s, result.StatusNames())
				}
				q.Statuses = append(q.Statuses, s)
			}
			f, err := store.ParseFormat(format)
			if err != nil {
				return usageError{Err: err}
			}
			return withStore(cmd, func(_ config.Config, st *store.Store) error {
				if output == "" || output == "-" {
					return st.ExportRows(cmd.Context(), q, cmd.OutOrStdout(), f)
				}
				// Written beside the target and renamed, so a failed export never
				// leaves a truncated file under the requested name.
				return atomicfile.Write(output, 0o644, func(w *os.File) error {
					return st.ExportRows(cmd.Context(), q, w, f)
				})
			})
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	c.Flags().StringVar(&spec, "puzzle", "", "every batch of this puzzle (8, sliding:3x3, ...)")
	c.Flags().IntVar(&length, "length", 0, "only rows of this solution length")
	c.Flags().StringSliceVar(&statuses, "status", nil, "only rows of these statuses, comma-separated")
	c.Flags().StringVar(&format, "format", "csv", "csv or jsonl")
	c.Flags().StringVarP(&output, "output", "o", "", "file to write (default stdout)")
	return keyed(c, dbKeys)
}
