package main

import (
	"context"
	"encoding/json"
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
)

// workersKeys are the config keys of `solverd workers`: NATS only.
var workersKeys = config.Uses("nats")

func workersCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "workers",
		Short: "List the live solverd, results writers and producer --local processes, and what each is working on",
		Long: "Reads the registry of workers (the tessera-workers key-value bucket): every `solverd run`,\n" +
			"`results run` and `producer --local` keeps an entry there, refreshed every " + queue.WorkerBeat.String() + " and\n" +
			"deleted when it stops; the entry of a process that was killed or cut off expires " + queue.WorkerTTL.String() + " after\n" +
			"its last refresh. The table shows host, pid, role, version, time up, workers (all lanes + quick\n" +
			"only), jobs in flight, search nodes per second and the last warning or error it logged, then\n" +
			"each job in flight (batch, first state, puzzle, lane, delivery, running for, nodes so far).\n" +
			"--json prints the entries as a JSON array.",
		Args: nArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := workersKeys.Load(c.Flags())
			if err != nil {
				return usageError{Err: err}
			}
			conn, err := cmdkit.Connect(cfg.NATS, "tessera-solverd-workers")
			if err != nil {
				return err
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(c.Context(), 30*time.Second)
			defer cancel()
			ws, err := queue.Workers(ctx, conn.JS)
			if err != nil {
				return err
			}
			if asJSON {
				if ws == nil {
					ws = []queue.WorkerEntry{}
				}
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(ws)
			}
			printWorkers(c.OutOrStdout(), ws, time.Now())
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON array instead of tables")
	workersKeys.Bind(c.Flags())
	return c
}

// printWorkers writes ws as a table of processes and one of their jobs in
// flight.
func printWorkers(w io.Writer, ws []queue.WorkerEntry, now time.Time) {
	if len(ws) == 0 {
		fmt.Fprintf(w, "no process is registered in %s: no solverd run, results run or producer --local is running against this NATS server\n",
			queue.WorkersBucket)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tPID\tROLE\tVERSION\tUP\tWORKERS\tIN FLIGHT\tNODES/S\tLAST ERROR")
	jobs := 0
	for _, e := range ws {
		jobs += len(e.Jobs)
		workers := strconv.Itoa(e.Workers)
		if e.QuickWorkers > 0 {
			workers += "+" + strconv.Itoa(e.QuickWorkers) + " quick"
		}
		last := "-"
		if e.LastError != "" {
			last = oneLine(e.LastError, 80) + " (" + ago(now, e.LastErrorAt) + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", e.Host, e.PID, e.Role, e.Version,
			e.Up().Round(time.Second), workers, len(e.Jobs), rate(e.NodesPerSecond), last)
	}
	tw.Flush()
	if jobs == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tPID\tBATCH\tFIRST\tSTATES\tPUZZLE\tLANE\tDELIVERY\tRUNNING\tNODES")
	for _, e := range ws {
		for _, j := range e.Jobs {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%d\t%s\t%d\n", e.Host, e.PID, j.Batch, j.FirstSeq, j.States,
				j.Puzzle, j.Lane, j.Delivery, e.Updated.Sub(j.Started).Round(time.Second), j.Nodes)
		}
	}
	tw.Flush()
}

// rate is nodes per second, short: 950, 12.3k, 45.6M.
func rate(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.1fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func ago(now, t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return now.Sub(t).Round(time.Second).String() + " ago"
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
