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
// answer of the optimal length that replays.
func TestSplitMatchesUnsplit(t *testing.T) {
	sv := reflectingSolver(t, partition(t, Partition555)...)
	ks := instances.Korf100()
	if testing.Short() {
		ks = ks[:10]
	}
	var unsplit, split, subtrees, extra int64
	for _, inst := range ks {
		k, h0, err := sv.start(inst.Cells, search.Budget{}, search.Unweighted)
		if err != nil {
			t.Fatal(err)
		}
		depth, last := 1, int64(0)
		for bound := h0; ; {
			var at int
			p, n := k.Iterate(search.Iteration{Bound: bound, Split: &at})
			unsplit += n
			// About a thousand nodes per subtree, as the iteration before
			// predicts: a small iteration is hardly split.
			f, err := sv.Frontier(inst.Cells, bound, depth, max(last/1000, 1), search.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			depth = f.Depth
			split += f.Above
			if f.Done {
				if f.Pass.OK != p.OK || f.Above != n || f.Next != p.Next {
					t.Fatalf("#%d bound %d: walk was the iteration: %+v, unsplit %+v, %d nodes", inst.ID, bound, f, p, n)
				}
			} else {
				nodes, next := f.Above, f.Next
				var found *search.Subtree
				for _, pre := range f.Subtrees {
					if len(pre) != f.Depth {
						t.Fatalf("#%d bound %d: prefix %v at depth %d", inst.ID, bound, pre, f.Depth)
					}
					st, err := sv.SearchSubtree(inst.Cells, pre, bound, search.Budget{})
					if err != nil {
						t.Fatalf("#%d bound %d prefix %v: %v", inst.ID, bound, pre, err)
					}
					subtrees++
					nodes += st.Nodes
					split += st.Nodes
					next = min(next, st.Next)
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
					if nodes < n || nodes-n > f.Above {
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
	t.Logf("%d instances: unsplit %d nodes, split %d nodes (+%d, all above the split in the goal's iteration) in %d subtrees", len(ks), unsplit, split, extra, subtrees)
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
