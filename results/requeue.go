package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/steer"
)

func requeueCmd() *cobra.Command {
	var batch int64
	var statuses string
	c := &cobra.Command{
		Use:   "requeue --batch B [--status budget_exceeded,failed,cancelled] (--timeout D | --budget-nodes N)",
		Short: "Solve a batch's unsolved states again with a bigger budget; better answers replace their rows",
		Long: "requeue publishes the batch's states with the given statuses (budget_exceeded and failed by\n" +
			"default) as new jobs with the budget given by --timeout and/or --budget-nodes (per state). As the\n" +
			"answers come in, `results run` replaces each row its answer improves (solved beats budget_exceeded,\n" +
			"which beats failed; a shorter or proved-optimal solution, or a higher proved bound, beats a\n" +
			"worse one of its kind) and moves the distance counts and batch counters with it, so they stay\n" +
			"exact. An answer that is no better leaves the row as it was. Jobs go to the lane their budget\n" +
			"puts them in (docs/PIPELINE-store.md, \"Budgets and lanes\"). A cancelled batch's jobs are answered\n" +
			"without being solved, so it is refused unless --status names cancelled: that takes the cancel off\n" +
			"the batch and solves its cancelled states (and any other status named) again.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("batch") {
				return usagef("--batch is required")
			}
			var want []result.Status
			for _, f := range strings.Split(statuses, ",") {
				st := result.Status(strings.TrimSpace(f))
				if !slices.Contains(steer.Requeueable, st) {
					return usagef("--status: %q cannot improve with more budget; give budget_exceeded, failed and/or cancelled", st)
				}
				want = append(want, st)
			}
			cfg, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			if cfg.Solver.Timeout <= 0 && cfg.Solver.MaxNodes <= 0 {
				return usagef("give the new budget: --timeout D and/or --budget-nodes N (per state)")
			}
			r := steer.Requeue{Batch: batch, Statuses: want, MaxNodes: cfg.Solver.MaxNodes, Timeout: cfg.Solver.Timeout, ChunkSize: cfg.Producer.ChunkSize, Asked: "--status"}
			done, err := steer.Solve(cmd.Context(), st, steer.Connect(cfg.NATS, "tessera-requeue"), r)
			if done.Uncancelled {
				fmt.Fprintf(cmd.ErrOrStderr(), "results: batch %d is no longer cancelled\n", batch)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), done.Line(r))
			return nil
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	c.Flags().StringVar(&statuses, "status", "budget_exceeded,failed", "statuses to solve again, comma separated")
	return keyed(c, requeueKeys)
}
