package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/httpapi"
	"github.com/tessera-solver/tessera/internal/job"
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
type sampler struct {
	st         *store.Store
	js         jetstream.JetStream
	maxPayload int64

	mu       sync.Mutex
	inFlight map[genKey]int64 // batch still being solved, per target
	rng      *rand.Rand
}

type genKey struct {
	puzzle string
	length int
}

var _ httpapi.Generator = (*sampler)(nil)

func newSampler(st *store.Store, js jetstream.JetStream, maxPayload int64, seed uint64) *sampler {
	return &sampler{st: st, js: js, maxPayload: maxPayload, inFlight: map[genKey]int64{}, rng: rand.New(rand.NewPCG(seed, 0x5a))}
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
	if err := g.st.SetBatchSource(ctx, batch, map[string]string{"generated": "sample"}, map[string]any{"mode": "optimal"}); err != nil {
		return 0, 0, err
	}
	chunk := job.ChunkSize(spec, result.ModeOptimal, 0, g.maxPayload)
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
	return batch, n, nil
}
