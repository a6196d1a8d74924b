package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/atomicfile"
	"github.com/tessera-solver/tessera/internal/parquetfile"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/version"
)

// formatParquet is the export format store.ParseFormat does not know: its
// writer is the Parquet adapter's, not the store's.
const formatParquet = "parquet"

var exportKeys = config.Uses("database", "results.export_row_group")

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
		Use:   "export (--batch ID | --puzzle P) [--length L] [--status S[,S]] [--format csv|jsonl|parquet] [--output FILE]",
		Short: "Write the solutions of a batch, or of every batch of a puzzle, in (batch, seq) order",
		Long: "CSV has a header row of the solutions columns; JSONL has one object per row\n" +
			"with the same keys. NULL (moves and length of unsolved rows, absent errors) is\n" +
			"an empty CSV field or JSON null. Parquet has the same columns, typed, NULL in\n" +
			"optional columns, zstd-compressed, in row groups of results.export_row_group rows\n" +
			"(what the export holds in memory), with the puzzle, batch, filters, tessera version\n" +
			"and time of writing in its key-value metadata (tessera.*).\n" +
			"--length keeps rows of that solution length (solved rows only), --status rows of\n" +
			"the given statuses (" + result.StatusNames() + ").",
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
			if format != formatParquet {
				if _, err := store.ParseFormat(format); err != nil {
					return usagef("--format %q: want csv, jsonl or parquet", format)
				}
			}
			toStdout := output == "" || output == "-"
			if format == formatParquet && toStdout && isTerminal(cmd.OutOrStdout()) {
				return usagef("--format parquet is binary: give --output FILE or redirect stdout")
			}
			return withStore(cmd, func(cfg config.Config, st *store.Store) error {
				write := func(w io.Writer) error {
					if format == formatParquet {
						return exportParquet(cmd, st, q, w, cfg.Results.ExportRowGroup)
					}
					return st.ExportRows(cmd.Context(), q, w, store.Format(format))
				}
				if toStdout {
					return write(cmd.OutOrStdout())
				}
				// Written beside the target and renamed, so a failed export never
				// leaves a truncated file under the requested name.
				return atomicfile.Write(output, 0o644, func(w *os.File) error { return write(w) })
			})
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	c.Flags().StringVar(&spec, "puzzle", "", "every batch of this puzzle (8, sliding:3x3, ...)")
	c.Flags().IntVar(&length, "length", 0, "only rows of this solution length")
	c.Flags().StringSliceVar(&statuses, "status", nil, "only rows of these statuses, comma-separated")
	c.Flags().StringVar(&format, "format", "csv", "csv, jsonl or parquet")
	c.Flags().StringVarP(&output, "output", "o", "", "file to write (default stdout)")
	return keyed(c, exportKeys)
}

// exportParquet writes q's rows to w as one Parquet file. The puzzle is
// looked up first, so a missing batch or puzzle fails before a byte is
// written.
func exportParquet(cmd *cobra.Command, st *store.Store, q store.ExportQuery, w io.Writer, rowGroup int) error {
	ctx := cmd.Context()
	spec, err := st.ExportPuzzle(ctx, q)
	if err != nil {
		return err
	}
	pw, err := parquetfile.NewWriter(w, rowGroup, parquetfile.Meta{
		Puzzle: spec, Version: version.Short(), Batch: q.Batch, Filters: q.Filters(), Created: time.Now(),
	})
	if err != nil {
		return fmt.Errorf("export %s: %w", q, err)
	}
	if err := st.EachSolution(ctx, q, pw.Write); err != nil {
		return err
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("export %s: %w", q, err)
	}
	return nil
}

// isTerminal reports whether w is a terminal, where binary output would
// be garbage on the screen.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
