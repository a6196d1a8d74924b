// Package job holds the wire types that travel on JetStream between the
// producer, solverd and results. They are versioned JSON: a consumer refuses
// a version it does not know instead of guessing.
package job

import (
	"time"

	"github.com/tessera-solver/tessera/internal/result"
)

// Version of the wire format. Bump it on any incompatible change.
const Version = 1

// Job is one message on TESSERA_JOBS: a contiguous range of a batch.
// Tiny puzzles are chunked many states per message so the per-message cost
// of JetStream does not dominate; long solves travel one per message.
type Job struct {
	V        int      `json:"v"`
	ID       string   `json:"id"` // "<batch>-<first seq>": the Nats-Msg-Id, unique per batch range
	BatchID  int64    `json:"batch"`
	Puzzle   string   `json:"puzzle"`
	FirstSeq int64    `json:"seq"` // sequence number of States[0] within the batch
	States   []string `json:"states"`
	Mode     string   `json:"mode"`
	// Budget is the per-state budget the job asks for (its JSON fields
	// max_nodes and timeout_ms sit at the top level of the job).
	Budget
	// Goal is an explicit target for swap boards (same shape and number
	// of ones as every state); empty means the standard goal.
	Goal string `json:"goal,omitempty"`
	// Replace marks a re-run of stored states (`results requeue`): its
	// answers replace the stored rows they improve.
	Replace bool `json:"replace,omitempty"`
	// Split asks for each state to be solved as a split search:
	// its IDA* iterations cut into subtree jobs that any solverd takes.
	Split bool `json:"split,omitempty"`
	// Priority is the level the job is published at (high, normal or low;
	// "" is normal): it picks the job's subject, so a solverd never reads
	// it, but a requeue keeps its batch's.
	Priority Priority `json:"priority,omitempty"`
}

// Budget is a per-state budget as a job asks for it and a batch stores it
// (batches.options): nodes and milliseconds, 0 when not named. It is the
// wire's form only: a solver reads it once, at decode, into a
// search.Budget and grants it there (search.Grant: the puzzle's default
// time for what is not named, under the host's ceiling).
type Budget struct {
	MaxNodes  int64 `json:"max_nodes,omitempty"`
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

// NewBudget is the budget of nodes and timeout (0: not named), as the
// producer's and requeue's --budget-nodes and --timeout give them. A
// timeout under a millisecond still travels as one, so that it stays a
// limit instead of reading as none.
func NewBudget(nodes int64, timeout time.Duration) Budget {
	b := Budget{MaxNodes: nodes, TimeoutMS: timeout.Milliseconds()}
	if timeout > 0 && b.TimeoutMS == 0 {
		b.TimeoutMS = 1
	}
	return b
}

// Timeout is the per-state time asked for (0: none named).
func (b Budget) Timeout() time.Duration { return time.Duration(b.TimeoutMS) * time.Millisecond }

// Results is one message on TESSERA_RESULTS: the answers to one Job, in the
// order of its States (Results[i] has sequence FirstSeq+i).
type Results struct {
	V        int             `json:"v"`
	JobID    string          `json:"job"`
	BatchID  int64           `json:"batch"`
	Puzzle   string          `json:"puzzle"`
	FirstSeq int64           `json:"seq"`
	Results  []result.Result `json:"results"`
	// Replace: the answers of a requeued job (see Job.Replace).
	Replace bool `json:"replace,omitempty"`
}

// DeadJob is a job message copied to TESSERA_DEAD because it could not be
// answered with result rows, as the results writer reads it (the copy
// itself carries the original bytes, with the reason in headers).
type DeadJob struct {
	Reason    string `json:"reason"`
	Subject   string `json:"subject"`    // the job's subject on TESSERA_JOBS
	StreamSeq uint64 `json:"stream_seq"` // its sequence in TESSERA_JOBS
	Data      []byte `json:"data"`       // the original job message
}
