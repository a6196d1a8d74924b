package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// maxPollFailures is how many progress reads in a row may fail (PostgreSQL
// restarting) before --wait gives up.
const maxPollFailures = 150

// follow polls the batch until every state has a row, then prints the
// histogram of optimal lengths on stdout ("length count" per line) and a
// summary on stderr. failed, when not nil, reports a local pipeline that
// stopped.
func follow(ctx context.Context, st *store.Store, batch, total int64, quiet bool, start time.Time, failed <-chan error, stdout, stderr io.Writer) error {
	bar := newBar(quiet, stderr, total, "solved")
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var b store.Batch
	for fails := 0; ; {
		var err error
		b, err = st.BatchProgress(ctx, batch)
		switch {
		case err == nil:
			fails = 0
			_ = bar.Set64(b.Done)
		case ctx.Err() != nil:
			return fmt.Errorf("batch %d: interrupted at %d of %d: %w", batch, b.Done, total, ctx.Err())
		default:
			if fails++; fails >= maxPollFailures {
				return fmt.Errorf("follow batch %d: %w", batch, err)
			}
		}
		if err == nil && b.Finished() {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("batch %d: interrupted at %d of %d: %w", batch, b.Done, total, ctx.Err())
		case err := <-failed:
			return err
		case <-tick.C:
		}
	}
	_ = bar.Finish()
	d, err := st.BatchDistribution(ctx, batch)
	if err != nil {
		return err
	}
	for _, c := range d.Counts {
		fmt.Fprintf(stdout, "%d %d\n", c.Length, c.Count)
	}
	fmt.Fprintf(stderr, "producer: batch %d done in %v: %d states", batch, time.Since(start).Round(time.Millisecond), b.Done)
	sep := ":"
	for i, n := range b.ByStatus() {
		fmt.Fprintf(stderr, "%s %d %s", sep, n, result.Statuses()[i])
		sep = ","
	}
	if d.Total > 0 {
		fmt.Fprintf(stderr, "; optimal lengths: mean %.3f, max %d", d.Mean, d.Max)
	}
	fmt.Fprintln(stderr)
	return nil
}
