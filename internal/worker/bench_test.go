package worker_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

// BenchmarkPipelineOverhead measures the JetStream side of the solve loop
// with a solver that costs nothing: publish jobs, solve them with two
// workers, read the results. states/s is the ceiling the queue puts on
// tiny puzzles for a given chunk size (states per job) and pull batch.
//
//	go test -run XXX -bench PipelineOverhead ./internal/worker/
func BenchmarkPipelineOverhead(b *testing.B) {
	for _, chunk := range []int{1, 100, 1000} {
		for _, batch := range []int{1, 4} {
			b.Run(fmt.Sprintf("chunk=%d/batch=%d", chunk, batch), func(b *testing.B) {
				benchPipeline(b, chunk, batch)
			})
		}
	}
}

func benchPipeline(b *testing.B, chunk, batch int) {
	s := natstest.Start(b)
	conn, err := nats.Connect(s.ClientURL())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	js, err := queue.New(conn)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := queue.DefaultConfig()
	if err := queue.EnsureStreams(ctx, js, cfg); err != nil {
		b.Fatal(err)
	}
	res, err := queue.EnsureResultsConsumer(ctx, js, cfg)
	if err != nil {
		b.Fatal(err)
	}
	const state = "8 6 7/2 5 4/3 0 1"
	moves := strings.TrimSpace(strings.Repeat("U L D R ", 8)) // a 31-move answer's size
	cheap := func(_ context.Context, spec puzzle.Spec, text string, _ solve.Options) result.Result {
		return result.Result{Puzzle: "sliding:3x3", State: text, Status: result.StatusSolved, Moves: moves, Length: 31,
			Optimal: true, LowerBound: 31, Nodes: 31, Solver: "bfs-table"}
	}
	wctx, wcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(wctx, js, worker.Options{Workers: 2, Batch: batch, Solve: cheap, PollWait: 100 * time.Millisecond,
			Queue: &cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()

	total := b.N
	jobs := (total + chunk - 1) / chunk
	var read atomic.Int64
	readDone := make(chan struct{})
	b.ResetTimer()
	start := time.Now()
	go func() {
		defer close(readDone)
		for n := 0; n < jobs; {
			msgs, err := queue.Fetch(ctx, res, 256, time.Second)
			if err != nil {
				return
			}
			for _, m := range msgs {
				_ = m.Ack()
			}
			n += len(msgs)
			read.Store(int64(n))
		}
	}()
	p := queue.NewPublisher(js, 256)
	states := make([]string, chunk)
	for i := range states {
		states[i] = state
	}
	for i := range jobs {
		n := min(chunk, total-i*chunk)
		j := job.Job{ID: fmt.Sprintf("1-%d", i*chunk), BatchID: 1, Puzzle: "sliding:3x3", FirstSeq: int64(i * chunk), States: states[:n], Mode: "optimal"}
		if err := p.Publish(ctx, j); err != nil {
			b.Fatal(err)
		}
	}
	if err := p.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	<-readDone
	el := time.Since(start)
	b.StopTimer()
	if got := read.Load(); got != int64(jobs) {
		b.Fatalf("read %d results messages, want %d", got, jobs)
	}
	b.ReportMetric(float64(total)/el.Seconds(), "states/s")
	wcancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
