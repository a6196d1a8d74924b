package search

// The one IDA* driver, after twsearch's: every tree search here
// (sliding tables-free and over pattern databases, plain and weighted;
// Loopover's general, 5×5 and 4×4 searches) runs its iterations through
// Deepen, which owns the bounds, the proved lower bound, the outcome and
// the switch to parallel iterations, while each search keeps its own
// hand-written dfs over concrete types (no interface call per node) and
// counts its nodes on its Gate. A search that cannot block in Iterate
// (the split search) steps the same state, a Deepener, itself.

// Tree is one search as Deepen drives it: the root and the workspace of
// a hand-written dfs. Deepen calls it once per iteration, never per node.
type Tree interface {
	// Iterate searches, on the calling goroutine (or as the search sees
	// fit: the PDB search's lanes), every path from the root whose cost
	// f = g + h (or g + h·w) stays within it.Bound. It returns what the
	// iteration found (Path valid until the next call) and the nodes it
	// cost; the tree counts the nodes of its own dfs on its Gate, so that
	// a budget spans the iterations.
	Iterate(it Iteration) (Pass, int64)
	// Walker is a copy of the root for one goroutine of a parallel
	// iteration to bound (IterateParallel): it explores only the work
	// items at depth split it claims from sh or, walk, only counts them.
	Walker(bound int, sh *Shared, split int, walk bool) Walker
}

// PathFor is path with room for a path to bound (bound+1 moves),
// reusing its array when it is large enough.
func PathFor(path []uint8, bound int) []uint8 {
	if cap(path) < bound+1 {
		return make([]uint8, bound+1)
	}
	return path[:bound+1]
}

// Alone is a Tree's Iterate searched alone on the calling goroutine: dfs
// from the root counts its nodes on g, lowers *next to the least f it
// cut off and fills path. Called once per iteration, so the indirect call
// costs nothing; the dfs loops stay concrete.
func Alone(g *Gate, next *int, path []uint8, dfs func() (int, bool)) (Pass, int64) {
	*next = NoNext
	n0 := g.Nodes
	d, ok := dfs()
	return Pass{D: d, OK: ok, Stopped: g.Stopped, Next: *next, Path: path}, g.Nodes - n0
}

// Iteration is what Deepen tells a Tree about the iteration to run.
type Iteration struct {
	Bound   int   // the cost bound: nodes of greater f are cut off
	Before  int64 // nodes spent before this iteration, every worker's
	Last    int64 // nodes of the iteration before (0 before the first)
	Workers int   // goroutines the search may use (at least 1)
	// Split is the depth of the last iteration split into work items
	// (IterateParallel, lanes): the next one's tree is larger, so its
	// split is no shallower.
	Split *int
}

// Deepening is how Deepen runs a search.
type Deepening struct {
	// H0 is the root's admissible bound, parity-rounded where the search
	// rounds: the lower bound proved before any iteration, and (times
	// Weight) the first iteration's bound.
	H0 int
	// Weight is the heuristic weight; Unweighted (or less) is plain IDA*,
	// whose answers are proved optimal.
	Weight  Weight
	Workers int // ≤ 1: every iteration alone
	// ParallelAbove is the size of an iteration after which the next ones
	// run on Workers goroutines (0: the package's ParallelAbove).
	ParallelAbove int64
	// Keeps, when set, reports that the iteration after one of last nodes
	// stays with Iterate even on several workers: the search splits it its
	// own way (the PDB search's lanes).
	Keeps func(last int64) bool
}

// Deepen runs IDA* over t: iterations to growing bounds, each bound the
// least f cut off by the one before, until one reaches the goal, the
// budget stops one (ErrBudgetExceeded, with the lower bound proved: the
// bound of the unfinished iteration when unweighted, every shorter path
// having been refuted; H0 when weighted), or one cuts nothing off
// (ErrNoSolution). Once an iteration has passed ParallelAbove nodes and
// Workers > 1, the following ones run in parallel (IterateParallel).
// Nodes counts every worker's nodes.
func Deepen(t Tree, d Deepening) (Outcome, error) {
	s := NewDeepener(d)
	split := 0
	for {
		var p Pass
		var n int64
		if s.Parallel() {
			b := s.Bound
			p, n = IterateParallel(s.d.Workers, s.Nodes, s.Last, &split, func(sh *Shared, at int, walk bool) Walker {
				return t.Walker(b, sh, at, walk)
			})
		} else {
			p, n = t.Iterate(Iteration{Bound: s.Bound, Before: s.Nodes, Last: s.Last, Workers: s.d.Workers, Split: &split})
		}
		if done, out, err := s.Done(p, n); done {
			return out, err
		}
	}
}

// Deepener is Deepen's state between iterations, for a search that runs
// its iterations its own way and cannot block in Iterate (the split
// search, whose iterations are searched by a fleet and whose state lives
// in a record between them, internal/split): it runs the iteration to
// Bound, then hands the outcome to Done.
type Deepener struct {
	d Deepening
	DeepState
}

// DeepState is what a Deepener knows between iterations: all a search
// needs to go on from where another process left it (ResumeDeepener).
type DeepState struct {
	Bound int   // the next iteration's bound
	Lower int   // no solution is shorter: proved so far
	Nodes int64 // every iteration's nodes so far
	Last  int64 // nodes of the last iteration
}

// ResumeDeepener is the Deepener of a search run as d says that stands at
// st: the iterations before st.Bound are done.
func ResumeDeepener(d Deepening, st DeepState) Deepener {
	s := NewDeepener(d)
	s.DeepState = st
	return s
}

// NewDeepener is the state of a search run as d says, before its first
// iteration.
func NewDeepener(d Deepening) Deepener {
	d.Weight = max(d.Weight, Unweighted)
	d.Workers = max(d.Workers, 1)
	if d.ParallelAbove == 0 {
		d.ParallelAbove = ParallelAbove
	}
	return Deepener{d: d, DeepState: DeepState{Bound: d.Weight.Scale(d.H0), Lower: d.H0}}
}

// Parallel reports whether the next iteration runs on the workers.
func (s *Deepener) Parallel() bool {
	return s.d.Workers > 1 && s.Last > s.d.ParallelAbove && (s.d.Keeps == nil || !s.d.Keeps(s.Last))
}

// Done takes an iteration's outcome and the nodes it cost, and reports
// whether the search ended there, with the search's outcome; if not, the
// next iteration's Bound is set.
func (s *Deepener) Done(p Pass, nodes int64) (bool, Outcome, error) {
	s.Nodes += nodes
	unweighted := s.d.Weight <= Unweighted
	switch {
	case p.OK:
		out := Outcome{Path: append([]uint8(nil), p.Path[:p.D]...), Nodes: s.Nodes, LowerBound: p.D, Optimal: unweighted}
		if !unweighted {
			out.LowerBound = s.d.H0
		}
		return true, out, nil
	case p.Stopped:
		return true, Outcome{Nodes: s.Nodes, LowerBound: s.Lower}, ErrBudgetExceeded
	case p.Next == NoNext:
		return true, Outcome{Nodes: s.Nodes}, ErrNoSolution
	}
	if unweighted {
		s.Lower = p.Next // every path shorter than the next bound was refuted
	}
	s.Bound, s.Last = p.Next, nodes
	return false, Outcome{}, nil
}
