package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/tableservice"
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
	var (
		asJSON, check bool
		monitor       string
		timeout       time.Duration
		limits        = queue.DefaultCheckLimits()
		fullPercent   = limits.FullAt * 100
	)
	c := &cobra.Command{
		Use:   "status",
		Short: "Show every tessera stream and consumer: replicas, leader, messages, pending, stranded; --check for cron and alerting",
		Long: "Reads (never changes) TESSERA_JOBS, TESSERA_RESULTS, TESSERA_DEAD, the cancel and split buckets and the\n" +
			"tables bucket (solver.tables_bucket or tessera-tables, when present): replicas, leader and followers\n" +
			"(current, lag, offline), messages, bytes against the byte limit, first and last sequence; each durable\n" +
			"consumer's pending, ack pending, redelivered, waiting pulls and ack floor; and, for the jobs and results\n" +
			"streams, the messages stranded below a consumer's ack floor, by the sweeps' rule (they act on those seen\n" +
			"twice, a minute apart). Servers are counted by name: every URL the client knows, listed or advertised,\n" +
			"is asked which server answers there; a follower whose server answers at none is offline. Each request\n" +
			"waits at most --timeout, and what did not answer is named. --monitor-url lists the servers' monitoring\n" +
			"endpoints (http://host:8222), to compare each server's own copy of a stream with its leader's (only\n" +
			"they show it without the system account). --json prints the same as one JSON object\n" +
			"(docs/ARCHITECTURE.md lists the fields).\n\n" +
			"--check prints one line, \"ok\", and exits 0 when nothing is wrong; otherwise it names each problem on\n" +
			"stderr and exits 1: a stream missing or not answering, a stream or consumer without a leader, a replica\n" +
			"offline, more than --max-lag operations behind or unheard of for --max-unseen, messages stranded (seen\n" +
			"twice, a moment apart), a stream at --full-at percent of its byte limit, a server's copy disagreeing\n" +
			"with its leader's, a listed server or monitoring endpoint not answering. For cron and alerting, as\n" +
			"`nats server check jetstream`.",
		Args: nArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if fullPercent <= 0 || fullPercent > 100 {
				return usageError{Err: fmt.Errorf("--full-at: want a percentage above 0 and at most 100, got %v", fullPercent)}
			}
			if timeout <= 0 {
				return usageError{Err: fmt.Errorf("--timeout: want a positive duration, got %v", timeout)}
			}
			limits.FullAt = fullPercent / 100
			return withQueue(c, func(ctx context.Context, cfg config.Config, conn *cmdkit.Conn) error {
				o := queue.StatusOptions{ObjectBuckets: []string{tablesBucketOf(cfg)}, Timeout: timeout}
				for _, u := range strings.Split(monitor, ",") {
					if u = strings.TrimSpace(u); u != "" {
						o.MonitorURLs = append(o.MonitorURLs, u)
					}
				}
				st, err := queue.CollectStatus(ctx, conn.JS, o)
				if err != nil {
					return err
				}
				if check && st.Unsettled() {
					// Stranded messages and disagreeing copies can be an
					// ack in flight: a problem only when seen again.
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-time.After(recheckAfter):
					}
					later, err := queue.CollectStatus(ctx, conn.JS, o)
					if err != nil {
						return err
					}
					st = queue.Confirm(st, later)
				}
				if check {
					problems := st.Problems(limits)
					for _, p := range problems {
						fmt.Fprintln(c.ErrOrStderr(), p)
					}
					if len(problems) > 0 {
						noun := "problems"
						if len(problems) == 1 {
							noun = "problem"
						}
						return fmt.Errorf("queue status --check: %d %s (%s)", len(problems), noun, st.Server)
					}
					fmt.Fprintf(c.OutOrStdout(), "ok: %s, %d streams\n", st.Server, len(st.Streams))
					return nil
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
	c.Flags().BoolVar(&check, "check", false, "print \"ok\" and exit 0 when healthy, else name each problem on stderr and exit 1")
	c.Flags().Uint64Var(&limits.MaxLag, "max-lag", limits.MaxLag, "with --check: operations a replica may be behind its leader")
	c.Flags().DurationVar(&limits.Unseen, "max-unseen", limits.Unseen, "with --check: how long a replica's leader may not hear from it")
	c.Flags().Float64Var(&fullPercent, "full-at", fullPercent, "with --check: percent of its byte limit at which a stream is reported near full")
	c.Flags().DurationVar(&timeout, "timeout", queue.DefaultStatusTimeout, "how long each request (a server, a stream, a monitoring endpoint) is waited for")
	c.Flags().StringVar(&monitor, "monitor-url", "", "the servers' monitoring endpoints, comma separated (http://nats-1:8222,...), to compare each server's copy of a stream")
	natsKeys.Bind(c.Flags())
	return c
}

// recheckAfter is how long --check waits before looking again at what can
// be passing: messages stranded, copies that disagree.
var recheckAfter = 2 * time.Second

// printStatus writes st as tables: servers, streams, consumers, and each
// server's copy of the streams when read.
func printStatus(w io.Writer, st queue.Status) {
	fmt.Fprintf(w, "server: %s\n", st.Server)
	for _, s := range st.Servers {
		if s.Name != "" {
			fmt.Fprintf(w, "  %s at %s\n", s.Name, s.URL)
		} else {
			fmt.Fprintf(w, "  no answer at %s: %s\n", s.URL, s.Error)
		}
	}
	for _, n := range st.Missing {
		fmt.Fprintf(w, "  %s: named by the streams, answers at no known URL\n", n)
	}
	for _, e := range st.MonitorErrors {
		fmt.Fprintf(w, "  %s\n", e)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STREAM\tKIND\tREPLICAS\tLEADER\tFOLLOWERS\tMESSAGES\tBYTES\tLIMIT\tFIRST\tLAST\tSTRANDED")
	for _, s := range st.Streams {
		if s.Missing {
			fmt.Fprintf(tw, "%s\t%s\tmissing\t\t\t\t\t\t\t\t\n", s.Name, s.Kind)
			continue
		}
		if s.Error != "" && s.Replicas == 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\t\t\t\t\t\t\t\n", s.Name, s.Kind, s.Error)
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
		limit := "-"
		if s.MaxBytes > 0 {
			limit = fmt.Sprintf("%d (%.0f%%)", s.MaxBytes, 100*float64(s.Bytes)/float64(s.MaxBytes))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%d\t%s\t%d\t%d\t%s\n", s.Name, s.Kind, s.Replicas, orDash(s.Leader),
			followers(s.Peers), s.Messages, s.Bytes, limit, s.FirstSeq, s.LastSeq, stranded)
	}
	tw.Flush()
	for _, s := range st.Streams {
		if s.Error != "" && s.Replicas != 0 {
			fmt.Fprintf(w, "%s: %s\n", s.Name, s.Error)
		}
	}
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
	copies := false
	for _, s := range st.Streams {
		copies = copies || len(s.Copies) > 0
	}
	if !copies {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COPY\tROLE\tMESSAGES\tBYTES\tFIRST\tLAST\tAGREES")
	for _, s := range st.Streams {
		for _, c := range s.Copies {
			role, agrees := "follower", "yes"
			if c.Leader {
				role = "leader"
			}
			if c.Disagrees {
				agrees = fmt.Sprintf("no: leader holds %d", s.Messages)
			}
			fmt.Fprintf(tw, "%s on %s\t%s\t%d\t%d\t%d\t%d\t%s\n", s.Name, c.Server, role, c.Messages, c.Bytes, c.FirstSeq, c.LastSeq, agrees)
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
		case p.NoAnswer:
			state = "offline (no answer)"
		case p.Offline:
			state = "offline"
		case !p.Current && p.Lag > 0:
			state = fmt.Sprintf("behind, lag %d", p.Lag)
		case !p.Current:
			state = fmt.Sprintf("not current, seen %v ago", (time.Duration(p.ActiveMS) * time.Millisecond).Round(100*time.Millisecond))
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
			"changes, and waits until the new replicas are current; and the byte limit (nats.max_bytes, with\n" +
			"discard-new) of TESSERA_JOBS, TESSERA_RESULTS and TESSERA_DEAD, never below what a stream holds.",
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
				// A stream holding more than the new limit keeps its own
				// (said at the end); the replicas are applied regardless.
				limited, limitErr := queue.ApplyMaxBytes(ctx, js, qc)
				for _, l := range limited {
					fmt.Fprintln(c.OutOrStdout(), l)
				}
				changed, err := queue.ApplyReplicas(ctx, js, qc, tablesBucketOf(cfg))
				for _, l := range changed {
					fmt.Fprintln(c.OutOrStdout(), l)
				}
				if err != nil {
					return errors.Join(err, limitErr)
				}
				fmt.Fprintf(c.OutOrStdout(), "replicas: %d for every stream, consumer and bucket\n", qc.Replicas)
				for _, name := range queue.JobsConsumers() {
					fmt.Fprintf(c.OutOrStdout(), "consumer %s: max_deliver %d, ack wait %v, backoff %v\n",
						name, qc.MaxDeliver, qc.AckWait, qc.BackOff)
				}
				return limitErr
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
	return tableservice.DefaultBucket
}
