package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// exactCmd stores an exact distribution read from stdin, as `solverd bfs`
// prints it, so `results dist` and the status page can show it beside the
// sampled one (the results binary links no solver: the BFS runs in
// solverd, piped in).
func exactCmd() *cobra.Command {
	var spec string
	c := &cobra.Command{
		Use:   "exact --puzzle P < 'depth count' lines",
		Short: "Store a puzzle's exact distance distribution: solverd bfs --puzzle P | results exact --puzzle P",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sp, err := puzzle.ParseSpec(spec)
			if err != nil {
				return usageError{Err: err}
			}
			counts, err := readDepthCounts(cmd.InOrStdin())
			if err != nil {
				return err
			}
			_, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.SetExact(cmd.Context(), sp.String(), counts, "solverd bfs"); err != nil {
				return err
			}
			var total int64
			for _, n := range counts {
				total += n
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exact distribution of %s stored: %d states, depths 0 to %d\n", sp, total, len(counts)-1)
			return nil
		},
	}
	c.Flags().StringVarP(&spec, "puzzle", "p", "", "puzzle the distribution is of, e.g. 8 or sliding:2x5")
	return keyed(c, dbKeys)
}

// readDepthCounts reads "depth count" lines, depths 0, 1, … in order,
// as solverd bfs prints them; the goal is alone at depth 0.
func readDepthCounts(r interface{ Read([]byte) (int, error) }) ([]int64, error) {
	var counts []int64
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want 'depth count', got %q", ln, sc.Text())
		}
		d, err1 := strconv.Atoi(f[0])
		n, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil || d != len(counts) || n < 0 {
			return nil, fmt.Errorf("line %d: want depth %d and a count, got %q", ln, len(counts), sc.Text())
		}
		counts = append(counts, n)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read distribution: %w", err)
	}
	if len(counts) == 0 || counts[0] != 1 {
		return nil, fmt.Errorf("not a distance distribution: want '0 1' (the goal) first")
	}
	return counts, nil
}
