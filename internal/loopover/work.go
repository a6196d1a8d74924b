package loopover

import "github.com/tessera-solver/tessera/internal/search"

// Work is one search's state over a Solver: the board, the path, the
// iteration's bound and the least f above it, and the node gate; and, in
// a worker of a parallel iteration, its share of the work items. The
// general dfs runs on it, and the 4×4 and 5×5 searches embed it.
type Work struct {
	*Solver
	B     Board
	Path  []uint8
	Bound int
	Next  int
	Gate  search.Gate // counts the nodes, stops the search

	// A worker of a parallel iteration (shared nil when searching alone):
	// the nodes at depth split are work items (see search.Items); a worker
	// descends only into those it claimed.
	shared *search.Shared
	split  int // −1 alone
	items  search.Items
}

// NewWork is a search from board b under the budget, alone until its tree
// hands a copy to each worker of a parallel iteration.
func NewWork(s *Solver, b Board, bud search.Budget) Work {
	return Work{Solver: s, B: b, Gate: search.NewGate(bud), split: -1}
}

// Skip reports whether the node at depth g is a work item of a parallel
// iteration that another worker explores: every dfs asks it first.
func (w *Work) Skip(g int) bool { return g == w.split && !w.claim() }

// claim numbers a work item of a parallel iteration and reports whether
// this worker explores it; it stops the worker when another has found
// the goal or run out.
func (w *Work) claim() bool {
	mine, stop := w.items.Claim()
	if stop {
		w.Gate.Stopped = true
	}
	return mine
}

// NewTree is a search as search.Deepen drives it: iter searches from the
// root with w, whose general part is base (w itself, or the Work a
// specialised search embeds); fork makes a worker's W around a copy of
// base (its own path, gate and work items). Whatever else a W sizes per
// depth, iter sizes for base.Bound.
func NewTree[W any](w W, base *Work, iter func(W) (int, bool), fork func(c *Work) (W, *Work)) search.Tree {
	return tree[W]{walker[W]{w, base, iter}, fork}
}

type tree[W any] struct {
	walker[W]
	fork func(c *Work) (W, *Work)
}

// Iterate is one iteration alone to it.Bound.
func (t tree[W]) Iterate(it search.Iteration) (search.Pass, int64) {
	b := t.base
	b.Bound = it.Bound
	b.grow()
	return search.Alone(&b.Gate, &b.Next, b.Path, func() (int, bool) { return t.iter(t.w) })
}

// Walker is a copy of the start to bound for one goroutine of a
// parallel iteration, or for a walk of its top, at depth split.
func (t tree[W]) Walker(bound int, sh *search.Shared, split int, walk bool) search.Walker {
	c := *t.base
	c.Bound = bound
	c.Gate = t.base.Gate.Worker(sh)
	c.Path = nil // its own, not the root's
	c.grow()
	c.Next = search.NoNext
	c.shared, c.split, c.items = sh, split, search.NewItems(sh, walk)
	w, base := t.fork(&c)
	return walker[W]{w, base, t.iter}
}

// grow sizes the path for w.Bound.
func (w *Work) grow() { w.Path = search.PathFor(w.Path, w.Bound) }

// walker is a worker as search.IterateParallel drives it: iter searches
// from the root with w, whose general part is base.
type walker[W any] struct {
	w    W
	base *Work
	iter func(W) (int, bool)
}

func (x walker[W]) Walk() search.Pass {
	d, ok := x.iter(x.w)
	b := x.base
	return search.Pass{D: d, OK: ok, Stopped: !ok && b.shared.Out.Load(), Next: b.Next, Path: b.Path, Items: b.items.Met()}
}

func (x walker[W]) Nodes() int64 { return x.base.Gate.Nodes }

// Shift applies move code m to the search board.
func (w *Work) Shift(m int) {
	s := w.Solver
	cells := &w.B.Cells
	C := s.c
	ln := int(s.line[m])
	if s.axis[m] == AxisRow {
		row := cells[ln*C : ln*C+C]
		if s.dir[m] == 0 { // right
			t := row[C-1]
			copy(row[1:], row[:C-1])
			row[0] = t
		} else {
			t := row[0]
			copy(row, row[1:])
			row[C-1] = t
		}
		return
	}
	R := s.r
	if s.dir[m] == 0 { // down
		t := cells[(R-1)*C+ln]
		for r := R - 1; r > 0; r-- {
			cells[r*C+ln] = cells[(r-1)*C+ln]
		}
		cells[ln] = t
	} else {
		t := cells[ln]
		for r := 0; r+1 < R; r++ {
			cells[r*C+ln] = cells[(r+1)*C+ln]
		}
		cells[(R-1)*C+ln] = t
	}
}
