package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/steer"
	"github.com/tessera-solver/tessera/internal/store"
)

func cancelCmd() *cobra.Command {
	return steerCmd(steer.Cancel, "cancel --batch B",
		"Cancel a batch: running solves stop within seconds, and every state not solved yet ends as a cancelled row",
		"cancel marks the batch cancelled in PostgreSQL and tells every solverd (through the NATS bucket\n"+
			queue.CancelledBucket+"). Solves of the batch that are running stop at once, on every solverd and in every\n"+
			"lane (a split search too), and end as rows with status cancelled that keep the nodes spent and the bound\n"+
			"proved; jobs still queued, parked by a pause, or delivered again are answered at once with cancelled rows.\n"+
			"Every state still ends as one row and the batch finishes. `results requeue --status cancelled` solves\n"+
			"them after all.")
}

func pauseCmd() *cobra.Command {
	return steerCmd(steer.Pause, "pause --batch B",
		"Pause a batch: no solver starts a job of it until `results unpause`",
		"pause marks the batch paused in PostgreSQL and tells every solverd (through the NATS bucket\n"+
			queue.PausedBucket+"). Within a second or two no solver starts a job of the batch: a job taken from the\n"+
			"queue is parked in the stream "+queue.ParkedStream+" instead, where it waits without spending its\n"+
			"deliveries however long the pause lasts. Jobs already running finish and are stored. The producer may\n"+
			"go on enqueuing into a paused batch. `results unpause` puts the parked jobs back.")
}

func unpauseCmd() *cobra.Command {
	return steerCmd(steer.Unpause, "unpause --batch B",
		"Unpause a batch: its parked jobs go back to the queue and the solvers take them again",
		"unpause takes the pause off the batch in PostgreSQL and NATS, then puts every job parked in\n"+
			queue.ParkedStream+" back on the queue, in the order they were parked (each solverd also returns the\n"+
			"parked jobs of batches no longer paused every few seconds, so nothing stays parked if this command is\n"+
			"interrupted).")
}

// steerCmd is one of the commands that change a batch's course
// (internal/steer: marked in PostgreSQL, then told to the solvers).
// Telling again is harmless, so a second run finishes what a first one
// could not tell.
func steerCmd(a steer.Action, use, short, long string) *cobra.Command {
	var batch int64
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("batch") {
				return usagef("--batch is required")
			}
			return withStore(cmd, func(cfg config.Config, st *store.Store) error {
				out, err := steer.Do(cmd.Context(), st, steer.Connect(cfg.NATS, "tessera-"+a.Verb()), a, batch)
				if err != nil {
					return err
				}
				if out.Noop != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "results: %s\n", out)
					return nil
				}
				fmt.Fprintln(cmd.OutOrStdout(), out)
				return nil
			})
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "batch id")
	return keyed(c, cancelKeys)
}
