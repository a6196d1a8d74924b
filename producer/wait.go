package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tessera-solver/tessera/internal/redact"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// outageNote is how often --wait repeats that PostgreSQL is still
// unreachable: the pipeline rides out a database outage (the writer holds
// the results in NATS), so --wait does too, saying so now and then.
const outageNote = 30 * time.Second

// batchReader is what --wait reads of the store.
type batchReader interface {
	BatchProgress(ctx context.Context, id int64) (store.Batch, error)
	BatchDistribution(ctx context.Context, id int64) (store.Distribution, error)
}

// follow polls the batch until every state has a row, then prints the
// histogram of optimal lengths on stdout ("length count" per line) and a
// summary on stderr. failed, when not nil, reports a local pipeline that
// stopped. idle, when not nil, is asked why after stallNote without
// progress, and its answer printed (once per stall).
func follow(ctx context.Context, st batchReader, batch, total int64, quiet bool, start time.Time, failed <-chan error, idle func(context.Context) string,
	stdout, stderr io.Writer) error {
	bar := newBar(quiet, stderr, total, "solved")
	defer bar.Finish()
	every := pollEvery
	if failed != nil {
		// The local pipeline's rows: a read of one row of this process's
		// writer, cheap enough to look often (the last rows are seen
		// sooner).
		every = localPollEvery
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	var b store.Batch
	var down time.Time // when reads started failing; zero while they work
	var noted time.Time
	read := func(f func() error) error {
		err := f()
		switch {
		case err == nil:
			if !down.IsZero() {
				fmt.Fprintf(stderr, "producer: PostgreSQL is back after %v\n", time.Since(down).Round(time.Second))
				down = time.Time{}
			}
		case errors.Is(err, store.ErrNotFound), ctx.Err() != nil:
			return err
		case down.IsZero():
			down, noted = time.Now(), time.Now()
			fmt.Fprintf(stderr, "producer: cannot read batch %d (%s); still waiting\n", batch, redact.URL(err.Error()))
		case time.Since(noted) >= outageNote:
			noted = time.Now()
			fmt.Fprintf(stderr, "producer: PostgreSQL unreachable for %v; still waiting\n", time.Since(down).Round(time.Second))
		}
		return nil
	}
	wait := func() error {
		select {
		case <-ctx.Done():
			return fmt.Errorf("batch %d: interrupted at %d of %d: %w", batch, b.Done, total, ctx.Err())
		case err := <-failed:
			return err
		case <-tick.C:
			return nil
		}
	}
	lastDone, since, told := int64(-1), time.Now(), false
	for {
		var got bool
		if err := read(func() error {
			nb, err := st.BatchProgress(ctx, batch)
			if err == nil {
				b, got = nb, true
				bar.Set(b.Done)
			}
			return err
		}); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("batch %d: interrupted at %d of %d: %w", batch, b.Done, total, ctx.Err())
			}
			return fmt.Errorf("follow batch %d: %w", batch, err)
		}
		if got && b.Finished() {
			break
		}
		switch {
		case got && b.Done != lastDone:
			lastDone, since, told = b.Done, time.Now(), false
		case got && b.PausedAt != nil && !told && time.Since(since) >= stallNote:
			told = true
			fmt.Fprintf(stderr, "\nproducer: batch %d is paused (since %s): its jobs wait until `results unpause --batch %d`\n",
				batch, b.PausedAt.Local().Format(time.TimeOnly), batch)
		case idle != nil && !told && time.Since(since) >= stallNote:
			told = true
			if why := idle(ctx); why != "" {
				fmt.Fprintf(stderr, "\nproducer: no progress for %v: %s\n", time.Since(since).Round(time.Second), why)
			}
		}
		if err := wait(); err != nil {
			return err
		}
	}
	bar.Finish()
	var d store.Distribution
	for got := false; !got; {
		if err := read(func() (err error) {
			d, err = st.BatchDistribution(ctx, batch)
			got = err == nil
			return err
		}); err != nil {
			return fmt.Errorf("batch %d: %w", batch, err)
		}
		if !got {
			if err := wait(); err != nil {
				return err
			}
		}
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
