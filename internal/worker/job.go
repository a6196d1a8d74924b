package worker

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"
)

// decoded is a job message read as far as it goes.
type decoded struct {
	job  job.Job
	spec puzzle.Spec
	opt  solve.Options
	// dead: the message cannot even be recorded as result rows (no JSON,
	// no id, no batch, no states); it is copied to TESSERA_DEAD.
	dead string
	// invalid: it names its rows but cannot be solved (unknown version,
	// puzzle or mode, bad budget); every state becomes an invalid result.
	invalid string
}

// decodeJob classifies a job message and grants its budget under this
// host's ceiling (search.Grant). A malformed job is never an error here:
// it is a reason, so that it turns into a record instead of vanishing.
func decodeJob(data []byte, ceiling search.Budget) decoded {
	var d decoded
	var err error
	if d.job, err = job.UnmarshalJob(data); err != nil {
		d.dead = fmt.Sprintf("job is not valid JSON: %v", err)
		return d
	}
	j := &d.job
	switch {
	case j.ID == "":
		d.dead = "job has no id"
	case j.BatchID <= 0:
		d.dead = fmt.Sprintf("job %s: batch id %d is not positive", j.ID, j.BatchID)
	case j.FirstSeq < 0:
		d.dead = fmt.Sprintf("job %s: first sequence %d is negative", j.ID, j.FirstSeq)
	case len(j.States) == 0:
		d.dead = fmt.Sprintf("job %s: no states", j.ID)
	}
	if d.dead != "" {
		return d
	}
	if j.V != job.Version {
		d.invalid = fmt.Sprintf("job %s: wire version %d is not supported (this solverd reads version %d)", j.ID, j.V, job.Version)
		return d
	}
	spec, err := puzzle.ParseSpec(j.Puzzle)
	if err != nil {
		d.invalid = fmt.Sprintf("job %s: %v", j.ID, err)
		return d
	}
	mode, err := result.ParseMode(j.Mode)
	if err != nil {
		d.invalid = fmt.Sprintf("job %s: %v", j.ID, err)
		return d
	}
	if j.MaxNodes < 0 || j.TimeoutMS < 0 {
		d.invalid = fmt.Sprintf("job %s: negative budget (max_nodes %d, timeout_ms %d)", j.ID, j.MaxNodes, j.TimeoutMS)
		return d
	}
	d.spec = spec
	// The wire's budget is read here, once. Every job ends: one that
	// names no time (an older or foreign producer, or none asked) gets
	// its puzzle's default, the lane it was sent on; the default only
	// limits, so fast mode keeps its short window under it.
	req := search.Budget{MaxNodes: j.MaxNodes, Timeout: j.Timeout()}
	d.opt = solve.Options{Mode: mode, Budget: search.Grant(req, policy.DefaultTimeout(spec, mode), ceiling)}
	if j.Goal != "" {
		if !spec.Family().TakesGoal() {
			d.invalid = fmt.Sprintf("job %s: only swap boards take a goal; %s has one goal", j.ID, spec)
			return d
		}
		g, err := puzzle.Parse(spec, j.Goal)
		if err != nil {
			d.invalid = fmt.Sprintf("job %s: goal: %v", j.ID, err)
			return d
		}
		d.opt.Goal = &g
	}
	return d
}

// uniform answers every state of j with the same status and reason.
func uniform(j job.Job, status result.Status, reason string) job.Results {
	r := results(j)
	r.Results = make([]result.Result, len(j.States))
	for i, s := range j.States {
		r.Results[i] = result.Result{Puzzle: r.Puzzle, State: s, Status: status, Error: reason}
	}
	return r
}

func results(j job.Job) job.Results {
	return job.Results{V: job.Version, JobID: j.ID, BatchID: j.BatchID, Puzzle: puzzleName(j), FirstSeq: j.FirstSeq, Replace: j.Replace}
}

// puzzleName is the puzzle recorded for a job's rows; the rows need one
// even when the job does not say.
func puzzleName(j job.Job) string {
	if j.Puzzle == "" {
		return "unknown"
	}
	return j.Puzzle
}

// storable makes every text field of r valid UTF-8 without NUL bytes, as
// PostgreSQL text requires: junk input must still end as a row, and one
// unstorable field would get the whole message rejected by the writer.
func storable(r *job.Results) {
	r.Puzzle = text(r.Puzzle)
	for i := range r.Results {
		x := &r.Results[i]
		x.Puzzle, x.State, x.Moves, x.Solver, x.Error = text(x.Puzzle), text(x.State), text(x.Moves), text(x.Solver), text(x.Error)
	}
}

func text(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
