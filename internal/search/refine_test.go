package search

import (
	"slices"
	"testing"
)

// ternary is expand over a complete tree of branching 3: the prefixes of
// depth below prefix, in order, the walk counting the nodes above depth
// (prefix's included).
func ternary(prefix []uint8, depth int) (Frontier, error) {
	out := [][]uint8{prefix}
	var walked int64
	for d := len(prefix); d < depth; d++ {
		walked += int64(len(out))
		var next [][]uint8
		for _, p := range out {
			for m := range uint8(3) {
				next = append(next, append(append([]uint8(nil), p...), m))
			}
		}
		out = next
	}
	return Frontier{Depth: depth, Subtrees: out, Walked: walked, Next: 40 + len(prefix)}, nil
}

func TestRefine(t *testing.T) {
	subs, _ := ternary(nil, 2) // 9 subtrees at depth 2
	// No heavy subtrees: the layout is the frontier.
	out, walked, next, err := Refine(subs.Subtrees, nil, 100, ternary)
	if err != nil || !slices.EqualFunc(out, subs.Subtrees, slices.Equal) || walked != 0 || next != NoNext {
		t.Fatalf("no heavy: %v %d %d %v", out, walked, next, err)
	}
	// Subtree [1 1] was 9 times the heavy threshold: predicted 180 times
	// the target, it is split three levels deeper, and its 27 pieces,
	// predicted 6.7 times the target each, two more: 243 pieces of about
	// the target, in place, in order.
	heavy := []Heavy{{Prefix: []uint8{1, 1}, Nodes: 9 * HeavyFactor * 100}}
	out, walked, next, err = Refine(subs.Subtrees, heavy, 100, ternary)
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := ternary([]uint8{1, 1}, 7)
	want := slices.Concat(subs.Subtrees[:4], whole.Subtrees, subs.Subtrees[5:])
	if !slices.EqualFunc(out, want, slices.Equal) {
		t.Fatalf("layout of %d subtrees, want %d: %v", len(out), len(want), out)
	}
	if walked != 1+3+9+27*(1+3) || next != 42 {
		t.Fatalf("walked %d, next %d", walked, next)
	}
	// A heavy subtree deeper than the frontier: the subtree above it is
	// split down to its depth, and only it below.
	deep := []Heavy{{Prefix: []uint8{2, 0, 1, 1}, Nodes: 9 * HeavyFactor * 100}}
	out, _, _, err = Refine(subs.Subtrees, deep, 100, ternary)
	if err != nil || !slices.Equal(out[6], []uint8{2, 0, 0, 0}) || !slices.IsSortedFunc(out, slices.Compare) || len(out) <= 9+9 {
		t.Fatalf("deep heavy: %v %v", out, err)
	}
	for _, p := range out {
		if len(p) > 2 && !slices.Equal(p[:2], []uint8{2, 0}) || len(p) > 4 && !slices.Equal(p[:4], []uint8{2, 0, 1, 1}) {
			t.Fatalf("split outside the heavy subtree: %v", p)
		}
	}
	// A heavy subtree above the frontier spreads over the subtrees below it.
	above := []Heavy{{Prefix: []uint8{0}, Nodes: 3 * 9 * HeavyFactor * 100}}
	out, _, _, err = Refine(subs.Subtrees, above, 100, ternary)
	if err != nil || len(out[0]) <= 2 || !slices.EqualFunc(out[len(out)-6:], subs.Subtrees[3:], slices.Equal) || !slices.IsSortedFunc(out, slices.Compare) {
		t.Fatalf("heavy above: %v %v", out, err)
	}
	// A piece expand finds done is kept whole.
	done := func(prefix []uint8, depth int) (Frontier, error) { return Frontier{Done: true, Walked: 5}, nil }
	out, walked, _, err = Refine(subs.Subtrees, heavy, 100, done)
	if err != nil || !slices.EqualFunc(out, subs.Subtrees, slices.Equal) || walked != 0 {
		t.Fatalf("done: %v %d %v", out, walked, err)
	}
}
