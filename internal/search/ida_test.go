package search

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// lineTree is a search over a tree every node of which has two children
// (moves 0 and 1) and whose goal is one leaf at depth goal, reached by
// the moves in path; h is 0 everywhere, so iteration b explores the whole
// tree to depth b. It records the iterations Deepen asks for and counts
// its nodes on its gate, as the searches do.
type lineTree struct {
	goal  int
	path  []uint8
	gate  Gate
	iters []Iteration
	walks int // walkers made
	cut   bool

	bound int
	next  int
	cur   []uint8
	sh    *Shared
	split int
	items Items
}

func (t *lineTree) dfs(g int) bool {
	if g == t.split {
		mine, stop := t.items.Claim()
		if stop {
			t.gate.Stopped = true
		}
		if !mine {
			return false
		}
	}
	if t.gate.Visit() {
		return false
	}
	if g == t.goal && slices.Equal(t.cur[:g], t.path) {
		return true
	}
	if g == t.bound || g == t.goal {
		// A leaf of this iteration: the next bound is one deeper, unless
		// the tree ends here (cut: nothing lies beyond the goal's depth).
		if g < t.goal || !t.cut {
			t.next = min(t.next, g+1)
		}
		return false
	}
	for m := range uint8(2) {
		t.cur[g] = m
		if t.dfs(g+1) || t.gate.Stopped {
			return !t.gate.Stopped
		}
	}
	return false
}

func (t *lineTree) Iterate(it Iteration) (Pass, int64) {
	t.iters = append(t.iters, it)
	t.bound, t.next, t.split = it.Bound, NoNext, -1
	t.cur = make([]uint8, it.Bound+1)
	n0 := t.gate.Nodes
	ok := t.dfs(0)
	return Pass{D: t.goal, OK: ok, Stopped: t.gate.Stopped, Next: t.next, Path: t.cur}, t.gate.Nodes - n0
}

func (t *lineTree) Walker(bound int, sh *Shared, split int, walk bool) Walker {
	t.walks++
	w := &lineTree{goal: t.goal, path: t.path, gate: t.gate.Worker(sh), cut: t.cut, bound: bound, next: NoNext,
		cur: make([]uint8, bound+1), sh: sh, split: split, items: NewItems(sh, walk)}
	return w
}

func (t *lineTree) Walk() Pass {
	ok := t.dfs(0)
	return Pass{D: t.goal, OK: ok, Stopped: !ok && t.sh.Out.Load(), Next: t.next, Path: t.cur, Items: t.items.Met()}
}

func (t *lineTree) Nodes() int64 { return t.gate.Nodes }

// nodesTo is the nodes of the complete binary tree to depth d.
func nodesTo(d int) int64 { return 1<<(d+1) - 1 }

// Deepen raises the bound to the least f cut off, proves each refuted
// bound, stops on the budget with that proof, reports a weighted answer
// as unproved, and hands iterations past ParallelAbove to the workers.
func TestDeepen(t *testing.T) {
	goal := []uint8{1, 0, 1, 1, 0, 1}
	// Alone, from h0 = 2: iterations to 2, 3, …, 6; the last stops at the
	// goal, which is the 46th leaf of depth 6 in dfs order (101101).
	tr := &lineTree{goal: 6, path: goal, gate: NewGate(Budget{})}
	out, err := Deepen(tr, Deepening{H0: 2})
	if err != nil || !slices.Equal(out.Path, goal) || !out.Optimal || out.LowerBound != 6 {
		t.Fatalf("alone: %+v %v", out, err)
	}
	var want int64
	for b := 2; b < 6; b++ {
		want += nodesTo(b)
	}
	// The last iteration: every node on the way to the goal, plus the
	// subtrees left of its path (one per 1 in the path).
	last := int64(7)
	for g, m := range goal {
		if m == 1 {
			last += nodesTo(6 - g - 1)
		}
	}
	if out.Nodes != want+last {
		t.Fatalf("alone: %d nodes, want %d", out.Nodes, want+last)
	}
	for i, it := range tr.iters {
		if it.Bound != 2+i || it.Workers != 1 || i > 0 && it.Last != nodesTo(it.Bound-1) {
			t.Fatalf("iteration %d: %+v", i, it)
		}
	}
	// A budget ends the search inside iteration 5 with bound 5 proved.
	tr = &lineTree{goal: 6, path: goal, gate: NewGate(Budget{MaxNodes: nodesTo(2) + nodesTo(3) + nodesTo(4) + 10})}
	out, err = Deepen(tr, Deepening{H0: 2})
	if !errors.Is(err, ErrBudgetExceeded) || out.LowerBound != 5 || out.Nodes != nodesTo(2)+nodesTo(3)+nodesTo(4)+10 || out.Path != nil {
		t.Fatalf("budget: %+v %v", out, err)
	}
	// Weighted: the first bound is h0·w (3·32/16 = 6), the answer is not
	// proved optimal, and the lower bound stays h0.
	tr = &lineTree{goal: 6, path: goal, gate: NewGate(Budget{})}
	out, err = Deepen(tr, Deepening{H0: 3, Weight: 32})
	if err != nil || out.Optimal || out.LowerBound != 3 || len(tr.iters) != 1 || tr.iters[0].Bound != 6 {
		t.Fatalf("weighted: %+v %v, iterations %+v", out, err, tr.iters)
	}
	tr = &lineTree{goal: 6, path: goal, gate: NewGate(Budget{MaxNodes: 5})}
	if out, err = Deepen(tr, Deepening{H0: 3, Weight: 32}); !errors.Is(err, ErrBudgetExceeded) || out.LowerBound != 3 {
		t.Fatalf("weighted budget: %+v %v", out, err)
	}
	// An iteration that cuts nothing off ends the search: no solution.
	tr = &lineTree{goal: 6, path: []uint8{1, 1, 1, 1, 1, 2}, gate: NewGate(Budget{}), cut: true}
	if out, err = Deepen(tr, Deepening{H0: 2}); !errors.Is(err, ErrNoSolution) || out.Nodes != want+nodesTo(6) {
		t.Fatalf("no solution: %+v %v", out, err)
	}
	// On two workers, iterations after one of more than ParallelAbove
	// nodes (here 20) are parallel: bounds 2..4 alone (7, 15, 31 nodes),
	// 5 and 6 on walkers; the answer is the same path.
	tr = &lineTree{goal: 6, path: goal, gate: NewGate(Budget{})}
	out, err = Deepen(tr, Deepening{H0: 2, Workers: 2, ParallelAbove: 20})
	if err != nil || !slices.Equal(out.Path, goal) || out.LowerBound != 6 || len(tr.iters) != 3 || tr.walks == 0 {
		t.Fatalf("parallel: %+v %v, %d iterations alone, %d walkers", out, err, len(tr.iters), tr.walks)
	}
	// Keeps holds the large iterations back from the workers.
	tr = &lineTree{goal: 6, path: goal, gate: NewGate(Budget{})}
	out, err = Deepen(tr, Deepening{H0: 2, Workers: 2, ParallelAbove: 20, Keeps: func(last int64) bool { return last > 20 }})
	if err != nil || len(tr.iters) != 5 || tr.walks != 0 || tr.iters[4].Workers != 2 {
		t.Fatalf("kept: %+v %v, %d iterations alone, %d walkers", out, err, len(tr.iters), tr.walks)
	}
}

// A Deepener resumed from another's state (a split search's record, read
// by another process) goes on as the first would have: the same bounds,
// lower bound and nodes to the same answer.
func TestResumeDeepener(t *testing.T) {
	goal := []uint8{1, 0, 1, 1, 0, 1}
	tr := &lineTree{goal: 6, path: goal, gate: NewGate(Budget{})}
	first := NewDeepener(Deepening{H0: 2})
	for range 2 {
		p, n := tr.Iterate(Iteration{Bound: first.Bound, Workers: 1})
		if done, out, err := first.Done(p, n); done {
			t.Fatalf("ended early: %+v %v", out, err)
		}
	}
	st := first.DeepState
	if st.Bound != 4 || st.Lower != 4 || st.Nodes != nodesTo(2)+nodesTo(3) || st.Last != nodesTo(3) {
		t.Fatalf("after two iterations: %+v", st)
	}
	d := ResumeDeepener(Deepening{H0: 2}, st)
	for {
		p, n := tr.Iterate(Iteration{Bound: d.Bound, Workers: 1})
		done, out, err := d.Done(p, n)
		if !done {
			continue
		}
		whole, werr := Deepen(&lineTree{goal: 6, path: goal, gate: NewGate(Budget{})}, Deepening{H0: 2})
		if err != nil || werr != nil || !slices.Equal(out.Path, whole.Path) || out.Nodes != whole.Nodes || out.LowerBound != 6 || !out.Optimal {
			t.Fatalf("resumed: %+v %v; whole %+v %v", out, err, whole, werr)
		}
		return
	}
}

// The gate lets exactly MaxNodes nodes through, then stops the search
// without counting the node it refused; a context is looked at on the
// first node.
func TestGate(t *testing.T) {
	g := NewGate(Budget{MaxNodes: 100000})
	for range 100000 {
		if g.Visit() {
			t.Fatalf("stopped after %d nodes", g.Nodes)
		}
	}
	if !g.Visit() || g.Nodes != 100000 || !g.Stopped {
		t.Fatalf("past the budget: %+v", g)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g = NewGate(Budget{Ctx: ctx})
	if !g.Visit() || g.Nodes != 0 {
		t.Fatalf("cancelled: %+v", g)
	}
	// A worker counts against every worker's nodes.
	var sh Shared
	sh.Nodes.Store(99990)
	root := NewGate(Budget{MaxNodes: 100000})
	w := root.Worker(&sh)
	n := 0
	for !w.Visit() {
		n++
	}
	if n < 10 || n > CheckEvery || !sh.Out.Load() {
		t.Fatalf("worker: %d nodes, out %v", n, sh.Out.Load())
	}
}
