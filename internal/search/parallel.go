package search

import (
	"math"
	"sync"
	"sync/atomic"
)

// Parallel IDA*, as every tree search here does it: once an iteration
// has passed ParallelAbove nodes, the following ones run on every worker.
// The nodes at the split depth are the work items. Every worker walks the
// tree above the split and numbers the items in the order it meets them
// (the same order for all), and explores only those it drew from one
// shared counter: each item is searched exactly once, with no locks in
// the search. The split depth is chosen per iteration by walking the top
// of the tree until it holds SplitWant items.

// ParallelAbove is the size of an iteration (nodes) after which the next
// ones run in parallel: below it, starting goroutines costs more than it
// saves, and the answer of a small search stays deterministic. A hard
// 15-puzzle over 15-pdb-78 takes tens of thousands of nodes per
// iteration, so it must be split early: with 2^20 (the first choice, made
// for the 24-puzzle) two threads never helped one. Measured on the ten
// hardest of Korf's 100, 256 split earlier gave more than 1024 or 4096.
const ParallelAbove = 256

// MaxSplit is the deepest split. Every worker walks the tree above it (a
// few thousand nodes at most at this depth); the subtrees below, up to
// thousands, are shared out one at a time, so that their heavy-tailed
// sizes even out between the workers.
const MaxSplit = 12

// itemShare and minItems set how many work items a parallel iteration
// wants (SplitWant). The walk above the split costs about two nodes per
// item for every worker, and once more to choose the depth; iterations
// grow about fivefold, so this keeps the walk to a few percent of the
// iteration (the ten hardest of Korf's 100 cost 5 % more nodes on two
// threads than on one) while the items are small enough to even out.
// Measured against 64/16, 16/16, 4/16 and 16/128 on those ten.
const (
	itemShare = 32
	minItems  = 64
)

// SplitWant is how many work items a parallel iteration wants, given the
// size of the iteration before it (nodes) and the workers.
func SplitWant(last int64, workers int) int64 {
	return max(last/(itemShare*int64(workers)), minItems*int64(workers))
}

// Shared is what the workers of one parallel iteration share.
type Shared struct {
	claims atomic.Int64 // work items handed out
	Nodes  atomic.Int64 // nodes reported by the workers, for MaxNodes
	Found  atomic.Bool  // a worker reached the goal: the others stop
	Out    atomic.Bool  // a worker ran out of budget: the others stop
}

// Items numbers the work items one worker meets.
type Items struct {
	s    *Shared
	met  int64 // work items met so far
	mine int64 // the last item drawn; −1 before the first
}

// NewItems is a worker's numbering of the items of s. A walker (walk)
// never draws an item: it only counts them, to choose the split.
func NewItems(s *Shared, walk bool) Items {
	it := Items{s: s, mine: -1}
	if walk {
		it.mine = math.MaxInt64
	}
	return it
}

// Met is the number of items met so far.
func (it *Items) Met() int64 { return it.met }

// Claim numbers the next item and reports whether this worker explores
// it; stop reports that another worker found the goal or ran out of
// budget. A worker that has finished its last item draws the next number
// from the shared counter, looking at those flags first: in a small
// iteration a worker may meet no budget check (every CheckEvery nodes)
// before the end of its share.
func (it *Items) Claim() (mine, stop bool) {
	i := it.met
	it.met++
	if it.mine < i {
		if it.s.Found.Load() || it.s.Out.Load() {
			return false, true
		}
		it.mine = it.s.claims.Add(1) - 1
	}
	return it.mine == i, false
}

// Report adds a worker's nodes since its last report to the shared count
// and reports whether it must stop: another worker found the goal or ran
// out, or the budget b, counted over every worker, is exhausted (which
// stops the others too).
func (s *Shared) Report(b Budget, nodes int64, reported *int64) bool {
	total := s.Nodes.Add(nodes - *reported)
	*reported = nodes
	if s.Found.Load() || s.Out.Load() {
		return true
	}
	if b.Exhausted(total) {
		s.Out.Store(true)
		return true
	}
	return false
}

// Pass is the outcome of one walk of an iteration's tree: the whole
// iteration, one worker's share of it, or a walk of its top.
type Pass struct {
	D       int     // the solution's length, when OK
	OK      bool    // the goal was reached
	Stopped bool    // the budget ran out
	Next    int     // the least bound above the iteration's seen
	Path    []uint8 // the solution's moves (D of them), when OK
	Items   int64   // work items met at the split (a walk of the top)
}

// Walker is one goroutine's search of a parallel iteration: a copy of the
// search's start that explores only the work items it claims.
type Walker interface {
	Walk() Pass
	// Nodes is how many nodes the walker has expanded.
	Nodes() int64
}

// IterateParallel runs one iteration on workers goroutines. It first
// walks the top of the tree to choose the split: the shallowest depth,
// from *lastSplit (at least 1) up to MaxSplit, holding SplitWant(last,
// workers) items; *lastSplit keeps the choice for the next iteration.
// newWalker makes a walker over sh splitting at split (walk: one that
// only counts the items). before is the nodes the search spent before
// this iteration, so that a budget counts every worker. It returns the
// iteration's outcome and the nodes it cost, the walks of the top
// included.
func IterateParallel(workers int, before, last int64, lastSplit *int, newWalker func(sh *Shared, split int, walk bool) Walker) (Pass, int64) {
	want := SplitWant(last, workers)
	split := max(*lastSplit, 1)
	var nodes int64
	for {
		var sh Shared
		sh.Nodes.Store(before + nodes)
		top := newWalker(&sh, split, true)
		p := top.Walk()
		nodes += top.Nodes()
		if p.OK || p.Stopped || p.Items == 0 {
			return p, nodes // the walk above the split was the whole iteration
		}
		if p.Items >= want || split == MaxSplit {
			break
		}
		split++
	}
	*lastSplit = split
	var sh Shared
	sh.Nodes.Store(before + nodes)
	ws := make([]Walker, workers)
	passes := make([]Pass, workers)
	out := Pass{Next: NoNext}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range ws {
		ws[i] = newWalker(&sh, split, false)
		wg.Go(func() {
			passes[i] = ws[i].Walk()
			if passes[i].OK {
				mu.Lock()
				defer mu.Unlock()
				if !out.OK {
					out.D, out.OK, out.Path = passes[i].D, true, passes[i].Path
					sh.Found.Store(true)
				}
			}
		})
	}
	wg.Wait()
	for i, w := range ws {
		nodes += w.Nodes()
		out.Next = min(out.Next, passes[i].Next)
	}
	out.Stopped = !out.OK && sh.Out.Load()
	return out, nodes
}

// NoNext is a Pass's Next when no node was cut off by the bound.
const NoNext = 1 << 30
