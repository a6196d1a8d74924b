package faults

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// tally is what the checker counted over the batches of one scenario.
type tally struct {
	states, rows int64
	byStatus     map[string]int64
	// dead counts the dead letters of the batches, by source.
	dead map[string]int
	// drained is how long after the batches were checked the streams
	// were found empty.
	drained time.Duration
}

// waitFinished waits until every batch has a row per state, or fails t
// after limit. It returns the time taken, measured from since.
func (s *suite) waitFinished(t *testing.T, since time.Time, limit time.Duration, batches ...int64) time.Duration {
	t.Helper()
	deadline := time.Now().Add(limit)
	for _, id := range batches {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			b, err := s.st.BatchProgress(ctx, id)
			cancel()
			if err == nil && b.Finished() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("batch %d not finished after %v: %+v (err %v)", id, limit, b, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return time.Since(since)
}

// check is the one checker every scenario ends with. For each batch: every
// seq 0..total-1 holds exactly one row, or is covered by a dead letter of a
// job too malformed to answer (source jobs) and by nothing else; the batch's
// status counters equal the rows' statuses; its distance counts equal the
// histogram of its proved-optimal rows; every row that is not an answer
// says why; every dead letter has a reason and its payload. Then the
// streams are drained: nothing left in TESSERA_JOBS or TESSERA_RESULTS,
// nothing pending on any consumer.
func (s *suite) check(t *testing.T, batches ...int64) tally {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute+s.drain)
	defer cancel()
	tl := tally{byStatus: map[string]int64{}, dead: map[string]int{}}
	for _, id := range batches {
		s.checkBatch(ctx, t, id, &tl)
	}
	tl.drained = s.checkDrained(ctx, t)
	return tl
}

func (s *suite) checkBatch(ctx context.Context, t *testing.T, id int64, tl *tally) {
	t.Helper()
	b, err := s.st.BatchProgress(ctx, id)
	if err != nil {
		t.Fatalf("batch %d: %v", id, err)
	}
	if b.Total < 0 {
		t.Errorf("batch %d: total still unknown", id)
		return
	}
	tl.states += b.Total

	var buf bytes.Buffer
	if err := s.st.Export(ctx, id, &buf, store.FormatJSONL); err != nil {
		t.Fatalf("export batch %d: %v", id, err)
	}
	covered := make([]int, b.Total) // rows and dead letters per seq
	byStatus := map[string]int64{}
	hist := map[int]int64{}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 64<<20)
	var rows int64
	for sc.Scan() {
		var r store.Solution
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("batch %d: export line: %v", id, err)
		}
		rows++
		if r.Seq < 0 || r.Seq >= b.Total {
			t.Errorf("batch %d: row seq %d outside 0..%d", id, r.Seq, b.Total-1)
			continue
		}
		covered[r.Seq]++
		byStatus[r.Status]++
		if r.Optimal && r.Status == string(result.StatusSolved) && r.Length != nil {
			hist[*r.Length]++
		}
		switch result.Status(r.Status) {
		case result.StatusSolved:
			if r.Moves == nil || r.Length == nil {
				t.Errorf("batch %d seq %d: solved without moves", id, r.Seq)
			}
		case result.StatusInvalid, result.StatusUnsolvable, result.StatusFailed, result.StatusCancelled:
			if r.Error == nil || strings.TrimSpace(*r.Error) == "" {
				t.Errorf("batch %d seq %d: %s row without a reason", id, r.Seq, r.Status)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("batch %d: read export: %v", id, err)
	}
	tl.rows += rows
	for k, v := range byStatus {
		tl.byStatus[k] += v
	}

	letters, err := s.st.DeadLetters(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range letters {
		tl.dead[l.Source]++
		if strings.TrimSpace(l.Reason) == "" {
			t.Errorf("batch %d: dead letter %d (%s) has no reason", id, l.ID, l.Source)
		}
		if len(l.Payload) == 0 {
			t.Errorf("batch %d: dead letter %d (%s) has no payload", id, l.ID, l.Source)
		}
		if l.Source != store.DeadJobs {
			// Collisions and unstorable results leave a row in place:
			// they explain, they do not account for a state.
			continue
		}
		var j job.Job
		if err := json.Unmarshal(l.Payload, &j); err != nil || l.Seq == nil {
			t.Errorf("batch %d: dead letter %d names the batch but its job cannot be read: %v", id, l.ID, err)
			continue
		}
		for i := range j.States {
			if q := *l.Seq + int64(i); q >= 0 && q < b.Total {
				covered[q]++
			}
		}
	}
	for q, n := range covered {
		if n != 1 {
			t.Errorf("batch %d seq %d: %d rows and job dead letters, want exactly 1", id, q, n)
			if t.Failed() && q > 20 {
				break
			}
		}
	}
	if b.Done != rows {
		t.Errorf("batch %d: done counter %d, rows %d", id, b.Done, rows)
	}
	counters := map[string]int64{}
	for i, st := range result.Statuses() {
		if n := b.ByStatus()[i]; n != 0 {
			counters[string(st)] = n
		}
	}
	if !maps.Equal(counters, byStatus) {
		t.Errorf("batch %d: status counters %v, rows %v", id, counters, byStatus)
	}
	dist, err := s.st.BatchDistribution(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int]int64{}
	for _, c := range dist.Counts {
		stored[c.Length] = c.Count
	}
	if !maps.Equal(stored, hist) {
		t.Errorf("batch %d: distance_counts %v, optimal rows %v", id, stored, hist)
	}
}

// checkDrained waits until TESSERA_JOBS and TESSERA_RESULTS are empty and
// no consumer holds or owes a message, and returns how long that took. It
// waits s.drain at most: 30 s (acks are asynchronous), or longer where a
// message may be stranded below its consumer's ack floor and only the
// dead-letter handler's sweep (every minute, acting on the second look)
// removes it.
func (s *suite) checkDrained(ctx context.Context, t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(s.drain)
	for {
		left, err := s.leftovers(ctx)
		if err == nil && len(left) == 0 {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Errorf("streams not drained after %v: %v (err %v)", s.drain, left, err)
			return time.Since(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// leftovers lists what is still in the work streams or on their
// consumers. TESSERA_DEAD keeps its records (limits retention); what
// counts there is that its consumers owe nothing.
func (s *suite) leftovers(ctx context.Context) ([]string, error) {
	var left []string
	for _, name := range []string{queue.JobsStream, queue.ResultsStream, queue.DeadStream} {
		st, err := s.js.Stream(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", name, err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", name, err)
		}
		if name != queue.DeadStream && info.State.Msgs > 0 {
			left = append(left, fmt.Sprintf("%s holds %d messages", name, info.State.Msgs))
		}
		cl := st.ListConsumers(ctx)
		for ci := range cl.Info() {
			if ci.NumPending > 0 || ci.NumAckPending > 0 || ci.NumRedelivered > 0 {
				left = append(left, fmt.Sprintf("%s/%s: %d pending, %d unacked, %d redelivered",
					name, ci.Name, ci.NumPending, ci.NumAckPending, ci.NumRedelivered))
			}
		}
		if err := cl.Err(); err != nil {
			return nil, fmt.Errorf("stream %s consumers: %w", name, err)
		}
	}
	return left, nil
}

// counter reads a stream's deliveries: the deliveries so far on the given
// consumers and the number of messages ever stored in the stream. Between
// two readings, the growth of the first minus that of the second is the
// number of redeliveries.
type counter struct {
	stream    string
	consumers []string
}

var (
	jobDeliveries    = counter{queue.JobsStream, queue.JobsConsumers()}
	resultDeliveries = counter{queue.ResultsStream, []string{queue.ResultsConsumer}}
)

type reading struct{ delivered, stored uint64 }

func (s *suite) read(t *testing.T, c counter) reading {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := s.js.Stream(ctx, c.stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return reading{}
	}
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := reading{stored: info.State.LastSeq}
	for _, name := range c.consumers {
		con, err := st.Consumer(ctx, name)
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		ci, err := con.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r.delivered += ci.Delivered.Consumer
	}
	return r
}

// redelivered counts the redeliveries of c since reading r.
func (s *suite) redelivered(t *testing.T, c counter, r reading) int64 {
	t.Helper()
	now := s.read(t, c)
	return int64(now.delivered-r.delivered) - int64(now.stored-r.stored)
}

// deadSince returns the dead letters recorded after the one with id after.
func (s *suite) deadSince(t *testing.T, after int64) []store.DeadLetter {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	all, err := s.st.DeadLetters(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := slices.BinarySearchFunc(all, after+1, func(l store.DeadLetter, id int64) int { return int(l.ID - id) })
	return all[i:]
}

// lastDead is the id of the newest dead letter (0: none).
func (s *suite) lastDead(t *testing.T) int64 {
	t.Helper()
	ls := s.deadSince(t, 0)
	if len(ls) == 0 {
		return 0
	}
	return ls[len(ls)-1].ID
}
