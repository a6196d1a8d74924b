package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/atomicfile"
	"github.com/tessera-solver/tessera/internal/plot"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/store"
)

func distCmd() *cobra.Command {
	var (
		batch  int64
		spec   string
		asJSON bool
		svg    string
	)
	c := &cobra.Command{
		Use:   "dist (--batch ID | --puzzle P) [--json] [--svg FILE]",
		Short: "Print the histogram of optimal solution lengths",
		Long: "Prints one `length count` line per length that occurs, ascending, then `total N`,\n" +
			"`mean M`, `sd S`, `ci95 LO HI` (the 95 % confidence interval of the mean, for a uniform\n" +
			"sample) and `max L` lines. Only proved-optimal solutions count (fast-mode answers do\n" +
			"not). --puzzle counts the puzzle's distinct states over every batch, and adds `exact mean\n" +
			"M (N states)` when the exact distribution is stored (results exact).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			hasBatch, hasPuzzle := cmd.Flags().Changed("batch"), cmd.Flags().Changed("puzzle")
			if hasBatch == hasPuzzle {
				return usagef("give exactly one of --batch and --puzzle")
			}
			return withStore(cmd, func(_ config.Config, st *store.Store) error {
				var d, exact store.Distribution
				var err error
				if hasBatch {
					d, err = st.BatchDistribution(cmd.Context(), batch)
				} else if d, err = st.PuzzleDistribution(cmd.Context(), spec); err == nil {
					exact, err = st.ExactDistribution(cmd.Context(), spec)
				}
				if err != nil {
					return err
				}
				if svg != "" {
					title := fmt.Sprintf("%s: optimal lengths", canonicalSpec(spec))
					if hasBatch {
						title = fmt.Sprintf("batch %d: optimal lengths", batch)
					}
					err := atomicfile.Write(svg, 0o644, func(f *os.File) error {
						return plot.Histogram(f, title, series("sampled", d), series("exact", exact))
					})
					if err != nil {
						return err
					}
				}
				out := cmd.OutOrStdout()
				if asJSON {
					v := struct {
						store.Distribution
						Exact *store.Distribution `json:"exact,omitempty"`
					}{Distribution: d}
					if exact.Total > 0 {
						v.Exact = &exact
					}
					return json.NewEncoder(out).Encode(v)
				}
				for _, c := range d.Counts {
					fmt.Fprintf(out, "%d %d\n", c.Length, c.Count)
				}
				fmt.Fprintf(out, "total %d\n", d.Total)
				if d.Total > 0 {
					fmt.Fprintf(out, "mean %.4f\nsd %.4f\nci95 %.4f %.4f\nmax %d\n", d.Mean, d.SD, d.CI95[0], d.CI95[1], d.Max)
				}
				if exact.Total > 0 {
					fmt.Fprintf(out, "exact mean %.4f (%d states)\n", exact.Mean, exact.Total)
				}
				return nil
			})
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	c.Flags().StringVarP(&spec, "puzzle", "p", "", "puzzle, e.g. sliding:3x3 or 8 (all its batches)")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead")
	c.Flags().StringVar(&svg, "svg", "", "also draw the histogram (and the exact distribution, when stored) as an SVG file")
	return keyed(c, dbKeys)
}

// series is a distribution as plot draws it.
func series(name string, d store.Distribution) plot.Series {
	s := plot.Series{Name: name, Counts: map[int]int64{}}
	for _, c := range d.Counts {
		s.Counts[c.Length] = c.Count
	}
	return s
}

// canonicalSpec is spec as stored ("8" → "sliding:3x3"), or spec itself.
func canonicalSpec(spec string) string {
	if sp, err := puzzle.ParseSpec(spec); err == nil {
		return sp.String()
	}
	return spec
}
