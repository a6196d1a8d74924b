package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
)

// requeueable are the statuses a bigger budget can improve; cancelled
// only when asked for by name (it takes the cancel off the batch).
var requeueable = []result.Status{result.StatusBudgetExceeded, result.StatusFailed, result.StatusCancelled}

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
				if !slices.Contains(requeueable, st) {
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
			ctx := cmd.Context()
			b, err := st.BatchProgress(ctx, batch)
			if err != nil {
				return err
			}
			uncancel := b.CancelledAt != nil && slices.Contains(want, result.StatusCancelled)
			if b.CancelledAt != nil && !uncancel {
				// Solvers answer every job of a cancelled batch without
				// solving it, so the requeued jobs would change no row.
				return fmt.Errorf("batch %d was cancelled at %s: its jobs are answered as cancelled without being solved, so a requeue would change nothing; "+
					"add cancelled to --status to take the cancel off the batch and solve them",
					batch, b.CancelledAt.UTC().Format(time.RFC3339))
			}
			spec, err := puzzle.ParseSpec(b.Puzzle)
			if err != nil {
				return fmt.Errorf("batch %d: %w", batch, err)
			}
			if spec.Family().TakesGoal() {
				// Solving toward the standard goal could "improve" a row
				// that was solved toward another.
				return fmt.Errorf("batch %d: requeue of swap boards is not supported: the batch's goal is not stored", batch)
			}
			mode, err := result.ParseMode(b.Mode)
			if err != nil {
				return fmt.Errorf("batch %d: %w", batch, err)
			}
			conn, err := cmdkit.Connect(cfg.NATS, "tessera-requeue")
			if err != nil {
				return err
			}
			defer conn.Close()
			js := conn.JS
			if err := conn.Ensure(ctx); err != nil {
				return err
			}
			if uncancel {
				// NATS first: a batch unmarked in PostgreSQL but still
				// cancelled for the solvers would answer the new jobs unsolved.
				if err := queue.UncancelBatch(ctx, js, conn.Queue, batch); err != nil {
					return err
				}
				if _, err := st.UncancelBatch(ctx, batch); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "results: batch %d is no longer cancelled\n", batch)
			}
			proto := job.Job{V: job.Version, BatchID: batch, Puzzle: b.Puzzle, Mode: string(mode),
				Budget: job.NewBudget(cfg.Solver.MaxNodes, cfg.Solver.Timeout), Replace: true, Priority: job.Priority(b.Priority)}
			chunk := policy.ChunkSize(spec, mode, cfg.Producer.ChunkSize, conn.NC.MaxPayload())
			// Job ids carry the time of this requeue, so the server's
			// duplicate window does not mistake them for the first run's.
			tag := time.Now().UTC().Format("20060102T150405.000")
			pub := queue.NewPublisher(js, 256)
			var states, jobs int64
			var cur job.Job
			flush := func() error {
				if len(cur.States) == 0 {
					return nil
				}
				cur.ID = fmt.Sprintf("%d-%d-r%s", batch, cur.FirstSeq, tag)
				jobs++
				err := pub.Publish(ctx, cur)
				cur.States = nil
				return err
			}
			err = st.EachState(ctx, batch, want, func(seq int64, state string) error {
				// A job covers consecutive sequence numbers.
				if len(cur.States) == chunk || len(cur.States) > 0 && cur.FirstSeq+int64(len(cur.States)) != seq {
					if err := flush(); err != nil {
						return err
					}
				}
				if len(cur.States) == 0 {
					cur = proto
					cur.FirstSeq = seq
				}
				cur.States = append(cur.States, state)
				states++
				return nil
			})
			if err == nil {
				err = flush()
			}
			if err == nil {
				err = pub.Flush(ctx)
			}
			if err != nil {
				return fmt.Errorf("requeue batch %d: %w", batch, err)
			}
			lane := policy.LaneOf(spec, mode, proto.Timeout()) // as the publisher routes them
			fmt.Fprintf(cmd.OutOrStdout(), "requeued %d states of batch %d (%s) in %d jobs on the %s lane\n", states, batch, strings.Join(strings.Split(statuses, ","), ", "), jobs, lane)
			return nil
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	c.Flags().StringVar(&statuses, "status", "budget_exceeded,failed", "statuses to solve again, comma separated")
	return keyed(c, requeueKeys)
}
