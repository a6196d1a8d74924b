package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/queue"
)

// queueCmd groups the operations on the shared JetStream setup.
func queueCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "queue",
		Short: "Apply the shared stream and consumer settings on the NATS server",
	}
	c.AddCommand(queueApplyCmd())
	return c
}

func queueApplyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "apply",
		Short: "Create or update the streams and the solverd consumers with this configuration's nats.* settings",
		Long: "The jobs consumers' settings (nats.max_deliver, nats.ack_wait) are shared by every solverd on the\n" +
			"server. solverd run creates them when they are missing but never rewrites them (it warns when its\n" +
			"own settings differ); this command is the one deliberate way to change them for all.\n\n" +
			"It also sets the replica count (nats.replicas) of every tessera stream, consumer and bucket (the\n" +
			"tables bucket, solver.tables_bucket or tessera-tables, when it exists), which no other command\n" +
			"changes, and waits until the new replicas are current.",
		Args: nArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := natsKeys.Load(c.Flags())
			if err != nil {
				return usageError{err}
			}
			qc := queueConfig(cfg.NATS)
			nc, err := queue.Connect(cfg.NATS.URL, "tessera-solverd-queue", queue.Auth(cfg.NATS.NATSAuth))
			if err != nil {
				return err
			}
			defer nc.Close()
			js, err := queue.New(nc)
			if err != nil {
				return err
			}
			ctx := c.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if err := queue.EnsureStreams(ctx, js, qc); err != nil {
				return fmt.Errorf("ensure streams: %w", err)
			}
			if err := queue.ApplyJobsConsumers(ctx, js, qc); err != nil {
				return err
			}
			if err := queue.EnsureCancelledBucket(ctx, js, qc); err != nil {
				return err
			}
			changed, err := queue.ApplyReplicas(ctx, js, qc, tablesBucketOf(cfg))
			for _, l := range changed {
				fmt.Fprintln(c.OutOrStdout(), l)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "replicas: %d for every stream, consumer and bucket\n", qc.Replicas)
			for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
				fmt.Fprintf(c.OutOrStdout(), "consumer %s: max_deliver %d, ack wait %v, backoff %v\n",
					queue.ConsumerOf(lane), qc.MaxDeliver, qc.AckWait, qc.BackOff)
			}
			return nil
		},
	}
	natsKeys.Bind(c.Flags())
	return c
}

// natsKeys are the config keys of `solverd queue apply` and `status`.
var natsKeys = config.Uses("nats", "solver.tables_bucket")

// tablesBucketOf is the tables bucket `solverd tables push|pull` uses.
func tablesBucketOf(cfg config.Config) string {
	if cfg.Solver.TablesBucket != "" {
		return cfg.Solver.TablesBucket
	}
	return defaultBucket
}
