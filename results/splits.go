package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/queue"
)

// splitsCmd is `results splits`: the progress of split searches (producer
// --split), read from their records in the NATS bucket tessera-split.
func splitsCmd() *cobra.Command {
	var batch int64
	var asJSON bool
	c := &cobra.Command{
		Use:   "splits [--batch B] [--json]",
		Short: "Progress of split searches (producer --split): iteration, subtrees answered of total, nodes",
		Long: "splits reads the record of every split search (or of one batch's) from the NATS bucket " + queue.SplitBucket + ":\n" +
			"the iteration and its bound, the subtrees of the iteration answered of those laid out ('-' while\n" +
			"the next is being laid out), the nodes so far (each subtree once), the lower bound proved, and how\n" +
			"it ended (solved, budget, cancelled, failed; running while it runs, and then how long it has run).",
		Example: "  results splits\n  results splits --batch 7 --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd) // the records are in NATS: no PostgreSQL
			if err != nil {
				return err
			}
			rs, err := listSplits(cmd.Context(), cfg, "tessera-results-splits", batch)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				for _, r := range rs {
					if err := enc.Encode(newSplitView(r)); err != nil {
						return err
					}
				}
				return nil
			}
			fmt.Fprintf(out, "%-6s %-6s %-9s %-5s %15s %15s %-5s %-9s %s\n", "batch", "seq", "iteration", "bound", "subtrees", "nodes", "lower", "end", "running for")
			for _, r := range rs {
				subs, end, took := splitText(r)
				fmt.Fprintf(out, "%-6d %-6d %-9d %-5d %15s %15d %-5d %-9s %s\n", r.Batch, r.Seq, r.Iteration, r.Bound, subs, r.Nodes, r.Lower, end, took)
			}
			return nil
		},
	}
	c.Flags().Int64Var(&batch, "batch", 0, "only this batch's split searches")
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON object per split search")
	return keyed(c, cancelKeys)
}

// splitView is a split search's progress as `results splits --json` and
// `results batches --json` show it.
type splitView struct {
	Batch     int64  `json:"batch"`
	Seq       int64  `json:"seq"`
	State     string `json:"state"`
	Iteration int    `json:"iteration"`
	Bound     int    `json:"bound"`
	Answered  int    `json:"subtrees_answered"`
	Total     int    `json:"subtrees"` // -1 while the iteration is being laid out
	Nodes     int64  `json:"nodes"`
	Lower     int    `json:"lower_bound"`
	End       string `json:"end"`
	Started   string `json:"started"`
}

func newSplitView(r job.SplitRecord) splitView {
	return splitView{r.Batch, r.Seq, r.State, r.Iteration, r.Bound, r.Count, r.Total, r.Nodes, r.Lower, r.End, r.Started.Format(time.RFC3339)}
}

// splitText is a record's subtrees answered of total ("-" while the
// iteration is laid out), its end ("running" while it runs) and how long
// it has run ("-" once ended), as the tables show them.
func splitText(r job.SplitRecord) (subs, end, took string) {
	subs = "-"
	if r.Laid() {
		subs = fmt.Sprintf("%d/%d", r.Count, r.Total)
	}
	end, took = r.End, time.Since(r.Started).Round(time.Second).String()
	if end == "" {
		end = "running"
	} else {
		took = "-"
	}
	return subs, end, took
}

// splitProgress reads every split search's record from NATS, by batch.
// The records are only in NATS: a caller without it shows the rest.
func splitProgress(ctx context.Context, cfg config.Config) (map[int64][]job.SplitRecord, error) {
	rs, err := listSplits(ctx, cfg, "tessera-results-batches", 0)
	if err != nil {
		return nil, err
	}
	by := make(map[int64][]job.SplitRecord)
	for _, r := range rs {
		by[r.Batch] = append(by[r.Batch], r)
	}
	return by, nil
}

// natsSplits reads split searches' progress for results serve's page and
// /api/batches/{id} (httpapi.Splits). It connects on first use and, while
// NATS does not answer, tries again at most every splitRetry, answering
// the last failure in between: the page shows the rest meanwhile.
type natsSplits struct {
	cfg config.NATS

	mu    sync.Mutex
	js    jetstream.JetStream // nil until connected
	nc    *nats.Conn
	tried time.Time
	err   error
}

// splitRetry is how often a results serve without NATS tries it again.
const splitRetry = 30 * time.Second

func (s *natsSplits) Splits(ctx context.Context, batch int64) ([]job.SplitRecord, error) {
	s.mu.Lock()
	if s.js == nil && time.Since(s.tried) >= splitRetry {
		s.tried = time.Now()
		s.nc, s.err = queue.Connect(s.cfg.URL, "tessera-results-serve-splits", queue.Auth(s.cfg.NATSAuth))
		if s.err == nil {
			if s.js, s.err = queue.New(s.nc); s.err != nil {
				s.nc.Close()
			}
		}
	}
	js, err := s.js, s.err
	s.mu.Unlock()
	if js == nil {
		return nil, fmt.Errorf("%w (tried again every %s)", err, splitRetry)
	}
	return queue.ListSplits(ctx, js, batch)
}

// Close closes the connection, if one was made.
func (s *natsSplits) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nc != nil {
		s.nc.Close()
	}
}

// listSplits reads the split searches' records (batch's, or every one for
// 0) from NATS, connecting as name.
func listSplits(ctx context.Context, cfg config.Config, name string, batch int64) ([]job.SplitRecord, error) {
	conn, err := cmdkit.Connect(cfg.NATS, name)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return queue.ListSplits(ctx, conn.JS, batch)
}
