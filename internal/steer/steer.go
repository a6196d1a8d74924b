// Package steer changes a batch's course: cancel, pause, unpause and
// requeue. Each change is marked in PostgreSQL first (what `results
// batches` and the status page show), then told to the solvers through
// NATS. `results cancel|pause|unpause|requeue` and the status page of
// `results serve` both call it, so the two cannot drift apart.
package steer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// Action is a change of a batch's course that needs no parameters.
type Action string

// The actions of Do.
const (
	Cancel  Action = "cancel"
	Pause   Action = "pause"
	Unpause Action = "unpause"
)

// Verb is what the action makes of a batch: "cancelled", "paused",
// "unpaused" ("" for an unknown action).
func (a Action) Verb() string { return actions[a].verb }

// Actions lists every Action.
var Actions = []Action{Cancel, Pause, Unpause}

// Dial returns the NATS connection to tell the solvers on, and what to
// call when done with it (the CLI closes its own connection; results
// serve keeps one).
type Dial func() (conn *cmdkit.Conn, release func(), err error)

// Connect is a Dial that makes a new connection each time, as name.
func Connect(c config.NATS, name string) Dial {
	return func() (*cmdkit.Conn, func(), error) {
		conn, err := cmdkit.Connect(c, name)
		if err != nil {
			return nil, nil, err
		}
		return conn, conn.Close, nil
	}
}

// ErrNotTold is wrapped by the error of a change that is marked in
// PostgreSQL but did not reach the solvers: doing it again finishes it.
var ErrNotTold = errors.New("the change is marked but not told to the solvers")

// NotToldError is a change marked in PostgreSQL that did not reach the
// solvers; it is ErrNotTold.
type NotToldError struct{ Err error }

func (e *NotToldError) Error() string { return e.Err.Error() }
func (e *NotToldError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrNotTold) true.
func (e *NotToldError) Is(target error) bool { return target == ErrNotTold }

// ErrUnknownAction: Do was given an action it does not know.
var ErrUnknownAction = errors.New("unknown action")

// Outcome is what Do did.
type Outcome struct {
	Batch  int64
	Action Action
	// Noop, when set, says why the batch could not take the change
	// (finished, cancelled, not running): nothing was done.
	Noop string
	// Note adds what was done beyond the mark ("(3 parked jobs back in
	// the queue)"), with a leading space; "" when nothing.
	Note string
}

// String is the line `results cancel|pause|unpause` prints.
func (o Outcome) String() string {
	if o.Noop != "" {
		return fmt.Sprintf("batch %d %s", o.Batch, o.Noop)
	}
	return fmt.Sprintf("batch %d %s%s", o.Batch, actions[o.Action].verb, o.Note)
}

// action is how one Action is marked, told and said.
type action struct {
	// mark changes the batch's row; false when there was nothing to change.
	mark func(*store.Store, context.Context, int64) (bool, error)
	// tell tells the solvers; its string is added to the outcome's line.
	tell func(context.Context, *cmdkit.Conn, int64) (string, error)
	// done: the batch is in the state the action leads to (else it could
	// not take the change: finished, or cancelled).
	done func(store.Batch) bool
	// noop is said when the batch cannot take the change.
	noop, verb, redo string
}

var actions = map[Action]action{
	Cancel: {
		mark: (*store.Store).CancelBatch,
		tell: func(ctx context.Context, conn *cmdkit.Conn, batch int64) (string, error) {
			if err := queue.CancelBatch(ctx, conn.JS, conn.Queue, batch, time.Now()); err != nil {
				return "", err
			}
			// The cancel ended the pause: its parked jobs are answered now.
			if err := queue.UnpauseBatch(ctx, conn.JS, conn.Queue, batch); err != nil {
				return "", err
			}
			n, err := queue.Unpark(ctx, conn.JS, batch)
			return parkedNote(n, "returned to be answered as cancelled"), err
		},
		done: func(b store.Batch) bool { return b.CancelledAt != nil },
		noop: "is finished: nothing to cancel",
		verb: "cancelled",
		redo: "the solvers were not told",
	},
	Pause: {
		mark: (*store.Store).PauseBatch,
		tell: func(ctx context.Context, conn *cmdkit.Conn, batch int64) (string, error) {
			return "", queue.PauseBatch(ctx, conn.JS, conn.Queue, batch, time.Now())
		},
		done: func(b store.Batch) bool { return b.PausedAt != nil },
		noop: "is not running: nothing to pause",
		verb: "paused",
		redo: "the solvers were not told",
	},
	Unpause: {
		mark: (*store.Store).UnpauseBatch,
		tell: func(ctx context.Context, conn *cmdkit.Conn, batch int64) (string, error) {
			if err := queue.UnpauseBatch(ctx, conn.JS, conn.Queue, batch); err != nil {
				return "", err
			}
			n, err := queue.Unpark(ctx, conn.JS, batch)
			return parkedNote(n, "back in the queue"), err
		},
		done: func(b store.Batch) bool { return b.PausedAt == nil },
		noop: "is not paused", // never said: the row always ends unpaused
		verb: "unpaused",
		redo: "its jobs were not all returned to the queue",
	},
}

func parkedNote(n int, where string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d parked jobs %s)", n, where)
}

// Do marks batch with a in st, then, when the batch is in the state a
// leads to, tells the solvers on a connection from dial. Telling again is
// harmless, so doing a again finishes what a first call could not tell
// (its error wraps ErrNotTold). A batch that cannot take the change is
// not an error: the outcome's Noop says why.
func Do(ctx context.Context, st *store.Store, dial Dial, a Action, batch int64) (Outcome, error) {
	s, ok := actions[a]
	if !ok {
		return Outcome{}, fmt.Errorf("%w %q: want one of %v", ErrUnknownAction, a, Actions)
	}
	out := Outcome{Batch: batch, Action: a}
	if _, err := s.mark(st, ctx, batch); err != nil {
		return out, err
	}
	b, err := st.BatchProgress(ctx, batch)
	if err != nil {
		return out, err
	}
	if !s.done(b) {
		out.Noop = s.noop
		return out, nil
	}
	notTold := func(err error) error {
		return &NotToldError{Err: fmt.Errorf("batch %d is marked %s, but %s (run the command again): %w", batch, s.verb, s.redo, err)}
	}
	// Told again on a second call: a first one may have failed to reach
	// NATS after marking the batch.
	conn, release, err := dial()
	if err != nil {
		return out, notTold(err)
	}
	defer release()
	if out.Note, err = s.tell(ctx, conn, batch); err != nil {
		return out, notTold(err)
	}
	return out, nil
}

// Requeueable are the statuses a bigger budget can improve; cancelled
// only when asked for by name (it takes the cancel off the batch).
var Requeueable = []result.Status{result.StatusBudgetExceeded, result.StatusFailed, result.StatusCancelled}

// DefaultRequeue is what a requeue solves again when not told.
var DefaultRequeue = []result.Status{result.StatusBudgetExceeded, result.StatusFailed}

// Requeue says what to solve again and with which budget.
type Requeue struct {
	Batch    int64
	Statuses []result.Status // of Requeueable
	MaxNodes int64           // per state; with Timeout, at least one is set
	Timeout  time.Duration
	// ChunkSize is producer.chunk_size (≤ 0: the puzzle's default).
	ChunkSize int
	// Asked names where the statuses were given, in messages ("--status";
	// "" : "the statuses").
	Asked string
}

func (r Requeue) asked() string {
	if r.Asked == "" {
		return "the statuses"
	}
	return r.Asked
}

// Requeued is what Requeue did.
type Requeued struct {
	// Uncancelled: the batch was cancelled and no longer is.
	Uncancelled bool
	States      int64
	Jobs        int64
	Lane        job.Lane
}

// Errors of Requeue that callers tell apart (the CLI answers ErrUsage
// with its usage exit code; the page shows them all).
var (
	ErrUsage     = errors.New("bad requeue request")
	ErrCancelled = errors.New("the batch is cancelled")
)

// Check reports what is wrong with r before anything is read or written.
func (r Requeue) Check() error {
	if len(r.Statuses) == 0 {
		return fmt.Errorf("%w: name at least one status to solve again", ErrUsage)
	}
	for _, s := range r.Statuses {
		if !slices.Contains(Requeueable, s) {
			return fmt.Errorf("%w: status %q cannot improve with more budget; give budget_exceeded, failed and/or cancelled", ErrUsage, s)
		}
	}
	if r.Timeout <= 0 && r.MaxNodes <= 0 {
		return fmt.Errorf("%w: give the new budget: a timeout and/or a node budget (per state)", ErrUsage)
	}
	return nil
}

// Line is the line `results requeue` prints for what it did.
func (d Requeued) Line(r Requeue) string {
	names := make([]string, len(r.Statuses))
	for i, s := range r.Statuses {
		names[i] = string(s)
	}
	return fmt.Sprintf("requeued %d states of batch %d (%s) in %d jobs on the %s lane", d.States, r.Batch, strings.Join(names, ", "), d.Jobs, d.Lane)
}

// CancelledError is a requeue of a cancelled batch that does not name
// cancelled among its statuses; it is ErrCancelled.
type CancelledError struct {
	Batch int64
	At    time.Time
	Asked string // where the statuses were given
}

func (e *CancelledError) Error() string {
	return fmt.Sprintf("batch %d was cancelled at %s: its jobs are answered as cancelled without being solved, so a requeue would change nothing; "+
		"add cancelled to %s to take the cancel off the batch and solve them", e.Batch, e.At.UTC().Format(time.RFC3339), e.Asked)
}

// Is makes errors.Is(err, ErrCancelled) true.
func (e *CancelledError) Is(target error) bool { return target == ErrCancelled }

// Solve publishes the batch's states with r's statuses as new jobs with
// r's budget, marked to replace the rows they improve. A cancelled batch
// is refused (ErrCancelled) unless r names cancelled: then the cancel is
// taken off, in NATS first, and Requeued.Uncancelled says so (also when a
// later step fails).
func Solve(ctx context.Context, st *store.Store, dial Dial, r Requeue) (Requeued, error) {
	var out Requeued
	if err := r.Check(); err != nil {
		return out, err
	}
	batch := r.Batch
	b, err := st.BatchProgress(ctx, batch)
	if err != nil {
		return out, err
	}
	uncancel := b.CancelledAt != nil && slices.Contains(r.Statuses, result.StatusCancelled)
	if b.CancelledAt != nil && !uncancel {
		// Solvers answer every job of a cancelled batch without
		// solving it, so the requeued jobs would change no row.
		return out, &CancelledError{Batch: batch, At: *b.CancelledAt, Asked: r.asked()}
	}
	spec, err := puzzle.ParseSpec(b.Puzzle)
	if err != nil {
		return out, fmt.Errorf("batch %d: %w", batch, err)
	}
	if spec.Family().TakesGoal() {
		// Solving toward the standard goal could "improve" a row
		// that was solved toward another.
		return out, fmt.Errorf("batch %d: requeue of swap boards is not supported: the batch's goal is not stored", batch)
	}
	mode, err := result.ParseMode(b.Mode)
	if err != nil {
		return out, fmt.Errorf("batch %d: %w", batch, err)
	}
	conn, release, err := dial()
	if err != nil {
		return out, err
	}
	defer release()
	js := conn.JS
	if err := conn.Ensure(ctx); err != nil {
		return out, err
	}
	if uncancel {
		// NATS first: a batch unmarked in PostgreSQL but still
		// cancelled for the solvers would answer the new jobs unsolved.
		if err := queue.UncancelBatch(ctx, js, conn.Queue, batch); err != nil {
			return out, err
		}
		if _, err := st.UncancelBatch(ctx, batch); err != nil {
			return out, err
		}
		out.Uncancelled = true
	}
	proto := job.Job{V: job.Version, BatchID: batch, Puzzle: b.Puzzle, Mode: string(mode),
		Budget: job.NewBudget(r.MaxNodes, r.Timeout), Replace: true, Priority: job.Priority(b.Priority)}
	chunk := policy.ChunkSize(spec, mode, r.ChunkSize, conn.NC.MaxPayload())
	// Job ids carry the time of this requeue, so the server's duplicate
	// window does not mistake them for the first run's.
	tag := time.Now().UTC().Format("20060102T150405.000")
	pub := queue.NewPublisher(js, 256)
	var cur job.Job
	flush := func() error {
		if len(cur.States) == 0 {
			return nil
		}
		cur.ID = fmt.Sprintf("%d-%d-r%s", batch, cur.FirstSeq, tag)
		out.Jobs++
		err := pub.Publish(ctx, cur)
		cur.States = nil
		return err
	}
	err = st.EachState(ctx, batch, r.Statuses, func(seq int64, state string) error {
		// A job covers consecutive sequence numbers.
		if len(cur.States) == chunk || len(cur.States) > 0 && cur.FirstSeq+int64(len(cur.States)) != seq {
			if err := flush(); err != nil {
				return err
			}
		}
		if len(cur.States) == 0 {
			cur = proto
			cur.FirstSeq = seq
		}
		cur.States = append(cur.States, state)
		out.States++
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = pub.Flush(ctx)
	}
	if err != nil {
		return out, fmt.Errorf("requeue batch %d: %w", batch, err)
	}
	out.Lane = policy.LaneOf(spec, mode, proto.Timeout()) // as the publisher routes them
	return out, nil
}
