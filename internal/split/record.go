// Package split runs split searches (docs/ARCHITECTURE.md "Split
// search"): the coordinator of a state and the searches of its subtree
// jobs (search.go), and the rules of the record they share (this file):
// how a layout, an answer, a stop and an exhausted iteration change the
// coordination record of one state. The record's wire form is
// internal/job's; its IDA* state (the bound, the lower bound proved, the
// nodes) and its budget are search's, stepped by search.Deepener and
// judged by search.Budget, so IDA*'s rules exist once. The rules are pure
// and idempotent: the coordinator folds answers into the record inside
// its compare-and-set loop, and folding one twice changes nothing. A
// Recorder writes down each walk and subtree a process searches
// (solver.split_record).
package split

import (
	"context"
	"fmt"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/search"
)

// MaxHeavy is how many heavy subtrees a record keeps for the next
// iteration's layout: the largest.
const MaxHeavy = 64

// NewRecord is the record of state seq of the split job j, before its
// first iteration, whose bound is h0, under the whole state's budget b
// (its nodes and timeout); now starts the budget's clock.
func NewRecord(j job.Job, seq int64, state string, h0 int, b search.Budget, now time.Time) job.SplitRecord {
	r := job.SplitRecord{V: job.Version, Job: j.ID, Batch: j.BatchID, Seq: seq, Puzzle: j.Puzzle, State: state, Mode: j.Mode,
		MaxNodes: b.MaxNodes, Started: now.UTC(), Total: -1, Next: search.NoNext}
	if b.Timeout > 0 {
		r.Deadline = r.Started.Add(b.Timeout)
	}
	setDeep(&r, search.NewDeepener(search.Deepening{H0: h0}).DeepState)
	return r
}

// deepener is the record's IDA* state as search steps it: the bound of
// its iteration, the lower bound proved, the exhausted iterations' nodes
// and the last one's.
func deepener(r *job.SplitRecord) search.Deepener {
	return search.ResumeDeepener(search.Deepening{H0: r.Lower},
		search.DeepState{Bound: r.Bound, Lower: r.Lower, Nodes: r.Exhausted, Last: r.Last})
}

// setDeep writes a Deepener's state into the record's fields of it.
func setDeep(r *job.SplitRecord, st search.DeepState) {
	r.Bound, r.Lower, r.Exhausted, r.Last = st.Bound, st.Lower, st.Nodes, st.Last
}

// Budget is what one walk or subtree of r may spend: the rest of the
// state's nodes, its deadline, until ctx ends.
func Budget(ctx context.Context, r job.SplitRecord) search.Budget {
	b := search.Budget{Ctx: ctx, Deadline: r.Deadline}
	if r.MaxNodes > 0 {
		b.MaxNodes = max(r.MaxNodes-r.Nodes, 1)
	}
	return b
}

// OverBudget reports whether the record has spent the state's budget at
// now.
func OverBudget(r job.SplitRecord, now time.Time) bool {
	return search.Budget{MaxNodes: r.MaxNodes, Deadline: r.Deadline}.ExhaustedAt(r.Nodes, now)
}

// Lay lays out the iteration at the record's Bound: its split depth and
// number of subtrees, the nodes of the walk that chose them (walked) and
// the least f above the bound the walk cut off. It changes nothing
// (false) when the iteration is laid out already: another process won.
func Lay(r *job.SplitRecord, depth, total int, walked int64, next int) bool {
	if r.End != "" || r.Laid() {
		return false
	}
	r.Iteration++
	r.Depth, r.Total, r.Count, r.Gen = depth, total, 0, 0
	r.Answered = make([]byte, (total+7)/8)
	r.Next = next
	r.IterNodes = walked
	r.Nodes += walked
	return true
}

// Apply counts a subtree's answer. It changes nothing (false) for an
// answer already counted (a redelivery), one of another iteration (late)
// or one to a record that has ended: every answer is counted once.
func Apply(r *job.SplitRecord, a job.SubtreeAnswer) bool {
	if r.End != "" || !r.Laid() || a.Iteration != r.Iteration || a.Index < 0 || a.Index >= r.Total {
		return false
	}
	if a.Stop != "" {
		// The search it had was what the record had left, and others only
		// add: the state has spent its budget (or was cancelled).
		r.Nodes += a.Nodes
		r.IterNodes += a.Nodes
		return Stop(r, a.Stop)
	}
	byteAt, bit := a.Index/8, byte(1)<<(a.Index%8)
	if r.Answered[byteAt]&bit != 0 {
		return false
	}
	r.Answered[byteAt] |= bit
	r.Count++
	r.Nodes += a.Nodes
	r.IterNodes += a.Nodes
	r.Next = min(r.Next, a.Next)
	if a.Prefix != nil {
		r.Big = keepHeavy(r.Big, job.SplitHeavy{Prefix: append([]uint8(nil), a.Prefix...), Nodes: a.Nodes})
	}
	if a.Path != nil {
		Solved(r, a.Path)
	}
	return true
}

// Solved ends the record with path, found in the iteration to its Bound:
// IDA*'s answer, whose length is the lower bound proved (search.Deepener
// says so of a pass that reached the goal).
func Solved(r *job.SplitRecord, path []uint8) {
	d := deepener(r)
	_, out, _ := d.Done(search.Pass{OK: true, D: len(path), Path: path}, 0)
	r.Path, r.Lower, r.End = out.Path, out.LowerBound, job.EndSolved
}

// keepHeavy adds h to heavy if it is among the MaxHeavy largest.
func keepHeavy(heavy []job.SplitHeavy, h job.SplitHeavy) []job.SplitHeavy {
	if len(heavy) < MaxHeavy {
		return append(heavy, h)
	}
	least := 0
	for i := range heavy {
		if heavy[i].Nodes < heavy[least].Nodes {
			least = i
		}
	}
	if h.Nodes > heavy[least].Nodes {
		heavy[least] = h
	}
	return heavy
}

// Heavy is the record's heavy subtrees for search.Refine.
func Heavy(r job.SplitRecord) []search.Heavy {
	out := make([]search.Heavy, len(r.Heavy))
	for i, h := range r.Heavy {
		out[i] = search.Heavy{Prefix: h.Prefix, Nodes: h.Nodes}
	}
	return out
}

// Complete reports whether every subtree of the current iteration has
// answered without a solution: the iteration is exhausted.
func Complete(r job.SplitRecord) bool {
	return r.End == "" && r.Laid() && r.Count == r.Total
}

// Advance hands a complete iteration to search.Deepener.Done, which
// moves the record to the next bound (not yet laid out) and the lower
// bound it proves, or ends it failed when the iteration cut nothing off.
// It changes nothing (false) when the iteration is not complete.
func Advance(r *job.SplitRecord) bool {
	if !Complete(*r) {
		return false
	}
	d := deepener(r)
	if done, _, err := d.Done(search.Pass{Next: r.Next}, r.IterNodes); done {
		// A pass that neither reached the goal nor stopped ends only
		// when it cut nothing off (search.ErrNoSolution).
		r.End, r.Error = job.EndFailed, fmt.Sprintf("%v: the search cut nothing off", err)
		return true
	}
	setDeep(r, d.DeepState)
	r.IterNodes = 0
	r.Total, r.Count, r.Answered, r.Next = -1, 0, nil, search.NoNext
	r.Heavy, r.Big, r.Target = r.Big, nil, 0
	return true
}

// Stop ends a record that has not ended with end (job.EndBudget,
// job.EndCancelled): false when it had ended already.
func Stop(r *job.SplitRecord, end string) bool {
	if r.End != "" {
		return false
	}
	r.End = end
	return true
}

// Pending lists the subtrees of the current iteration not yet answered.
func Pending(r job.SplitRecord) []int {
	if !r.Laid() {
		return nil
	}
	out := make([]int, 0, r.Total-r.Count)
	for i := range r.Total {
		if !r.IsAnswered(i) {
			out = append(out, i)
		}
	}
	return out
}
