package steer

import (
	"errors"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/result"
)

// The typed errors say what the CLI always said and are the sentinels
// callers branch on.
func TestErrors(t *testing.T) {
	nt := &NotToldError{Err: errors.New("batch 3 is marked paused, but the solvers were not told (run the command again): boom")}
	if !errors.Is(nt, ErrNotTold) || nt.Error() != "batch 3 is marked paused, but the solvers were not told (run the command again): boom" {
		t.Errorf("NotToldError: %v", nt)
	}
	ce := &CancelledError{Batch: 3, At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Asked: "--status"}
	if !errors.Is(ce, ErrCancelled) || ce.Error() != "batch 3 was cancelled at 2026-01-02T03:04:05Z: its jobs are answered as cancelled without being solved, "+
		"so a requeue would change nothing; add cancelled to --status to take the cancel off the batch and solve them" {
		t.Errorf("CancelledError: %v", ce)
	}
}

// A requeue is checked before anything is read: statuses that cannot
// improve, none at all, or no budget are ErrUsage.
func TestRequeueCheck(t *testing.T) {
	for _, r := range []Requeue{
		{Statuses: nil, Timeout: time.Minute},
		{Statuses: []result.Status{result.StatusSolved}, Timeout: time.Minute},
		{Statuses: []result.Status{result.StatusFailed}},
	} {
		if err := r.Check(); !errors.Is(err, ErrUsage) {
			t.Errorf("%+v: %v, want ErrUsage", r, err)
		}
	}
	if err := (Requeue{Statuses: DefaultRequeue, MaxNodes: 10}).Check(); err != nil {
		t.Errorf("a good request: %v", err)
	}
	if got := (Requeued{States: 4, Jobs: 2, Lane: "heavy"}).Line(Requeue{Batch: 7, Statuses: DefaultRequeue}); got != "requeued 4 states of batch 7 (budget_exceeded, failed) in 2 jobs on the heavy lane" {
		t.Errorf("line %q", got)
	}
	if (Outcome{Batch: 2, Action: Pause, Note: " (x)"}).String() != "batch 2 paused (x)" || (Outcome{Batch: 2, Action: Cancel, Noop: "is finished: nothing to cancel"}).String() != "batch 2 is finished: nothing to cancel" {
		t.Error("outcome lines")
	}
}
