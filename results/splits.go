package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/internal/queue"
)

// splitsCmd is `results splits`: the progress of split searches (producer
// --split), read from their records in the NATS bucket tessera-split.
func splitsCmd() *cobra.Command {
	var batch int64
	var asJSON bool
	c := &cobra.Command{
		Use:   "splits [--batch B] [--json]",
		Short: "Progress of split searches (producer --split): iteration, subtrees answered of total, nodes",
		Long: "splits reads the record of every split search (or of one batch's) from the NATS bucket " + queue.SplitBucket + ":\n" +
			"the iteration and its bound, the subtrees of the iteration answered of those laid out ('-' while\n" +
			"the next is being laid out), the nodes so far (each subtree once), the lower bound proved, and how\n" +
			"it ended (solved, budget, cancelled, failed; running while it runs, and then how long it has run).",
		Example: "  results splits\n  results splits --batch 7 --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, st, err := setup(cmd)
			if err != nil {
				return err
			}
			st.Close() // the records are in NATS
			nc, err := queue.Connect(cfg.NATS.URL, "tessera-results-splits", queue.Auth(cfg.NATS.NATSAuth))
			if err != nil {
				return err
			}
			defer nc.Close()
			js, err := queue.New(nc)
			if err != nil {
				return err
			}
			rs, err := queue.ListSplits(cmd.Context(), js, batch)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				for _, r := range rs {
					v := struct {
						Batch     int64  `json:"batch"`
						Seq       int64  `json:"seq"`
						State     string `json:"state"`
						Iteration int    `json:"iteration"`
						Bound     int    `json:"bound"`
						Answered  int    `json:"subtrees_answered"`
						Total     int    `json:"subtrees"` // -1 while the iteration is being laid out
						Nodes     int64  `json:"nodes"`
						Lower     int    `json:"lower_bound"`
						End       string `json:"end"`
						Started   string `json:"started"`
					}{r.Batch, r.Seq, r.State, r.Iteration, r.Bound, r.Count, r.Total, r.Nodes, r.Lower, r.End, r.Started.Format(time.RFC3339)}
					if err := enc.Encode(v); err != nil {
						return err
					}
				}
				return nil
			}
			fmt.Fprintf(out, "%-6s %-6s %-9s %-5s %15s %15s %-5s %-9s %s\n", "batch", "seq", "iteration", "bound", "subtrees", "nodes", "lower", "end", "running for")
			for _, r := range rs {
				subs := "-"
				if r.Laid() {
					subs = fmt.Sprintf("%d/%d", r.Count, r.Total)
				}
				end, took := r.End, time.Since(r.Started).Round(time.Second).String()
				if end == "" {
					end = "running"
				} else {
					took = "-"
				}
				fmt.Fprintf(out, "%-6d %-6d %-9d %-5d %15s %15d %-5d %-9s %s\n", r.Batch, r.Seq, r.Iteration, r.Bound, subs, r.Nodes, r.Lower, end, took)
			}
			return nil
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "only this batch's split searches")
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON object per split search")
	return keyed(c, cancelKeys)
}
