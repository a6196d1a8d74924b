package job

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"time"
)

// A split search's wire and key-value vocabulary (docs/ARCHITECTURE.md
// "Split search"): the coordination record of one state, the subtree job
// and its answer. The rules by which they change the record are
// internal/split's.

// How a split search ended (SplitRecord.End).
const (
	EndSolved    = "solved"
	EndBudget    = "budget"
	EndCancelled = "cancelled"
	EndFailed    = "failed"
)

// SplitRecord is the coordination record of one split state, the value
// of its key in the split bucket. Every change is a compare-and-set on
// the entry's revision, so that any process can continue it. Bound,
// Lower, Exhausted and Last are the search's IDA* state between
// iterations (search.DeepState), and a Next of 1<<30 is search.NoNext:
// no node was cut off.
type SplitRecord struct {
	V      int    `json:"v"`
	Job    string `json:"job"` // the parent job's id: the dedup id of the state's results
	Batch  int64  `json:"batch"`
	Seq    int64  `json:"seq"`
	Puzzle string `json:"puzzle"`
	State  string `json:"state"`
	Mode   string `json:"mode"`
	// The whole state's budget: nodes (0: none) and a deadline (zero:
	// none), counted from the record's creation.
	MaxNodes int64     `json:"max_nodes,omitempty"`
	Deadline time.Time `json:"deadline,omitzero"`
	Started  time.Time `json:"started"`

	Iteration int `json:"iteration"` // 1 for the first; 0 before it is laid out
	// Gen is the generation of the iteration's subtree jobs: a stalled
	// iteration's unanswered subtrees are published again under the next
	// one, with ids the stream's duplicate window has not seen.
	Gen       int    `json:"generation,omitempty"`
	Bound     int    `json:"bound"`
	Depth     int    `json:"depth"`              // the iteration's split depth
	Total     int    `json:"total"`              // its subtrees; −1 while it is not laid out
	Answered  []byte `json:"answered,omitempty"` // bit i: subtree i answered
	Count     int    `json:"count"`              // subtrees answered
	Next      int    `json:"next"`               // least f above the bound seen in the iteration
	IterNodes int64  `json:"iteration_nodes"`    // the iteration's nodes so far
	Last      int64  `json:"last"`               // the nodes of the iteration before
	// Target is the subtree size (nodes) the iteration's layout aimed at
	// when it split the Heavy subtrees deeper (search.Refine); 0: the
	// layout is the frontier's subtrees as they are.
	Target int64 `json:"target,omitempty"`
	// Heavy are the iteration before's heavy subtrees, which the layout
	// splits deeper; Big are this iteration's so far (at most
	// split.MaxHeavy, the largest), Heavy once it is exhausted.
	Heavy []SplitHeavy `json:"heavy,omitempty"`
	Big   []SplitHeavy `json:"big,omitempty"`

	Nodes int64 `json:"nodes"` // every node, counted once per subtree, the walks included
	// Exhausted is Nodes when the current iteration began: the nodes of
	// the exhausted iterations, which do not depend on which process
	// searched what (the last iteration's do: the subtrees begun when the
	// goal was found).
	Exhausted int64   `json:"exhausted"`
	Lower     int     `json:"lower"` // the lower bound proved: no shorter solution exists
	Path      []uint8 `json:"path,omitempty"`
	End       string  `json:"end,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// SplitHeavy is a subtree that took far more nodes than the subtrees were
// meant to (search.Heavy on the wire).
type SplitHeavy struct {
	Prefix []uint8 `json:"prefix"`
	Nodes  int64   `json:"nodes"`
}

// SplitKey is the key of state seq of batch in the split bucket.
func SplitKey(batch, seq int64) string { return fmt.Sprintf("%d.%d", batch, seq) }

// AnswerKey is the key of the answer to subtree index of iteration of the
// split search of key; index −1 is the wildcard of the iteration's
// answers.
func AnswerKey(key string, iteration, index int) string {
	if index < 0 {
		return fmt.Sprintf("%s.%d.*", key, iteration)
	}
	return fmt.Sprintf("%s.%d.%d", key, iteration, index)
}

// Laid reports whether the current iteration's subtrees are laid out.
func (r *SplitRecord) Laid() bool { return r.Iteration > 0 && r.Total >= 0 }

// SubtreeAnswer is what one subtree's search answered.
type SubtreeAnswer struct {
	Iteration int     `json:"iteration"`
	Index     int     `json:"index"`
	Nodes     int64   `json:"nodes"`
	Next      int     `json:"next"`
	Path      []uint8 `json:"path,omitempty"` // a solution from the root
	// Prefix is the subtree's, sent only when it was heavy (Nodes over
	// search.HeavyFactor × the target): the next iteration splits it
	// deeper.
	Prefix []uint8 `json:"prefix,omitempty"`
	// Stop (EndBudget, EndCancelled) is set when the state's budget or
	// its batch's cancel stopped the search: its Nodes are spent, and the
	// record ends so.
	Stop string `json:"stop,omitempty"`
}

// DecodeSubtreeAnswer reads an answer and checks its fields.
func DecodeSubtreeAnswer(data []byte) (SubtreeAnswer, error) {
	var a SubtreeAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("subtree answer: %w", err)
	}
	if a.Iteration < 1 || a.Index < 0 || a.Nodes < 0 || a.Stop != "" && a.Stop != EndBudget && a.Stop != EndCancelled {
		return a, fmt.Errorf("subtree answer: iteration %d, index %d, nodes %d, stop %q", a.Iteration, a.Index, a.Nodes, a.Stop)
	}
	return a, nil
}

// IsAnswered reports whether subtree i of the current iteration is counted.
func (r *SplitRecord) IsAnswered(i int) bool {
	return r.Laid() && i >= 0 && i < r.Total && r.Answered[i/8]&(1<<(i%8)) != 0
}

// count is the number of bits set in the bitset, for validation.
func count(b []byte) int {
	n := 0
	for _, x := range b {
		n += bits.OnesCount8(x)
	}
	return n
}

// DecodeSplitRecord reads a record and checks that it is consistent.
func DecodeSplitRecord(data []byte) (SplitRecord, error) {
	var r SplitRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("split record: %w", err)
	}
	switch {
	case r.V != Version:
		return r, fmt.Errorf("split record: wire version %d is not supported (this process reads version %d)", r.V, Version)
	case r.Laid() && (len(r.Answered) != (r.Total+7)/8 || count(r.Answered) != r.Count):
		return r, fmt.Errorf("split record %s: %d subtrees answered of %d, bitset of %d bytes with %d set", SplitKey(r.Batch, r.Seq), r.Count, r.Total, len(r.Answered), count(r.Answered))
	}
	return r, nil
}

// SubtreeJob is one message of a split iteration: search the subtree of
// the state below the node Prefix reaches, to Bound, and count the answer
// into the record of Key.
type SubtreeJob struct {
	V         int     `json:"v"`
	Key       string  `json:"key"` // the record's key (SplitKey)
	Puzzle    string  `json:"puzzle"`
	State     string  `json:"state"`
	Iteration int     `json:"iteration"`
	Bound     int     `json:"bound"`
	Index     int     `json:"index"`
	Prefix    []uint8 `json:"prefix"` // move codes from the root; its g is their count
	Gen       int     `json:"gen,omitempty"`
}

// ID is the subtree job's Nats-Msg-Id: a subtree republished in one
// generation is one message; the next generation's is a new one.
func (s SubtreeJob) ID() string {
	if s.Gen > 0 {
		return fmt.Sprintf("%s.%d.%d.g%d", s.Key, s.Iteration, s.Index, s.Gen)
	}
	return fmt.Sprintf("%s.%d.%d", s.Key, s.Iteration, s.Index)
}

// DecodeSubtreeJob reads a subtree job and checks its fields.
func DecodeSubtreeJob(data []byte) (SubtreeJob, error) {
	var s SubtreeJob
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("subtree job: %w", err)
	}
	switch {
	case s.V != Version:
		return s, fmt.Errorf("subtree job: wire version %d is not supported (this process reads version %d)", s.V, Version)
	case s.Key == "" || s.Iteration < 1 || s.Index < 0 || s.Bound < len(s.Prefix):
		return s, fmt.Errorf("subtree job %s: key %q, iteration %d, index %d, bound %d for %d moves", s.ID(), s.Key, s.Iteration, s.Index, s.Bound, len(s.Prefix))
	}
	return s, nil
}
