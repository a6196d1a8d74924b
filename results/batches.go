package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/result"
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
							AgeS            float64     `json:"age_s"`
							RowsPerS        float64     `json:"rows_per_s"`
							ETAS            *float64    `json:"eta_s"`            // null when not running or unknown
							Splits          []splitView `json:"splits,omitempty"` // producer --split
						}{Batch: b, State: b.State(now), EnqueuedAtLeast: b.EnqueuedAtLeast(),
							AgeS: now.Sub(b.CreatedAt).Seconds(), RowsPerS: b.Rate(now)}
						if d, ok := b.ETA(now); ok {
							v.ETAS = ptr(d.Seconds())
						}
						for _, r := range splits[b.ID] {
							v.Splits = append(v.Splits, newSplitView(r))
						}
						if err := enc.Encode(v); err != nil {
							return err
						}
					}
					return nil
				}
				fmt.Fprintf(out, "%-5s %-14s %-7s %-6s %-9s %7s %9s %9s %9s", "id", "puzzle", "mode", "prio", "state", "age", "enqueued", "done", "total")
				for _, s := range result.Statuses() {
					fmt.Fprintf(out, " %*s", statusWidth(s), statusHead(s))
				}
				fmt.Fprintf(out, " %9s %8s\n", "rows/s", "eta")
				stalled := 0
				for _, b := range bs {
					total := "?"
					if b.Total >= 0 {
						total = fmt.Sprint(b.Total)
					}
					state := b.State(now)
					if state == "stalled" {
						stalled++
					}
					eta := "-"
					if d, ok := b.ETA(now); ok {
						eta = shortDuration(d)
					}
					fmt.Fprintf(out, "%-5d %-14s %-7s %-6s %-9s %7s %9d %9d %9s", b.ID, b.Puzzle, b.Mode, b.Priority, state,
						shortDuration(now.Sub(b.CreatedAt)), b.EnqueuedAtLeast(), b.Done, total)
					for i, s := range result.Statuses() {
						fmt.Fprintf(out, " %*d", statusWidth(s), b.ByStatus()[i])
					}
					fmt.Fprintf(out, " %9.1f %8s\n", b.Rate(now), eta)
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

// statusHead is a status's column heading in `results batches`.
func statusHead(s result.Status) string {
	if s == result.StatusBudgetExceeded {
		return "budget"
	}
	return string(s)
}

func statusWidth(s result.Status) int { return max(len(statusHead(s)), 7) }

// shortDuration is d to the second, in its two largest units.
func shortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

func ptr[T any](v T) *T { return &v }
