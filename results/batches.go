package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/store"
)

func batchesCmd() *cobra.Command {
	var limit int
	var asJSON bool
	c := &cobra.Command{
		Use:   "batches",
		Short: "List recent batches with their progress",
		Long: "enqueued is how many states are surely enqueued: the producer's mark (recorded once a second;\n" +
			"`producer resume` starts there) or the rows stored, when more. A batch is stalled when its enqueue\n" +
			"is unfinished and nothing was enqueued or stored for 30 s. A split search's progress (producer --split:\n" +
			"iteration, bound, subtrees answered of total, nodes, lower bound) is read from NATS and shown under\n" +
			"its batch; without NATS the batches are shown without it (a line on stderr says so).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, func(cfg config.Config, st *store.Store) error {
				bs, err := st.Batches(cmd.Context(), limit)
				if err != nil {
					return err
				}
				splits, err := splitProgress(cmd.Context(), cfg)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "results: split searches' progress not shown: %v\n", err)
				}
				out := cmd.OutOrStdout()
				now := time.Now()
				if asJSON {
					enc := json.NewEncoder(out)
					for _, b := range bs {
						v := struct {
							store.Batch
							State           string      `json:"state"`
							EnqueuedAtLeast int64       `json:"enqueued_at_least"`
							Splits          []splitView `json:"splits,omitempty"` // producer --split
						}{Batch: b, State: b.State(now), EnqueuedAtLeast: b.EnqueuedAtLeast()}
						for _, r := range splits[b.ID] {
							v.Splits = append(v.Splits, newSplitView(r))
						}
						if err := enc.Encode(v); err != nil {
							return err
						}
					}
					return nil
				}
				fmt.Fprintf(out, "%-6s %-14s %-7s %-9s %10s %10s %10s %8s %8s %s\n", "id", "puzzle", "mode", "state", "enqueued", "done", "total", "solved", "other", "finished")
				stalled := 0
				for _, b := range bs {
					total, fin := "?", "-"
					if b.Total >= 0 {
						total = fmt.Sprint(b.Total)
					}
					if b.FinishedAt != nil {
						fin = b.FinishedAt.Format(time.RFC3339)
					}
					state := b.State(now)
					if state == "stalled" {
						stalled++
					}
					fmt.Fprintf(out, "%-6d %-14s %-7s %-9s %10d %10d %10s %8d %8d %s\n", b.ID, b.Puzzle, b.Mode, state, b.EnqueuedAtLeast(), b.Done, total, b.Solved, b.Done-b.Solved, fin)
					for _, r := range splits[b.ID] {
						subs, end, took := splitText(r)
						if end == "running" {
							end = "running for " + took
						}
						fmt.Fprintf(out, "       split state %d: iteration %d, bound %d, subtrees %s, %d nodes, lower bound %d, %s\n", r.Seq, r.Iteration, r.Bound, subs, r.Nodes, r.Lower, end)
					}
				}
				if stalled > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "%d stalled: their producer stopped before enqueuing every state (nothing enqueued or stored for %s); `producer resume ID` finishes them\n", stalled, store.StallAfter)
				}
				return nil
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", 20, "how many batches, newest first")
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON object per batch")
	return keyed(c, cancelKeys) // NATS: the split searches' progress
}
