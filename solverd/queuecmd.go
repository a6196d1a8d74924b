package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/queue"
)

// queueCmd groups the operations on the shared JetStream setup.
func queueCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "queue",
		Short: "Apply the shared stream and consumer settings on the NATS server, or show their status",
	}
	c.AddCommand(queueApplyCmd(), queueStatusCmd())
	return c
}

func queueStatusCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "Show every tessera stream and consumer: replicas, leader, messages, pending, stranded",
		Long: "Reads (never changes) TESSERA_JOBS, TESSERA_RESULTS, TESSERA_DEAD, the cancel bucket and the tables\n" +
			"bucket (solver.tables_bucket or tessera-tables, when present): replicas, leader and followers\n" +
			"(current, lag, offline), messages, bytes, first and last sequence; each durable consumer's pending,\n" +
			"ack pending, redelivered, waiting pulls and ack floor; and, for the jobs and results streams, the\n" +
			"messages stranded below a consumer's ack floor, by the sweeps' rule (they act on those seen twice,\n" +
			"a minute apart). --json prints the same as one JSON object (docs/ARCHITECTURE.md lists the fields).",
		Args: nArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			return withQueue(c, func(ctx context.Context, cfg config.Config, conn *cmdkit.Conn) error {
				st, err := queue.CollectStatus(ctx, conn.JS, tablesBucketOf(cfg))
				if err != nil {
					return err
				}
				if asJSON {
					enc := json.NewEncoder(c.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(st)
				}
				printStatus(c.OutOrStdout(), st)
				return nil
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of tables")
	natsKeys.Bind(c.Flags())
	return c
}

// printStatus writes st as two tables, streams then consumers.
func printStatus(w io.Writer, st queue.Status) {
	fmt.Fprintf(w, "server: %s\n\n", st.Server)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STREAM\tKIND\tREPLICAS\tLEADER\tFOLLOWERS\tMESSAGES\tBYTES\tFIRST\tLAST\tSTRANDED")
	for _, s := range st.Streams {
		if s.Missing {
			fmt.Fprintf(tw, "%s\t%s\tmissing\t\t\t\t\t\t\t\n", s.Name, s.Kind)
			continue
		}
		if s.Error != "" && s.Replicas == 0 {
			fmt.Fprintf(tw, "%s\t%s\tno answer: %s\t\t\t\t\t\t\t\n", s.Name, s.Kind, s.Error)
			continue
		}
		stranded := "-"
		switch {
		case s.Stranded < 0:
			stranded = "unknown"
		case s.Name == queue.JobsStream || s.Name == queue.ResultsStream:
			stranded = strconv.Itoa(s.Stranded)
		}
		if s.StrandedError != "" {
			stranded += " (" + s.StrandedError + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", s.Name, s.Kind, s.Replicas, orDash(s.Leader),
			followers(s.Peers), s.Messages, s.Bytes, s.FirstSeq, s.LastSeq, stranded)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONSUMER\tREPLICAS\tLEADER\tFOLLOWERS\tPENDING\tACK PENDING\tREDELIVERED\tWAITING\tACK FLOOR\tDELIVERED")
	for _, s := range st.Streams {
		for _, c := range s.Consumer {
			fmt.Fprintf(tw, "%s/%s\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", s.Name, c.Name, c.Replicas, orDash(c.Leader),
				followers(c.Peers), c.Pending, c.AckPending, c.Redelivered, c.Waiting, c.AckFloor, c.Delivered)
		}
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// followers is "n0 current, n2 offline, n1 behind, lag 12", or "-".
func followers(ps []queue.PeerStatus) string {
	if len(ps) == 0 {
		return "-"
	}
	var parts []string
	for _, p := range ps {
		state := "current"
		switch {
		case p.Offline:
			state = "offline"
		case !p.Current && p.Lag > 0:
			state = fmt.Sprintf("behind, lag %d", p.Lag)
		case !p.Current:
			state = "not current"
		}
		parts = append(parts, p.Name+" "+state)
	}
	return strings.Join(parts, ", ")
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
			return withQueue(c, func(ctx context.Context, cfg config.Config, conn *cmdkit.Conn) error {
				js, qc := conn.JS, conn.Queue
				if err := queue.EnsureStreams(ctx, js, qc); err != nil {
					return fmt.Errorf("ensure streams: %w", err)
				}
				if err := queue.ApplyJobsConsumers(ctx, js, qc); err != nil {
					return err
				}
				if err := queue.EnsureControlBuckets(ctx, js, qc); err != nil {
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
			})
		},
	}
	natsKeys.Bind(c.Flags())
	return c
}

// withQueue loads the keys of a `solverd queue` command, connects, runs
// f and closes the connection.
func withQueue(c *cobra.Command, f func(context.Context, config.Config, *cmdkit.Conn) error) error {
	cfg, err := natsKeys.Load(c.Flags())
	if err != nil {
		return usageError{Err: err}
	}
	conn, err := cmdkit.Connect(cfg.NATS, "tessera-solverd-queue")
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx := c.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return f(ctx, cfg, conn)
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
