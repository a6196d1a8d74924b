package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/queue"
)

func cancelCmd() *cobra.Command {
	var batch int64
	c := &cobra.Command{
		Use:   "cancel --batch B",
		Short: "Cancel a batch: its states not solved yet are answered as failed (\"batch B was cancelled\")",
		Long: "cancel marks the batch cancelled in PostgreSQL and tells every solverd (through the NATS bucket\n" +
			queue.CancelledBucket + "). Jobs of the batch still queued, or delivered again, are answered at once\n" +
			"with failed rows giving the reason instead of being solved, so every state still ends as one row and\n" +
			"the batch finishes; states being solved when the cancel arrives finish normally.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("batch") {
				return usagef("--batch is required")
			}
			cfg, st, err := setup(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			ctx := cmd.Context()
			if _, err := st.CancelBatch(ctx, batch); err != nil {
				return err
			}
			b, err := st.BatchProgress(ctx, batch)
			if err != nil {
				return err
			}
			if b.CancelledAt == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "results: batch %d is finished: nothing to cancel\n", batch)
				return nil
			}
			// Told again on a second cancel: a first one may have failed
			// to reach NATS after marking the batch.
			conn, err := cmdkit.Connect(cfg.NATS, "tessera-cancel")
			if err != nil {
				return fmt.Errorf("batch %d is marked cancelled, but the solvers were not told: %w", batch, err)
			}
			defer conn.Close()
			if err := queue.CancelBatch(ctx, conn.JS, conn.Queue, batch, time.Now()); err != nil {
				return fmt.Errorf("batch %d is marked cancelled, but the solvers were not told: %w", batch, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "batch %d cancelled\n", batch)
			return nil
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	return keyed(c, cancelKeys)
}
