package main

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// Generation methods (--method): how candidates for a target optimal
// length are drawn. Every candidate is solved optimally by the pipeline,
// which proves its length and replays its answer; only those proved at
// exactly the target length count.
const (
	methodAuto   = "auto"
	methodTable  = "table"  // uniform among the states at that depth of a whole-space table (≤ 10 cells, or a built 12-cell table file)
	methodSample = "sample" // uniform random states: right where the length is common
	methodWalk   = "walk"   // random walks from the goal, their length steered toward the target: short tails
	methodDeep   = "deep"   // short random walks from stored states just below the target: long tails
)

// maxRound bounds the candidates of one round, so progress is reported
// and the method's estimate refined as the search goes.
const maxRound = 5000

// generator draws candidates for one target length.
type generator struct {
	spec   puzzle.Spec
	length int
	rng    *rand.Rand
	method string
	// table: the whole-space table (built in memory where the family
	// routes the board to one, policy.RouteTable, or a built 12-cell
	// table file), closed with closeTable.
	table      *fulltable.Table
	closeTable func() error
	tablesDir  string
	// walk: the walk length, steered each round toward the target.
	walk int
	// sample: the estimated fraction of random states at the target.
	p float64
}

// generate keeps enqueuing rounds of candidates until count distinct
// states of optimal length exactly g.length are stored, then prints them,
// one JSON object per line.
func generate(ctx context.Context, f flags, seedSet bool, cfg config.Config, spec puzzle.Spec, stdout, stderr io.Writer) error {
	if f.targetLength < 0 || f.count < 1 {
		return usagef("--target-length L --count N: want L ≥ 0 and N ≥ 1")
	}
	if m, _ := result.ParseMode(cfg.Solver.Mode); m != result.ModeOptimal {
		return usagef("--target-length needs proved optimal lengths: --mode optimal")
	}
	if !seedSet {
		var b [8]byte
		if _, err := crand.Read(b[:]); err != nil {
			return fmt.Errorf("random seed: %w", err)
		}
		f.seed = binary.LittleEndian.Uint64(b[:])
		fmt.Fprintf(stderr, "producer: --seed %d\n", f.seed)
	}
	e, err := connect(ctx, f, cfg, spec, stderr)
	if err != nil {
		return err
	}
	defer e.close()
	g := &generator{spec: spec, length: f.targetLength, rng: rand.New(rand.NewPCG(f.seed, 0x6e6)), method: f.method, walk: f.targetLength,
		tablesDir: cfg.Solver.TablesDir}
	if err := g.choose(ctx, e.st); err != nil {
		return err
	}
	if g.closeTable != nil {
		defer g.closeTable()
	}
	if g.table != nil {
		// The table knows how many states there are at the length.
		var n int64
		if g.length <= g.table.MaxDepth() {
			n = g.table.Counts[g.length]
		}
		if n < int64(f.count) {
			return fmt.Errorf("only %d distinct states of %s have optimal length %d; %d were asked for", n, spec, g.length, f.count)
		}
	}
	opts := optionsRecord{Mode: string(result.ModeOptimal), Budget: job.NewBudget(cfg.Solver.MaxNodes, cfg.Solver.Timeout),
		Chunk:    policy.ChunkSize(spec, result.ModeOptimal, cfg.Producer.ChunkSize, e.nc.MaxPayload()),
		Priority: job.Priority(cfg.Producer.Priority)}
	quiet := f
	quiet.wait, quiet.quiet = true, true
	start := time.Now()
	var candidates int64
	for round := 1; ; round++ {
		have, err := e.st.DistinctAtLength(ctx, spec.String(), g.length)
		if err != nil {
			return err
		}
		if have >= int64(f.count) {
			break
		}
		need := int64(f.count) - have
		cands, err := g.candidates(ctx, e.st, need)
		if err != nil {
			return err
		}
		if len(cands) == 0 {
			return fmt.Errorf("only %d distinct states of %s have optimal length %d; %d were asked for", have, spec, g.length, f.count)
		}
		batch, err := e.st.CreateBatch(ctx, spec.String(), string(result.ModeOptimal), int64(len(cands)))
		if err != nil {
			return err
		}
		if err := e.st.SetBatchSource(ctx, batch, sourceRecord{Generated: g.method}, opts, string(opts.Priority)); err != nil {
			return err
		}
		if err := enqueueAndFollow(ctx, quiet, e.st, e.js, e.nc, e.pipeline, spec, batch, textStates(cands), nil, opts, 0, io.Discard, io.Discard); err != nil {
			return err
		}
		candidates += int64(len(cands))
		now, err := e.st.DistinctAtLength(ctx, spec.String(), g.length)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "producer: round %d (%s): %d candidates in batch %d, %d new states of length %d; %d of %d (%.1f%% of candidates hit)\n",
			round, g.method, len(cands), batch, now-have, g.length, min(now, int64(f.count)), f.count, 100*float64(now-have)/float64(len(cands)))
		if err := g.learn(ctx, e.st, batch, len(cands), now-have); err != nil {
			return err
		}
	}
	sols, err := e.st.ServeScrambles(ctx, store.ScrambleQuery{Puzzle: spec.String(), Length: g.length, Count: f.count})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	for _, s := range sols {
		if err := enc.Encode(struct {
			State  string `json:"state"`
			Moves  string `json:"moves"`
			Length int    `json:"length"`
			Nodes  int64  `json:"nodes"`
		}{s.State, deref(s.Moves), deref(s.Length), s.Nodes}); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "producer: %d distinct states of optimal length %d (%s) in %v, from %d candidates\n",
		len(sols), g.length, spec, time.Since(start).Round(time.Millisecond), candidates)
	return nil
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

// choose picks the method for --method auto: the table where the whole
// space fits, uniform sampling where the target length is common enough
// (judged from the distribution stored so far), else walks from the goal
// below the mean and searches from deep states above it.
func (g *generator) choose(ctx context.Context, st *store.Store) error {
	small := policy.Of(g.spec, false) == policy.RouteTable
	if !small {
		// A 12-cell Loopover board whose table file is built serves too.
		t, closer, ok, err := catalog.OpenFullTable(g.tablesDir, g.spec)
		if err != nil {
			return err
		}
		if ok {
			small, g.table, g.closeTable = true, t, closer
		}
	}
	switch g.method {
	case methodTable:
		if !small {
			return usagef("--method table: %s has more than %d cells and no built table file; use sample, walk or deep", g.spec, policy.TableCells)
		}
	case methodSample, methodWalk, methodDeep:
	case methodAuto:
		if small {
			g.method = methodTable
			break
		}
		d, err := st.PuzzleDistribution(ctx, g.spec.String())
		if err != nil {
			return err
		}
		g.method = methodSample
		if d.Total >= 500 {
			var at int64
			for _, c := range d.Counts {
				if c.Length == g.length {
					at = c.Count
				}
			}
			g.p = (float64(at) + 0.5) / float64(d.Total)
			if g.p < 1.0/2000 {
				g.method = methodWalk
				if float64(g.length) > d.Mean {
					g.method = methodDeep
				}
			}
		}
	default:
		return usagef("--method %q: want auto, table, sample, walk or deep", g.method)
	}
	if g.method == methodTable && g.table == nil {
		t, err := fulltable.Build(g.spec)
		if err != nil {
			return err
		}
		g.table = t
	}
	if g.method != methodTable && g.closeTable != nil {
		g.closeTable() // a table file opened but not used
		g.table, g.closeTable = nil, nil
	}
	return nil
}

// candidates draws the next round's candidates for need more states.
func (g *generator) candidates(ctx context.Context, st *store.Store, need int64) ([]string, error) {
	var out []string
	switch g.method {
	case methodTable:
		// Every state drawn is at the depth; twice what is missing, so the
		// states drawn again (stored already) do not cost a round each.
		cells := make([]uint8, g.spec.Cells())
		for _, i := range g.table.SampleAtDepth(g.length, int(2*need), g.rng) {
			g.table.Cells(i, cells)
			out = append(out, puzzle.State{Spec: g.spec, Cells: cells}.String())
		}
	case methodSample:
		// Without an estimate yet, a probe round of 20 per state wanted
		// (lengths rarer than 1 in 20 are learned from it).
		n := min(int64(maxRound), max(20*need, 200))
		if g.p > 0 {
			n = min(int64(maxRound), int64(math.Ceil(float64(need)/g.p*1.3)))
		}
		for range max(n, need) {
			out = append(out, puzzle.Random(g.spec, g.rng).String())
		}
	case methodWalk:
		for range min(4*need, maxRound) {
			out = append(out, puzzle.RandomWalk(g.spec, g.rng, g.walk).String())
		}
	case methodDeep:
		// Seeds just below the target, pushed a few random moves further.
		seeds, err := st.StatesBetween(ctx, g.spec.String(), g.length-6, g.length-1, 500)
		if err != nil {
			return nil, err
		}
		if len(seeds) == 0 {
			g.method = methodSample // nothing deep yet: sampling finds the first ones
			return g.candidates(ctx, st, need)
		}
		for range min(4*need, maxRound) {
			s, err := puzzle.Parse(g.spec, seeds[g.rng.IntN(len(seeds))])
			if err != nil {
				return nil, err
			}
			for range 1 + g.rng.IntN(6) {
				ms := puzzle.LegalMoves(s)
				if err := s.Apply(ms[g.rng.IntN(len(ms))]); err != nil {
					return nil, err
				}
			}
			out = append(out, s.String())
		}
	}
	return out, nil
}

// learn refines the method from a finished round: the hit rate of
// sampling, the walk length from where the round's lengths fell.
func (g *generator) learn(ctx context.Context, st *store.Store, batch int64, n int, hits int64) error {
	switch g.method {
	case methodSample:
		g.p = max(float64(hits), 0.5) / float64(n)
		if g.p < 1.0/2000 {
			// Too rare to sample: walk toward a short tail, search from
			// deep states toward a long one.
			d, err := st.PuzzleDistribution(ctx, g.spec.String())
			if err != nil {
				return err
			}
			g.method = methodWalk
			if d.Total > 0 && float64(g.length) > d.Mean {
				g.method = methodDeep
			}
		}
	case methodWalk:
		d, err := st.BatchDistribution(ctx, batch)
		if err != nil || d.Total == 0 {
			return err
		}
		// Random walks double back: their optimal lengths fall short of the
		// walk. Lengthen the walk by the shortfall, keeping its parity
		// (a sliding state's distance has the parity of every path to it).
		if short := float64(g.length) - d.Mean; short > 0.5 {
			step := int(math.Ceil(short))
			if g.spec.Family().PathParity() && step%2 == 1 {
				step++
			}
			g.walk += step
		}
	}
	return nil
}
