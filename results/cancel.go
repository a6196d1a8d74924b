package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/store"
)

func cancelCmd() *cobra.Command {
	return steerCmd(steer{
		use:   "cancel --batch B",
		short: "Cancel a batch: running solves stop within seconds, and every state not solved yet ends as a cancelled row",
		long: "cancel marks the batch cancelled in PostgreSQL and tells every solverd (through the NATS bucket\n" +
			queue.CancelledBucket + "). Solves of the batch that are running stop at once, on every solverd and in every\n" +
			"lane (a split search too), and end as rows with status cancelled that keep the nodes spent and the bound\n" +
			"proved; jobs still queued, parked by a pause, or delivered again are answered at once with cancelled rows.\n" +
			"Every state still ends as one row and the batch finishes. `results requeue --status cancelled` solves\n" +
			"them after all.",
		mark: (*store.Store).CancelBatch,
		tell: func(ctx context.Context, conn *cmdkit.Conn, batch int64) (string, error) {
			if err := queue.CancelBatch(ctx, conn.JS, conn.Queue, batch, time.Now()); err != nil {
				return "", err
			}
			// The cancel ended the pause: its parked jobs are answered now.
			if err := queue.UnpauseBatch(ctx, conn.JS, conn.Queue, batch); err != nil {
				return "", err
			}
			n, err := queue.Unpark(ctx, conn.JS, batch)
			return parkedNote(n, "returned to be answered as cancelled"), err
		},
		done: func(b store.Batch) bool { return b.CancelledAt != nil },
		noop: "is finished: nothing to cancel",
		verb: "cancelled",
		redo: "the solvers were not told",
	})
}

func pauseCmd() *cobra.Command {
	return steerCmd(steer{
		use:   "pause --batch B",
		short: "Pause a batch: no solver starts a job of it until `results unpause`",
		long: "pause marks the batch paused in PostgreSQL and tells every solverd (through the NATS bucket\n" +
			queue.PausedBucket + "). Within a second or two no solver starts a job of the batch: a job taken from the\n" +
			"queue is parked in the stream " + queue.ParkedStream + " instead, where it waits without spending its\n" +
			"deliveries however long the pause lasts. Jobs already running finish and are stored. The producer may\n" +
			"go on enqueuing into a paused batch. `results unpause` puts the parked jobs back.",
		mark: (*store.Store).PauseBatch,
		tell: func(ctx context.Context, conn *cmdkit.Conn, batch int64) (string, error) {
			return "", queue.PauseBatch(ctx, conn.JS, conn.Queue, batch, time.Now())
		},
		done: func(b store.Batch) bool { return b.PausedAt != nil },
		noop: "is not running: nothing to pause",
		verb: "paused",
		redo: "the solvers were not told",
	})
}

func unpauseCmd() *cobra.Command {
	return steerCmd(steer{
		use:   "unpause --batch B",
		short: "Unpause a batch: its parked jobs go back to the queue and the solvers take them again",
		long: "unpause takes the pause off the batch in PostgreSQL and NATS, then puts every job parked in\n" +
			queue.ParkedStream + " back on the queue, in the order they were parked (each solverd also returns the\n" +
			"parked jobs of batches no longer paused every few seconds, so nothing stays parked if this command is\n" +
			"interrupted).",
		mark: (*store.Store).UnpauseBatch,
		tell: func(ctx context.Context, conn *cmdkit.Conn, batch int64) (string, error) {
			if err := queue.UnpauseBatch(ctx, conn.JS, conn.Queue, batch); err != nil {
				return "", err
			}
			n, err := queue.Unpark(ctx, conn.JS, batch)
			return parkedNote(n, "back in the queue"), err
		},
		done: func(b store.Batch) bool { return b.PausedAt == nil },
		noop: "is not paused", // never said: the row always ends unpaused
		verb: "unpaused",
		redo: "its jobs were not all returned to the queue",
	})
}

func parkedNote(n int, where string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d parked jobs %s)", n, where)
}

// steer is one of the commands that change a batch's course: the change
// is marked in PostgreSQL first (what `results batches` shows), then told
// to the solvers through NATS. Telling again is harmless, so a second run
// finishes what a first one could not tell.
type steer struct {
	use, short, long string
	// mark changes the batch's row; false when there was nothing to change.
	mark func(*store.Store, context.Context, int64) (bool, error)
	// tell tells the solvers; its string is added to the line printed.
	tell func(context.Context, *cmdkit.Conn, int64) (string, error)
	// done: the batch is in the state the command leads to (else it could
	// not take the change: finished, or cancelled).
	done func(store.Batch) bool
	// noop is said (exit 0) when the batch cannot take the change.
	noop, verb, redo string
}

func steerCmd(s steer) *cobra.Command {
	var batch int64
	c := &cobra.Command{
		Use:   s.use,
		Short: s.short,
		Long:  s.long,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("batch") {
				return usagef("--batch is required")
			}
			return withStore(cmd, func(cfg config.Config, st *store.Store) error {
				ctx := cmd.Context()
				if _, err := s.mark(st, ctx, batch); err != nil {
					return err
				}
				b, err := st.BatchProgress(ctx, batch)
				if err != nil {
					return err
				}
				if !s.done(b) {
					fmt.Fprintf(cmd.ErrOrStderr(), "results: batch %d %s\n", batch, s.noop)
					return nil
				}
				// Told again on a second run: a first one may have failed
				// to reach NATS after marking the batch.
				conn, err := cmdkit.Connect(cfg.NATS, "tessera-"+s.verb)
				if err != nil {
					return fmt.Errorf("batch %d is marked %s, but %s (run the command again): %w", batch, s.verb, s.redo, err)
				}
				defer conn.Close()
				note, err := s.tell(ctx, conn, batch)
				if err != nil {
					return fmt.Errorf("batch %d is marked %s, but %s (run the command again): %w", batch, s.verb, s.redo, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "batch %d %s%s\n", batch, s.verb, note)
				return nil
			})
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	return keyed(c, cancelKeys)
}
