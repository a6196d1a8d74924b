package pdb

import (
	"errors"
	"testing"

	"github.com/tessera-solver/tessera/internal/coretest"
	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/search"
)

// Over Korf's 100, every iteration of the unsplit search is compared with
// the same iteration split: the walk above the split depth and the
// subtrees expand exactly the unsplit iteration's nodes and find the same
// next bound, and the iteration that reaches the goal split gives an
// answer of the optimal length that replays. The subtrees heavy in one
// iteration are split deeper in the next (search.Refine), as the worker
// lays them out.
func TestSplitMatchesUnsplit(t *testing.T) {
	sv := reflectingSolver(t, partition(t, Partition555)...)
	ks := instances.Korf100()
	if testing.Short() {
		ks = ks[:10]
	}
	var unsplit, split, subtrees, extra, refined int64
	const target = 1000
	for _, inst := range ks {
		k, h0, err := sv.start(inst.Cells, search.Budget{}, search.Unweighted)
		if err != nil {
			t.Fatal(err)
		}
		depth, last := 1, int64(0)
		var heavy []search.Heavy
		for bound := h0; ; {
			var at int
			p, n := k.Iterate(search.Iteration{Bound: bound, Split: &at})
			unsplit += n
			// About a thousand nodes per subtree, as the iteration before
			// predicts: a small iteration is hardly split.
			f, err := sv.Frontier(inst.Cells, bound, depth, max(last/target, 1), search.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			depth = f.Depth
			split += f.Above
			var walked int64
			if !f.Done {
				expand := func(prefix []uint8, depth int) (search.Frontier, error) {
					return sv.Expand(inst.Cells, prefix, bound, depth, search.Budget{})
				}
				var next int
				if f.Subtrees, walked, next, err = search.Refine(f.Subtrees, heavy, target, expand); err != nil {
					t.Fatal(err)
				}
				f.Next = min(f.Next, next)
				split += walked
			}
			heavy = heavy[:0]
			if f.Done {
				if f.Pass.OK != p.OK || f.Above != n || f.Next != p.Next {
					t.Fatalf("#%d bound %d: walk was the iteration: %+v, unsplit %+v, %d nodes", inst.ID, bound, f, p, n)
				}
			} else {
				nodes, next := f.Above+walked, f.Next
				var found *search.Subtree
				for _, pre := range f.Subtrees {
					if len(pre) < f.Depth {
						t.Fatalf("#%d bound %d: prefix %v above depth %d", inst.ID, bound, pre, f.Depth)
					}
					if len(pre) > f.Depth {
						refined++
					}
					st, err := sv.SearchSubtree(inst.Cells, pre, bound, search.Budget{})
					if err != nil {
						t.Fatalf("#%d bound %d prefix %v: %v", inst.ID, bound, pre, err)
					}
					subtrees++
					nodes += st.Nodes
					split += st.Nodes
					next = min(next, st.Next)
					if st.Nodes > search.HeavyFactor*target {
						heavy = append(heavy, search.Heavy{Prefix: pre, Nodes: st.Nodes})
					}
					if st.OK {
						found = &st
						break
					}
				}
				switch {
				case (found != nil) != p.OK:
					t.Fatalf("#%d bound %d: split found %v, unsplit %v", inst.ID, bound, found != nil, p.OK)
				case found == nil && (nodes != n || next != p.Next):
					t.Fatalf("#%d bound %d: split %d nodes next %d, unsplit %d nodes next %d", inst.ID, bound, nodes, next, n, p.Next)
				case found != nil:
					// The subtrees up to the goal's are the unsplit ones, in
					// its order; the walk also counted the nodes above the
					// split that the unsplit search never reached.
					if nodes < n || nodes-n > f.Above+walked {
						t.Fatalf("#%d bound %d: split %d nodes, unsplit %d", inst.ID, bound, nodes, n)
					}
					extra += nodes - n
					f.Pass = search.Pass{OK: true, D: len(found.Path), Path: found.Path}
				}
			}
			if p.OK {
				if !f.Pass.OK || f.Pass.D != inst.Opt || p.D != inst.Opt || !coretest.SlidingSolved(coretest.SlidePath(4, inst.Cells, f.Pass.Path[:f.Pass.D])) {
					t.Fatalf("#%d: split answer %d moves (replays %v), unsplit %d, optimum %d", inst.ID, f.Pass.D,
						f.Pass.OK && coretest.SlidingSolved(coretest.SlidePath(4, inst.Cells, f.Pass.Path[:f.Pass.D])), p.D, inst.Opt)
				}
				break
			}
			if p.Next <= bound || p.Next == search.NoNext {
				t.Fatalf("#%d: next bound %d after %d", inst.ID, p.Next, bound)
			}
			bound, last = p.Next, n
		}
	}
	if split-unsplit != extra {
		t.Fatalf("split %d nodes, unsplit %d, extra %d", split, unsplit, extra)
	}
	if refined == 0 {
		t.Fatal("no heavy subtree was split deeper")
	}
	t.Logf("%d instances: unsplit %d nodes, split %d nodes (+%d, all above the split in the goal's iteration) in %d subtrees, %d of them pieces of heavy ones", len(ks), unsplit, split, extra, subtrees, refined)
}

// A prefix that is not a node of the iteration is refused, not searched.
func TestSearchSubtreeRefusesPrefix(t *testing.T) {
	sv := reflectingSolver(t, partition(t, Partition555)...)
	inst := instances.Korf100()[0]
	f, err := sv.Frontier(inst.Cells, inst.Opt, 1, 64, search.Budget{})
	if err != nil || f.Done || len(f.Subtrees) < 64 {
		t.Fatalf("frontier: %+v %v", f, err)
	}
	pre := f.Subtrees[0]
	if _, err := sv.SearchSubtree(inst.Cells, pre, inst.Opt, search.Budget{}); err != nil {
		t.Fatalf("a frontier prefix: %v", err)
	}
	// Undoing the last move is pruned by the machine.
	undo := map[uint8]uint8{tileUp: tileDown, tileDown: tileUp, tileLeft: tileRight, tileRight: tileLeft}
	bad := append(append([]uint8(nil), pre...), undo[pre[len(pre)-1]])
	for name, c := range map[string]struct {
		pre   []uint8
		bound int
	}{
		"undo":         {bad, inst.Opt},
		"not a move":   {[]uint8{7}, inst.Opt},
		"beyond bound": {pre, len(pre) - 1},
		"f over bound": {pre, f.Depth + 1},
	} {
		if _, err := sv.SearchSubtree(inst.Cells, c.pre, c.bound, search.Budget{}); !errors.Is(err, search.ErrPrefix) {
			t.Errorf("%s: %v, want ErrPrefix", name, err)
		}
	}
	// A node budget stops a subtree.
	st, err := sv.SearchSubtree(inst.Cells, pre, inst.Opt, search.Budget{MaxNodes: 10})
	if err != nil || !st.Stopped || st.OK || st.Nodes != 10 {
		t.Fatalf("budget: %+v %v", st, err)
	}
}

// A subtree expanded deeper (Expand) and its pieces searched expand
// exactly the subtree's nodes and find the same next bound, or the same
// goal: over the iterations of ten of Korf's 100, every subtree of the
// frontier expanded by one to three levels.
func TestExpandMatchesSubtree(t *testing.T) {
	sv := reflectingSolver(t, partition(t, Partition555)...)
	var pieces, subtrees int
	for _, inst := range instances.Korf100()[:10] {
		_, h0, err := sv.start(inst.Cells, search.Budget{}, search.Unweighted)
		if err != nil {
			t.Fatal(err)
		}
		for bound := h0; bound <= inst.Opt; bound += 2 {
			f, err := sv.Frontier(inst.Cells, bound, 3, 16, search.Budget{})
			if err != nil || f.Done {
				continue
			}
			for i, pre := range f.Subtrees {
				whole, err := sv.SearchSubtree(inst.Cells, pre, bound, search.Budget{})
				if err != nil {
					t.Fatal(err)
				}
				e, err := sv.Expand(inst.Cells, pre, bound, f.Depth+1+i%3, search.Budget{})
				if err != nil {
					t.Fatalf("#%d bound %d prefix %v: %v", inst.ID, bound, pre, err)
				}
				subtrees++
				nodes, next, ok := e.Walked, e.Next, e.Done && e.Pass.OK
				for _, p := range e.Subtrees {
					if len(p) != e.Depth || string(p[:len(pre)]) != string(pre) {
						t.Fatalf("#%d: piece %v of %v at depth %d", inst.ID, p, pre, e.Depth)
					}
					st, err := sv.SearchSubtree(inst.Cells, p, bound, search.Budget{})
					if err != nil {
						t.Fatal(err)
					}
					pieces++
					nodes += st.Nodes
					next = min(next, st.Next)
					if st.OK {
						ok = true
						break // the whole subtree's search stops at its goal too
					}
				}
				// With the goal, the walk counts the nodes above the pieces
				// after the goal's, which the whole search never reaches.
				if ok != whole.OK || (!ok && (nodes != whole.Nodes || next != whole.Next)) || nodes < whole.Nodes {
					t.Fatalf("#%d bound %d prefix %v to depth %d: %d nodes, next %d, goal %v; whole %d, %d, %v",
						inst.ID, bound, pre, e.Depth, nodes, next, ok, whole.Nodes, whole.Next, whole.OK)
				}
			}
		}
	}
	if pieces <= subtrees {
		t.Fatalf("%d subtrees expanded into %d pieces", subtrees, pieces)
	}
	t.Logf("%d subtrees expanded into %d pieces", subtrees, pieces)
	if _, err := sv.Expand(instances.Korf100()[0].Cells, []uint8{7}, 60, 3, search.Budget{}); !errors.Is(err, search.ErrPrefix) {
		t.Fatalf("bad prefix: %v", err)
	}
}
