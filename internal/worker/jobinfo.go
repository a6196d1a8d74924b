package worker

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/queue"
)

// JobInfo is what Options.OnJob is told of a job message a worker takes
// up: metrics (queue lag, jobs by lane, redeliveries) and the registry of
// workers (what each process is working on).
type JobInfo struct {
	// Published is when the stream stored the message.
	Published time.Time
	// Lane is "quick", "heavy" or "split" (a subtree job).
	Lane string
	// Batch, FirstSeq, States and Puzzle name the job's rows (for a
	// subtree job: the split state's batch and sequence, one state);
	// zero when the message is malformed.
	Batch    int64
	FirstSeq int64
	States   int
	Puzzle   string
	// Delivery is the message's delivery count (1: the first).
	Delivery uint64
	// Subtree: a split search's subtree job.
	Subtree bool
	// Progress is the nodes the job's solves have expanded so far
	// (search.Budget.Progress); nil for a subtree job.
	Progress *atomic.Int64
}

// jobInfo is d's JobInfo, progress its solves' counter.
func jobInfo(m jetstream.Msg, meta *jetstream.MsgMetadata, d decoded, progress *atomic.Int64) JobInfo {
	info := JobInfo{Published: meta.Timestamp, Lane: queue.LaneOfSubject(m.Subject()), Batch: d.job.BatchID,
		FirstSeq: d.job.FirstSeq, States: len(d.job.States), Puzzle: d.job.Puzzle, Delivery: meta.NumDelivered,
		Progress: progress}
	if d.dead == "" && d.invalid == "" {
		info.Puzzle = d.spec.String() // "sliding:4x4" for "15"
	}
	return info
}

// subtreeInfo is the JobInfo of a subtree job message.
func subtreeInfo(m jetstream.Msg, meta *jetstream.MsgMetadata) JobInfo {
	info := JobInfo{Published: meta.Timestamp, Lane: queue.LaneOfSubject(m.Subject()), Delivery: meta.NumDelivered,
		Subtree: true, States: 1}
	if sj, err := job.DecodeSubtreeJob(m.Data()); err == nil {
		info.Puzzle = sj.Puzzle
		_, _ = fmt.Sscanf(sj.Key, "%d.%d", &info.Batch, &info.FirstSeq) // job.SplitKey
	}
	return info
}
