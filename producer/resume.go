package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/store"
)

// sourceRecord is where a batch's states come from, as stored with the
// batch (batches.source) so that `producer resume` reads the same states
// again. One of File, Random or Enumerate is set; a File of "" with
// neither other set means stdin, which cannot be read again.
type sourceRecord struct {
	File      string `json:"file,omitempty"`
	Random    int64  `json:"random,omitempty"`
	Seed      uint64 `json:"seed,omitempty"`
	Enumerate bool   `json:"enumerate,omitempty"`
	MaxStates int64  `json:"max,omitempty"`
	// Generated names the --target-length method of a generation round;
	// its candidates are not kept, so such a batch is not resumed (run the
	// generation again: it counts what is stored).
	Generated string `json:"generated,omitempty"`
}

// optionsRecord is the jobs' options, stored with the batch
// (batches.options): a resumed batch is enqueued exactly as it started.
type optionsRecord struct {
	Mode string `json:"mode"`
	// Budget is stored as the jobs carry it (max_nodes and timeout_ms at
	// the top level of the record).
	job.Budget
	Goal  string `json:"goal,omitempty"`
	Chunk int    `json:"chunk"`
	Split bool   `json:"split,omitempty"` // producer --split
	// Priority is the level the jobs are published at ("": normal, as
	// for batches recorded before priorities).
	Priority job.Priority `json:"priority,omitempty"`
}

// open opens the states of the source. A file's lines that are not
// solvable states are reported on stderr (and, with strict, refused)
// before anything else happens; its corpus, returned for the line numbers
// of refused states, is to be closed by the caller.
func (r sourceRecord) open(spec puzzle.Spec, strict bool, stdin io.Reader, stderr io.Writer) (states, *corpus, error) {
	switch {
	case r.Generated != "":
		return states{}, nil, errors.New("a generation round's candidates are not kept: run the generation again (it counts what is stored)")
	case r.File != "":
		c, err := openCorpus(r.File, stdin)
		if err != nil {
			return states{}, nil, err
		}
		bad := 0
		err = c.scan(&spec, func(l line) error {
			c.lines++
			if l.err != nil {
				bad++
				fmt.Fprintf(stderr, "%s:%d: %v\n", r.File, l.no, l.err)
			}
			return nil
		})
		switch {
		case err != nil:
		case bad > 0 && strict:
			err = fmt.Errorf("%d of %d lines: %w", bad, c.lines, errBadLines)
		case bad > 0:
			fmt.Fprintf(stderr, "producer: %d of %d lines are not solvable states; they are recorded as invalid or unsolvable\n", bad, c.lines)
		}
		if err != nil {
			c.Close()
			return states{}, nil, err
		}
		return c.states(), c, nil
	case r.Random > 0:
		return randomStates(spec, r.Random, r.Seed), nil, nil
	case r.Enumerate:
		src, err := enumerateStates(spec, r.MaxStates)
		if err != nil {
			return states{}, nil, usageError{Err: err}
		}
		return src, nil, nil
	}
	return states{}, nil, errors.New("the batch's states came from stdin, which cannot be read again")
}

// resumeCmd finishes the enqueue of a batch whose producer stopped short.
func resumeCmd(f *flags, stdin io.Reader) *cobra.Command {
	c := &cobra.Command{
		Use:   "resume BATCH [--wait] [--local]",
		Short: "Finish enqueuing a batch whose producer was interrupted (see `results batches`: stalled)",
		Long: `resume reads the batch's states again from the source recorded with it (the
same file, the same random seed, the same enumeration) and enqueues those
after the last job the server had stored, with the batch's own options.
It is idempotent: running it twice, or on a batch that was fully
enqueued, enqueues nothing new that is not harmless (a job queued twice
is deduplicated by its id, and a state answered twice keeps one row).
With --local the in-process pipeline of the interrupted run is gone with
its jobs, so every state without a row is enqueued again.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("resume takes one batch id")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			batch, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || batch <= 0 {
				return usagef("resume %q: want a batch id", args[0])
			}
			cfg, err := producerKeys.Load(c.Flags())
			if err != nil {
				return usageError{Err: err}
			}
			ctx, stop := cmdkit.OnSignal(context.Background())
			defer stop()
			return resume(ctx, *f, cfg, batch, stdin, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.BoolVar(&f.local, "local", false, "run the whole pipeline in this process; enqueues every state without a row; implies --wait")
	fs.BoolVar(&f.wait, "wait", false, "follow the batch to completion and print its distance histogram")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bars")
	producerKeys.Bind(fs)
	return c
}

func resume(ctx context.Context, f flags, cfg config.Config, batch int64, stdin io.Reader, stdout, stderr io.Writer) error {
	// The store first, for the batch's puzzle; then the pipeline for it.
	probe, err := connectStore(ctx, cfg)
	if err != nil {
		return err
	}
	b, err := probe.BatchProgress(ctx, batch)
	var rec sourceRecord
	var opts optionsRecord
	if err == nil {
		err = probe.BatchSource(ctx, batch, &rec, &opts)
	}
	probe.Close()
	if err != nil {
		return err
	}
	switch {
	case b.Finished():
		fmt.Fprintf(stderr, "producer: batch %d is finished: nothing to resume\n", batch)
		return nil
	case b.CancelledAt != nil:
		return fmt.Errorf("batch %d was cancelled: it is not resumed", batch)
	}
	spec, err := puzzle.ParseSpec(b.Puzzle)
	if err != nil {
		return fmt.Errorf("batch %d: %w", batch, err)
	}
	src, file, err := rec.open(spec, false, stdin, stderr)
	if err != nil {
		return fmt.Errorf("batch %d: %w", batch, err)
	}
	if file != nil {
		defer file.Close()
	}
	if src.total >= 0 && b.Total >= 0 && src.total != b.Total {
		return fmt.Errorf("batch %d: its source now yields %d states, the batch has %d: it changed since", batch, src.total, b.Total)
	}
	e, err := connect(ctx, f, cfg, spec, stderr)
	if err != nil {
		return err
	}
	defer e.close()
	f.wait = f.wait || f.local
	from := b.Enqueued
	if f.local {
		from = 0
	}
	fmt.Fprintf(stdout, "batch %d\n", batch)
	fmt.Fprintf(stderr, "producer: resuming batch %d from state %d of %d\n", batch, from, b.Total)
	return enqueueAndFollow(ctx, f, e.st, e.js, e.nc, e.pipeline, spec, batch, src, file, opts, from, stdout, stderr)
}

// connectStore opens the store without migrating it.
func connectStore(ctx context.Context, cfg config.Config) (*store.Store, error) {
	dbURL, err := store.ResolveURL(ctx, cfg.Database.URL)
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, dbURL, store.WithPassword(cfg.Database.Password))
}
