package worker

import (
	"context"
	"time"

	"github.com/tessera-solver/tessera/internal/queue"
)

// unparkEvery is how often a solverd looks for parked jobs whose batch is
// no longer paused. `results unpause` returns them itself; this look is
// what returns them when that command died half way, or when a cancel
// (which answers them at once) or a race with a solver parking a job left
// some behind.
const unparkEvery = 5 * time.Second

// unparkLoop returns the parked jobs of batches that are not paused, or
// are cancelled, to TESSERA_JOBS every unparkEvery until ctx ends.
func (r *runner) unparkLoop(ctx context.Context) {
	t := time.NewTicker(unparkEvery)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := r.unpark(ctx)
		switch {
		case err != nil && !failing && ctx.Err() == nil:
			r.log.Warn("worker: cannot return the parked jobs of unpaused batches; trying again", "err", err)
		case err == nil && failing:
			r.log.Info("worker: parked jobs are looked after again")
		}
		failing = err != nil
	}
}

func (r *runner) unpark(ctx context.Context) error {
	parked, err := queue.ParkedBatches(ctx, r.js)
	if err != nil {
		return err
	}
	for batch := range parked {
		_, paused := r.paused.At(batch)
		_, cancelled := r.cancelled.At(batch)
		if paused && !cancelled {
			continue
		}
		n, err := queue.Unpark(ctx, r.js, batch)
		if n > 0 {
			r.log.Info("worker: returned the parked jobs of a batch no longer paused", "batch", batch, "jobs", n)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
