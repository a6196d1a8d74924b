package main

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
)

// maxGenerate bounds one generation batch of `results serve --generate`.
const maxGenerate = 5000

// sampler is the Generator of `results serve --generate`: it enqueues
// uniform random states as a batch, sized by how common the length is in
// the stored distribution, and keeps at most one batch in flight per
// puzzle and length (a client polling with generate=true does not flood
// the queue). The walks and table draws of `producer --target-length` need
// solver code that this binary does not link; sampling needs none.
//
// Each batch is watched: once as many distinct states of its length are
// stored as were asked for, the rest of the batch is cancelled (its
// remaining jobs are answered as failed at once instead of solved; issue
// 29: asked for 3 states, it kept solving 1,578 candidates after the
// missing ones were found).
type sampler struct {
	ctx        context.Context // the server's lifetime: watchers stop with it
	st         *store.Store
	js         jetstream.JetStream
	qc         queue.Config
	maxPayload int64
	log        *slog.Logger
	every      time.Duration // how often a watcher looks

	mu       sync.Mutex
	inFlight map[genKey]int64 // batch still being solved, per target
	rng      *rand.Rand
}

type genKey struct {
	puzzle string
	length int
}

var _ httpapi.Generator = (*sampler)(nil)

func newSampler(ctx context.Context, st *store.Store, js jetstream.JetStream, qc queue.Config, maxPayload int64, log *slog.Logger, seed uint64) *sampler {
	return &sampler{ctx: ctx, st: st, js: js, qc: qc, maxPayload: maxPayload, log: log, every: time.Second,
		inFlight: map[genKey]int64{}, rng: rand.New(rand.NewPCG(seed, 0x5a))}
}

// watch settles batch every g.every until it is done with.
func (g *sampler) watch(batch int64, k genKey, target int64) {
	t := time.NewTicker(g.every)
	defer t.Stop()
	for {
		select {
		case <-g.ctx.Done():
			return
		case <-t.C:
		}
		done, err := g.settle(g.ctx, batch, k, target)
		if err != nil {
			g.log.Warn("generate: watching a batch", "batch", batch, "err", err)
		}
		if done {
			return
		}
	}
}

// settle reports whether batch needs no more watching: it finished, was
// cancelled, or enough distinct states of k's length (target) are stored,
// when it cancels the rest of the batch.
func (g *sampler) settle(ctx context.Context, batch int64, k genKey, target int64) (bool, error) {
	p, err := g.st.BatchProgress(ctx, batch)
	if err != nil {
		return false, err
	}
	if !p.Finished() && p.CancelledAt == nil {
		have, err := g.st.DistinctAtLength(ctx, k.puzzle, k.length)
		if err != nil {
			return false, err
		}
		if have < target {
			return false, nil
		}
		if _, err := g.st.CancelBatch(ctx, batch); err != nil {
			return false, err
		}
		if err := queue.CancelBatch(ctx, g.js, g.qc, batch, time.Now()); err != nil {
			return false, fmt.Errorf("batch %d is marked cancelled, but the solvers were not told: %w", batch, err)
		}
		g.log.Info("generate: enough found, the rest of the batch is cancelled", "batch", batch, "puzzle", k.puzzle, "length", k.length, "stored", have)
	}
	g.mu.Lock()
	if g.inFlight[k] == batch {
		delete(g.inFlight, k)
	}
	g.mu.Unlock()
	return true, nil
}

func (g *sampler) Generate(ctx context.Context, spec puzzle.Spec, length, missing int) (int64, int, error) {
	k := genKey{spec.String(), length}
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.inFlight[k]; ok {
		p, err := g.st.BatchProgress(ctx, b)
		if err != nil {
			return 0, 0, err
		}
		if !p.Finished() && p.CancelledAt == nil {
			return b, int(p.Total), nil
		}
		delete(g.inFlight, k)
	}
	// The share of random states at this length, from what is stored; a
	// probe of 20 per state wanted when too little is.
	d, err := g.st.PuzzleDistribution(ctx, spec.String())
	if err != nil {
		return 0, 0, err
	}
	stored, err := g.st.DistinctAtLength(ctx, spec.String(), length)
	if err != nil {
		return 0, 0, err
	}
	n := min(maxGenerate, max(20*missing, 200))
	if d.Total >= 200 {
		var at int64
		for _, c := range d.Counts {
			if c.Length == length {
				at = c.Count
			}
		}
		p := (float64(at) + 0.5) / float64(d.Total)
		n = min(maxGenerate, max(missing, int(math.Ceil(float64(missing)/p*1.3))))
	}
	states := make([]string, n)
	for i := range states {
		states[i] = puzzle.Random(spec, g.rng).String()
	}
	batch, err := g.st.CreateBatch(ctx, spec.String(), string(result.ModeOptimal), int64(n))
	if err != nil {
		return 0, 0, err
	}
	if err := g.st.SetBatchSource(ctx, batch, map[string]string{"generated": "sample"}, map[string]any{"mode": "optimal"}, ""); err != nil {
		return 0, 0, err
	}
	chunk := policy.ChunkSize(spec, result.ModeOptimal, 0, g.maxPayload)
	pub := queue.NewPublisher(g.js, 256)
	for first := 0; first < n; first += chunk {
		j := job.Job{V: job.Version, ID: fmt.Sprintf("%d-%d", batch, first), BatchID: batch, Puzzle: spec.String(),
			FirstSeq: int64(first), States: states[first:min(first+chunk, n)], Mode: string(result.ModeOptimal)}
		if err := pub.Publish(ctx, j); err != nil {
			return 0, 0, fmt.Errorf("generate: %w", err)
		}
	}
	if err := pub.Flush(ctx); err != nil {
		return 0, 0, fmt.Errorf("generate: %w", err)
	}
	if err := g.st.SetEnqueued(ctx, batch, int64(n)); err != nil {
		return 0, 0, err
	}
	g.inFlight[k] = batch
	go g.watch(batch, k, stored+int64(missing))
	return batch, n, nil
}
