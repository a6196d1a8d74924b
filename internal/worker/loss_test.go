package worker_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/queue/queuetest"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

// A poison job (a state whose solve panics every time) reaches its failed
// row in bounded time although the consumer's BackOff grows: nats-server
// adds BackOff[n-1]-BackOff[0] to NakWithDelay, which the worker must
// compensate. Here that extra would be 2.7 s + 5.7 s; the retry delays
// asked for total 70 ms. Run on the embedded 2.15 and, when installed, on
// the system nats-server (2.9.10).
func TestPoisonJobBoundedTime(t *testing.T) {
	cfg := queue.DefaultConfig()
	cfg.MaxDeliver = 4
	cfg.AckWait = 300 * time.Millisecond
	cfg.BackOff = []time.Duration{300 * time.Millisecond, 3 * time.Second, 6 * time.Second}
	for _, server := range []string{"embedded", "external"} {
		t.Run(server, func(t *testing.T) {
			var url string
			if server == "external" {
				url = natstest.External(t)
			} else {
				url, _ = natstest.Server(t)
			}
			nc, err := nats.Connect(url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(nc.Close)
			e := newEnvOn(t, nc, cfg)
			var calls atomic.Int32
			e.start(t, worker.Options{Workers: 1, Solve: func(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
				calls.Add(1)
				panic("poison")
			}})
			start := time.Now()
			e.publish(t, mkJob(1, 0, "boom"))
			got := e.results(t, 1)[0]
			took := time.Since(start)
			t.Logf("%s: poison job recorded failed after %v, %d solves", server, took.Round(time.Millisecond), calls.Load())
			if got.Results[0].Status != result.StatusFailed || !strings.Contains(got.Results[0].Error, "poison") {
				t.Errorf("result %+v", got.Results[0])
			}
			if took > 2500*time.Millisecond {
				t.Errorf("poison job took %v to be recorded; the BackOff extra was not compensated", took)
			}
		})
	}
}

// A result too large for one message (a move list of megabytes, as a big
// swap board's) is recorded without its moves, saying why, on the first
// delivery, rather than failing to publish on every delivery and ending
// as "workers crashed".
func TestOversizedResultRecorded(t *testing.T) {
	e := newEnv(t, fastConfig())
	huge := strings.Repeat("1,1R ", 500_000) // 2.5 MB
	e.start(t, worker.Options{Workers: 1, Solve: func(_ context.Context, spec puzzle.Spec, text string, _ solve.Options) result.Result {
		return result.Result{Puzzle: spec.String(), State: text, Status: result.StatusSolved, Moves: huge, Length: 500_000, Optimal: true, LowerBound: 10}
	}})
	j := mkJob(1, 0, "big")
	j.Puzzle = "swap:4x4"
	e.publish(t, j)
	got := e.results(t, 1)[0].Results[0]
	if got.Status != result.StatusBudgetExceeded || got.Moves != "" || got.LowerBound != 500_000 || !strings.Contains(got.Error, "does not fit") {
		t.Errorf("result %+v", got)
	}
	eventually(t, "job acked", func() bool { return e.streamMsgs(t, queue.JobsStream) == 0 })
}

// Job messages left below their consumer's ack floor (as after a kill -9
// of nats-server: acknowledged, but the work-queue removal lost) are never
// delivered again; the sweep answers and removes them on its second look,
// and leaves deliverable messages alone. The stranding is made with a
// limits-retention TESSERA_JOBS, which keeps acked messages.
func TestStrandedJobsSwept(t *testing.T) {
	e := newEnv(t, fastConfig())
	if err := e.js.DeleteStream(e.ctx, queue.JobsStream); err != nil {
		t.Fatal(err)
	}
	if _, err := e.js.CreateStream(e.ctx, jetstream.StreamConfig{Name: queue.JobsStream, Subjects: []string{queue.JobsSubjects}}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		e.publish(t, mkJob(1, int64(i), "s"))
	}
	cons, err := e.js.CreateConsumer(e.ctx, queue.JobsStream, jetstream.ConsumerConfig{
		Durable: "stranding", AckPolicy: jetstream.AckExplicitPolicy, FilterSubject: queue.JobsSubjects})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		msgs, err := queue.Fetch(e.ctx, cons, 1, time.Second)
		if err != nil || len(msgs) != 1 {
			t.Fatal(len(msgs), err)
		}
		if err := msgs[0].DoubleAck(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	var s worker.Stranded
	if lines, err := s.SweepStranded(e.ctx, e.js); err != nil || len(lines) != 0 {
		t.Fatalf("first sweep acted: %v %v", lines, err)
	}
	lines, err := s.SweepStranded(e.ctx, e.js)
	if err != nil || len(lines) != 2 {
		t.Fatalf("second sweep: %d lines %v, want 2", len(lines), err)
	}
	if !strings.Contains(lines[0], "stranded") || !strings.Contains(lines[0], "job 1-0") {
		t.Errorf("report %q", lines[0])
	}
	if n := e.streamMsgs(t, queue.JobsStream); n != 1 {
		t.Errorf("jobs stream holds %d, want 1 (the deliverable one)", n)
	}
	for _, r := range e.results(t, 2) {
		if r.Results[0].Status != result.StatusFailed || !strings.Contains(r.Results[0].Error, "stranded") {
			t.Errorf("results %+v", r)
		}
	}
}

// A real kill -9 of a real nats-server while jobs and results are being
// acknowledged as fast as they come, then a restart on the same store:
// whatever the kill stranded below the consumers' ack floors (the issue
// measured hundreds of results and one job per kill on 2.9.10), two sweeps
// of each stream leave nothing there. Run on the pinned server and, when
// installed, Debian's 2.9.10.
func TestNothingStrandedAfterServerKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills nats-server processes (skipped with -short)")
	}
	bins := map[string]string{"pinned": natstest.Binary(t)}
	if _, err := os.Stat(natstest.ExternalBinary); err == nil {
		bins["2.9"] = natstest.ExternalBinary
	}
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) { strandedAfterKill(t, bin) })
	}
}

func strandedAfterKill(t *testing.T, bin string) {
	p := natstest.StartProcessWith(t, bin)
	js, err := queue.New(p.Conn(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := queue.DefaultConfig()
	if err := queue.EnsureStreams(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	heavy, err := queuetest.EnsureJobsConsumer(ctx, js, cfg, job.LaneHeavy)
	if err != nil {
		t.Fatal(err)
	}
	quick, err := queuetest.EnsureJobsConsumer(ctx, js, cfg, job.LaneQuick)
	if err != nil {
		t.Fatal(err)
	}
	resCons, err := queue.EnsureResultsConsumer(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A publisher and three consumers run flat out across three kill -9s
	// of the server (acks and removals in flight each time).
	const n = 1000            // per round, jobs and results each
	var acked [2]atomic.Int64 // jobs, results
	var published atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			subj, data, err := queue.EncodeJob(mkJob(1, int64(i), "1 2 3/4 5 6/7 8 0"))
			if err != nil {
				panic(err)
			}
			_, jerr := js.PublishAsync(subj, data)
			_, rerr := js.PublishAsync(queue.ResultsSubject("8"), []byte(`{"v":1}`))
			if jerr != nil || rerr != nil {
				time.Sleep(10 * time.Millisecond) // the server is down
				continue
			}
			published.Add(1)
			if i%200 == 0 {
				select {
				case <-js.PublishAsyncComplete():
				case <-time.After(2 * time.Second):
				}
			}
		}
	}()
	for i, cons := range []jetstream.Consumer{heavy, quick, resCons} {
		i = min(i, 1)
		if cons != resCons {
			i = 0
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				batch, err := cons.Fetch(100, jetstream.FetchMaxWait(200*time.Millisecond))
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				for m := range batch.Messages() {
					if m.Ack() == nil {
						acked[i].Add(1)
					}
				}
			}
		}()
	}
	for round := range 3 {
		deadline := time.Now().Add(30 * time.Second)
		for acked[0].Load() < int64(n*(round+1)) || acked[1].Load() < int64(n*(round+1)) {
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("round %d: acknowledged %d jobs and %d results only (%d published)", round, acked[0].Load(), acked[1].Load(), published.Load())
			}
			time.Sleep(time.Millisecond)
		}
		p.Kill()
		p.RestartJetStream()
	}
	close(stop)
	wg.Wait()

	found := func(stream string) int {
		t.Helper()
		rep, err := queue.BelowAckFloor(ctx, js, stream)
		if err != nil {
			t.Fatalf("%s: %v", stream, err)
		}
		return len(rep.Msgs)
	}
	// After a restart the streams may take a moment to answer.
	eventually(t, "streams answer after the restart", func() bool {
		_, err := queue.BelowAckFloor(ctx, js, queue.ResultsStream)
		return err == nil
	})
	jobsBefore, resultsBefore := found(queue.JobsStream), found(queue.ResultsStream)
	// What the old sweep tripped on: a subject-filtered get of a stranded
	// job that answers "not found" although a plain get returns it.
	misses := 0
	if rep, err := queue.BelowAckFloor(ctx, js, queue.JobsStream); err == nil {
		jobs, err := js.Stream(ctx, queue.JobsStream)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rep.Msgs {
			if got, err := jobs.GetMsg(ctx, m.Sequence, jetstream.WithGetMsgSubject(queue.JobsSubjects)); err != nil || got.Sequence != m.Sequence {
				misses++
			}
		}
	}

	var s worker.Stranded
	for range 2 {
		if _, err := s.SweepStranded(ctx, js); err != nil {
			t.Fatalf("jobs sweep: %v", err)
		}
	}
	resCons, err = queue.EnsureResultsConsumer(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	src, err := queue.NewResultsSource[jetstream.Msg](resCons)
	if err != nil {
		t.Fatal(err)
	}
	src.SweepStranded(js, 0, func(_ string, err error) {
		if err != nil {
			t.Errorf("results sweep: %v", err)
		}
	})
	// The writer's part: the second look hands over what the first saw.
	// What a look does not hand over is an ordinary delivery: Nak it back.
	for range 2 + resultsBefore/100 {
		ms, err := src.Fetch(ctx, 100, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if md, _ := m.Metadata(); md != nil && m.Reply() == "" {
				_ = m.Ack() // a stranded one: written (here: nothing to write), then removed
			} else {
				_ = m.Nak()
			}
		}
	}
	jobsAfter, resultsAfter := found(queue.JobsStream), found(queue.ResultsStream)
	t.Logf("stranded below the ack floor after kill -9 and restart: jobs %d (%d of them missed by a subject-filtered get), results %d; after two sweeps: %d, %d",
		jobsBefore, misses, resultsBefore, jobsAfter, resultsAfter)
	if jobsAfter != 0 || resultsAfter != 0 {
		t.Errorf("still stranded after two sweeps: %d jobs, %d results", jobsAfter, resultsAfter)
	}
}

// flakyJS answers the first `fail` consumer look-ups with a timeout, as a
// cluster does while it elects a leader after losing a node.
type flakyJS struct {
	jetstream.JetStream
	fail atomic.Int32
}

func (f *flakyJS) Consumer(ctx context.Context, stream, name string) (jetstream.Consumer, error) {
	if f.fail.Add(-1) >= 0 {
		return nil, context.DeadlineExceeded
	}
	return f.JetStream.Consumer(ctx, stream, name)
}

// The dead-letter handler's set-up is retried: in the rolling-restart
// fault scenario on nats-server 2.9.10 one timeout while ensuring its
// consumer ended the whole solverd. It now waits the election out, and a
// stop during set-up is a clean stop.
func TestDeadLettersSetupRetried(t *testing.T) {
	e := newEnv(t, fastConfig())
	f := &flakyJS{JetStream: e.js}
	f.fail.Store(3)
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- worker.RecordExhausted(ctx, f, e.cfg, nil) }()
	deadline := time.Now().Add(waitFor)
	for f.fail.Load() >= 0 || func() bool { _, err := e.js.Consumer(e.ctx, queue.DeadStream, queue.DeadConsumer); return err != nil }() {
		select {
		case err := <-done:
			t.Fatalf("the handler gave up on a transient error: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the handler never set itself up")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped after set-up: %v, want its context's end", err)
	}

	// Stopped while it is still retrying: its context's end (which the
	// worker takes for a clean stop), not a set-up failure.
	f.fail.Store(1 << 20)
	ctx, cancel = context.WithCancel(e.ctx)
	go func() { done <- worker.RecordExhausted(ctx, f, e.cfg, nil) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "dead letters") {
		t.Fatalf("stopped during set-up: %v, want its context's end", err)
	}
}
