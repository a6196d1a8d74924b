package faults

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// cancelInFlight cancels a batch of heavy 24-puzzles (a two-minute budget
// each) while they hold every general worker: every state must end as a
// cancelled row within seconds of the cancel, those that were running
// with the nodes they spent, and the workers must be free at once.
func cancelInFlight(t *testing.T, s *suite, heavyN, workers int) figure {
	s.solverd(t, "solverd", workers, 1)
	s.writer(t, "results")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	var in strings.Builder
	for _, inst := range instances.KorfFelner24()[:heavyN] {
		for i, c := range inst.Cells {
			if i > 0 {
				in.WriteByte(' ')
			}
			in.WriteString(strconv.Itoa(int(c)))
		}
		in.WriteByte('\n')
	}
	start := time.Now()
	heavy := s.produce(t, []byte(in.String()), "--puzzle", "24", "--file", "-", "--timeout", "2m")
	s.heavyBusy(ctx, t, workers)
	time.Sleep(time.Second) // the searches are well under way
	t0 := time.Now()
	s.run(t, nil, "results", "cancel", "--batch", strconv.FormatInt(heavy, 10))
	told := time.Since(t0)
	took := s.waitFinished(t, t0, time.Minute, heavy)
	if took > 5*time.Second {
		t.Errorf("the cancelled batch's rows were all stored %v after the cancel: its solves did not stop", took)
	}
	// The workers are free: a small batch goes through at once.
	t1 := time.Now()
	out, _ := s.run(t, nil, "producer", "--quiet", "--puzzle", "15", "--random", "20", "--seed", "3", "--mode", "fast", "--wait")
	after := time.Since(t1)
	next := batchID(t, out)
	tl := s.check(t, heavy, next)
	if got := tl.byStatus[string(result.StatusCancelled)]; got != int64(heavyN) {
		t.Errorf("%d cancelled rows, want %d (%s)", got, heavyN, statuses(tl))
	}
	var rows strings.Builder
	if err := s.st.Export(ctx, heavy, &rows, store.FormatCSV); err != nil {
		t.Fatal(err)
	}
	spent := strings.Count(rows.String(), "while it was solved")
	if spent < min(workers, heavyN) {
		t.Errorf("%d rows say they were stopped while solved, want at least %d:\n%s", spent, min(workers, heavyN), rows.String())
	}
	return figure{states: tl.states, rows: tl.rows, finish: time.Since(start),
		redelivered: s.redelivered(t, jobDeliveries, jobs), resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("%d Korf–Felner 24-puzzles (2 min budget each) on %d general workers, cancelled while %d ran: `results cancel` returned in %s, "+
			"every row stored %s after it (%d stopped mid-search with their nodes); 20 15-puzzles enqueued next finished in %s; %s",
			heavyN, workers, min(workers, heavyN), dur(told), dur(took), spent, dur(after), statuses(tl))}
}

// heavyBusy waits until the heavy lane's consumer has n jobs in hand.
func (s *suite) heavyBusy(ctx context.Context, t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := s.js.Consumer(ctx, queue.JobsStream, queue.JobsConsumer)
		if err == nil {
			if ci, err := c.Info(ctx); err == nil && ci.NumAckPending >= n {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the heavy jobs did not reach the %d general workers within a minute", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pauseBatch pauses a running batch of 8-puzzles for longer than every
// delivery of its jobs would take, then unpauses it: rows stop within
// seconds of the pause, none come while it lasts, no job is dead-lettered
// or redelivered for it, and after the unpause every state ends as one row.
func pauseBatch(t *testing.T, s *suite, n int, hold time.Duration) figure {
	s.solverd(t, "solverd", 1, 1)
	s.writer(t, "results")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	jobs, res := s.read(t, jobDeliveries), s.read(t, resultDeliveries)
	start := time.Now()
	// One state a job: enough messages that the batch is still running when
	// the pause, a process of its own, takes hold.
	id := s.produce(t, nil, "--puzzle", "8", "--random", strconv.Itoa(n), "--seed", "5", "--chunk-size", "1")
	done := func() int64 {
		b, err := s.st.BatchProgress(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return b.Done
	}
	for done() < int64(n)/10 {
		if time.Since(start) > 5*time.Minute {
			t.Fatal("a tenth of the batch did not arrive in 5 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t0 := time.Now()
	s.run(t, nil, "results", "pause", "--batch", strconv.FormatInt(id, 10))
	told := time.Since(t0)
	// Follow the rows for the whole pause: when did the last one come?
	last, lastAt := done(), t0
	for time.Since(t0) < hold {
		if d := done(); d != last {
			last, lastAt = d, time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopped := lastAt.Sub(t0)
	if stopped > 2*time.Second {
		t.Errorf("rows kept coming %v after the pause, want within 2 s", stopped)
	}
	if last >= int64(n) {
		t.Fatalf("the batch finished before the pause took hold (%d rows): the run proves nothing", last)
	}
	parked, err := queue.ParkedBatches(ctx, s.js)
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	s.run(t, nil, "results", "unpause", "--batch", strconv.FormatInt(id, 10))
	took := s.waitFinished(t, t1, 5*time.Minute, id)
	tl := s.check(t, id)
	if tl.byStatus[string(result.StatusSolved)] != int64(n) {
		t.Errorf("after the unpause: %s, want %d solved", statuses(tl), n)
	}
	re := s.redelivered(t, jobDeliveries, jobs)
	if re > 0 {
		t.Errorf("%d job redeliveries: the pause spent deliveries", re)
	}
	return figure{states: tl.states, rows: tl.rows, finish: time.Since(start), redelivered: re,
		resultsRe: s.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("paused at %d rows (`results pause` returned in %s); the last row came %s after it, then none for %s (%d jobs parked; the job ack wait is 2 s); "+
			"unpaused: finished %s later; %s", last, dur(told), dur(stopped), dur(hold-stopped), parked[id], dur(took), statuses(tl))}
}

// priority measures a small high-priority batch of 15-puzzles alone, then
// submitted behind a running normal batch many times its size: with
// priorities it must finish in about the time it takes alone (asserted
// generously: well under what waiting behind the normal batch would take).
func priority(t *testing.T, s *suite, small, big int) figure {
	ss := *s
	ss.env = append(append([]string{}, s.env...), "TESSERA_SOLVER_TABLES_DIR="+s.tables663(t), "TESSERA_SOLVER_TABLES=15-pdb-663")
	ss.solverd(t, "solverd", 2, 1)
	ss.writer(t, "results")
	jobs, res := ss.read(t, jobDeliveries), ss.read(t, resultDeliveries)
	wait := func(seed int, prio string) (int64, time.Duration) {
		t0 := time.Now()
		out, _ := ss.run(t, nil, "producer", "--quiet", "--puzzle", "15", "--random", strconv.Itoa(small), "--seed", strconv.Itoa(seed), "--priority", prio, "--wait")
		return batchID(t, out), time.Since(t0)
	}
	start := time.Now()
	aloneID, alone := wait(11, "high")
	bulk := ss.produce(t, nil, "--puzzle", "15", "--random", strconv.Itoa(big), "--seed", "12")
	ss.waitDone(t, bulk, int64(small), 5*time.Minute)
	highID, behind := wait(13, "high")
	b := ss.progress(t, bulk)
	if b.Done >= int64(big) {
		t.Fatalf("the bulk batch finished before the high-priority one: the run proves nothing")
	}
	if limit := 3*alone + 5*time.Second; behind > limit {
		t.Errorf("%d high-priority 15-puzzles took %v behind a running bulk batch, %v alone: want under %v", small, behind, alone, limit)
	}
	took := ss.waitFinished(t, start, 10*time.Minute, bulk)
	tl := ss.check(t, aloneID, bulk, highID)
	return figure{states: tl.states, rows: tl.rows, finish: took,
		redelivered: ss.redelivered(t, jobDeliveries, jobs), resultsRe: ss.redelivered(t, resultDeliveries, res),
		note: fmt.Sprintf("%d high-priority 15-puzzles (15-pdb-663, `producer --priority high --wait`) took %s alone and %s behind a running normal batch of %d (%d rows of it stored by then; it finished %s after the start); 2 general workers; %s",
			small, dur(alone), dur(behind), big, b.Done, dur(took), statuses(tl))}
}
