package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/search"
)

// The worker's side of split searches (internal/split runs them): it
// claims subtree jobs like any job, hands them to split.Searches.Answer
// and settles their messages, and lends a coordinator waiting on its
// answers the same path (helpOne).

// isSubtree reports whether a claimed message is a subtree job.
func isSubtree(m jetstream.Msg) bool { return strings.HasPrefix(m.Subject(), "tessera.jobs.split.") }

// helpOne answers one waiting subtree job, of any state, if there is one:
// a coordinator's help while its own subtrees are out.
func (r *runner) helpOne(ctx context.Context) (bool, error) {
	msgs, err := queue.FetchReady(r.hard, r.splitCons, 1)
	if err != nil || len(msgs) == 0 {
		return false, err
	}
	t := r.beats.add(msgs[0])
	defer r.beats.remove(t)
	r.processSubtree(ctx, t)
	return true, nil
}

// processSubtree handles one claimed subtree job to its end.
func (r *runner) processSubtree(ctx context.Context, t *tracked) {
	m := t.msg
	meta, err := m.Metadata()
	if err != nil {
		r.log.Error("worker: message without JetStream metadata", "subject", m.Subject(), "err", err)
		return
	}
	sj, err := job.DecodeSubtreeJob(m.Data())
	var spec puzzle.Spec
	var st puzzle.State
	if err == nil {
		if spec, err = puzzle.ParseSpec(sj.Puzzle); err == nil {
			st, err = puzzle.Parse(spec, sj.State)
		}
	}
	if err == nil {
		_, err = r.searches.Answer(ctx, sj, spec, st.Cells)
		switch {
		case err == nil:
			r.settle(t, m.Ack)
			return
		case errors.Is(err, queue.ErrNoSplit):
			// The record is gone (deleted by hand): nothing to count into.
			r.log.Warn("worker: subtree job of no split search", "subject", m.Subject(), "err", err)
			r.settle(t, m.Ack)
			return
		case !errors.Is(err, search.ErrPrefix):
			// NATS failing, or this host cannot split the puzzle (its
			// tables have not arrived): another delivery, maybe elsewhere.
			r.retry(t, meta, err)
			return
		}
	}
	// Malformed: kept as a dead letter, never dropped.
	reason := fmt.Sprintf("subtree job: %v", err)
	pctx, cancel := context.WithTimeout(r.hard, queue.PublishTimeout)
	defer cancel()
	if perr := queue.PublishDeadJob(pctx, r.js, m.Data(), m.Subject(), meta.Sequence.Stream, reason); perr != nil {
		r.retry(t, meta, perr)
		return
	}
	r.settle(t, m.Term)
}
