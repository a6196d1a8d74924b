package search

import (
	"sync/atomic"
	"testing"
)

// treeWalker searches a complete binary tree of the given depth, whose
// leaves are numbered left to right; a leaf's "next bound" is 100 plus
// its number, and goal (if ≥ 0) is the leaf that solves the search.
type treeWalker struct {
	depth, split int
	goal         int
	items        Items
	nodes        int64
	leaves       *atomic.Int64 // leaves searched by every non-walking worker
	walk         bool
	next         int
	path         []uint8
}

func (t *treeWalker) dfs(g, leaf int) bool {
	t.nodes++
	if g == t.split {
		mine, stop := t.items.Claim()
		if stop || !mine {
			return false
		}
	}
	if g == t.depth {
		if !t.walk {
			t.leaves.Add(1)
		}
		if leaf == t.goal {
			return true
		}
		t.next = min(t.next, 100+leaf)
		return false
	}
	for b := range 2 {
		t.path[g] = uint8(b)
		if t.dfs(g+1, 2*leaf+b) {
			return true
		}
	}
	return false
}

func (t *treeWalker) Walk() Pass {
	ok := t.dfs(0, 0)
	return Pass{D: t.depth, OK: ok, Next: t.next, Path: t.path, Items: t.items.Met()}
}

func (t *treeWalker) Nodes() int64 { return t.nodes }

// IterateParallel hands every subtree at the split to exactly one worker,
// reports the least next bound over all of them, and stops with the path
// of the goal when one worker reaches it.
func TestIterateParallel(t *testing.T) {
	const depth = 10
	for _, goal := range []int{-1, 0, 700, 1023} {
		for _, workers := range []int{1, 2, 3} {
			var leaves atomic.Int64
			lastSplit := 0
			newWalker := func(sh *Shared, split int, walk bool) Walker {
				return &treeWalker{depth: depth, split: split, goal: goal, items: NewItems(sh, walk),
					leaves: &leaves, walk: walk, next: NoNext, path: make([]uint8, depth)}
			}
			// A previous iteration of 4,000 nodes wants 64·workers items
			// or more: the split lands at depth 7 or deeper.
			p, nodes := IterateParallel(workers, 0, 4000, &lastSplit, newWalker)
			if lastSplit < 6 || nodes <= 0 {
				t.Fatalf("goal %d, %d workers: split %d, nodes %d", goal, workers, lastSplit, nodes)
			}
			if goal < 0 {
				if p.OK || p.Next != 100 || leaves.Load() != 1<<depth {
					t.Fatalf("%d workers: %+v, %d leaves searched, want %d", workers, p, leaves.Load(), 1<<depth)
				}
				continue
			}
			if !p.OK || p.D != depth {
				t.Fatalf("goal %d, %d workers: %+v", goal, workers, p)
			}
			got := 0
			for _, b := range p.Path[:depth] {
				got = 2*got + int(b)
			}
			if got != goal {
				t.Fatalf("goal %d, %d workers: path leads to leaf %d", goal, workers, got)
			}
		}
	}
}
