package main

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
)

// When TESSERA_JOBS is at its byte limit, enqueue waits and says so once,
// instead of failing: every job is stored once a consumer frees room, and
// it hears when the stream has room again.
func TestEnqueueWaitsForAFullJobsStream(t *testing.T) {
	_, nc := natstest.Server(t)
	js, err := queue.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	qc := queue.DefaultConfig()
	qc.MaxBytes = 32 << 10
	if err := queue.EnsureStreams(ctx, js, qc); err != nil {
		t.Fatal(err)
	}
	spec, err := puzzle.ParseSpec("8")
	if err != nil {
		t.Fatal(err)
	}
	var fulls, rooms atomic.Int32
	var said bytes.Buffer
	notice := &fullNotice{w: &said}
	b := batchJobs{batch: 5, puzzle: spec.String(), mode: "optimal", chunk: 10,
		onFull: func(full bool) {
			if full {
				fulls.Add(1)
			} else {
				rooms.Add(1)
			}
			notice.onFull(full)
		}}
	// About 100 KB of jobs into a 32 KiB stream: a consumer starts taking
	// them only once the producer has been told the stream is full.
	const n = 2000
	drained := make(chan int, 1)
	go func() {
		for fulls.Load() == 0 && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
		cons, err := js.CreateOrUpdateConsumer(ctx, queue.JobsStream, jetstream.ConsumerConfig{Durable: "drain", AckPolicy: jetstream.AckExplicitPolicy})
		if err != nil {
			t.Error(err)
			drained <- 0
			return
		}
		got := 0
		for got < n/10 && ctx.Err() == nil {
			batch, err := cons.Fetch(50, jetstream.FetchMaxWait(time.Second))
			if err != nil {
				continue
			}
			for m := range batch.Messages() {
				_ = m.Ack()
				got++
			}
		}
		drained <- got
	}()
	stored, err := enqueue(ctx, js, b, randomStates(spec, n, 1), 16, nil)
	if err != nil {
		t.Fatalf("enqueue into a full stream: %v (want it to wait)", err)
	}
	if stored != n {
		t.Errorf("%d states enqueued, want %d", stored, n)
	}
	if got := <-drained; got != n/10 {
		t.Errorf("%d jobs consumed, want %d", got, n/10)
	}
	if fulls.Load() < 1 || rooms.Load() != fulls.Load() {
		t.Errorf("told full %d times and room again %d times: want each at least once, paired", fulls.Load(), rooms.Load())
	}
	want := "producer: TESSERA_JOBS is full (its byte limit, nats.max_bytes): waiting for the solvers to take jobs\n"
	if said.String() != want {
		t.Errorf("the producer said %q, want once %q", said.String(), want)
	}
	t.Logf("refused as full %d times; said %q", fulls.Load(), said.String())
}
