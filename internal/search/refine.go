package search

import "math"

// Heavy is a subtree of a split iteration that took far more nodes than
// the subtrees were meant to (HeavyFactor × the target).
type Heavy struct {
	Prefix []uint8
	Nodes  int64
}

// Refining a split iteration's layout. Subtree sizes are skewed by the
// heuristic: at the same depth one subtree may hold a hundred times the
// nodes of the average, and a fleet then waits on it (Korf–Felner #47:
// one subtree of 490 M nodes against an average of 2 M). The skew
// persists from one iteration to the next, so the subtrees that were
// heavy in the iteration before are split deeper in this one, each by as
// many levels as its predicted size asks, the rest left at the frontier's
// depth. The order stays the unsplit search's.
const (
	// HeavyFactor: a subtree of more than HeavyFactor × the target nodes
	// is heavy.
	HeavyFactor = 4
	// refineGrowth is how much larger an iteration is than the one before
	// (the 24-puzzle's bound steps grow about 5–6 times).
	refineGrowth = 5
	// refineBranching is the growth per level of depth, for the levels a
	// predicted size asks (the 24-puzzle's effective branching is about
	// 2.4 under the pruning machine).
	refineBranching = 2.3
	// refineStep is the most levels expanded at once before the pieces
	// are predicted again; refineDepth the most below the frontier's.
	refineStep, refineDepth = 3, 12
)

// Refine lays out an iteration: subs, the frontier's subtrees in order,
// with each one predicted (from heavy, the iteration before's heavy
// subtrees) to hold more than HeavyFactor × target nodes replaced by its
// pieces from expand, recursively while the pieces are predicted heavy.
// It returns the subtrees in the unsplit order, the nodes of the expand
// walks and the least f above the bound they cut. A piece that expand
// finds to be done (a goal or a stop above its depth, or no subtree
// below) is kept whole. With no heavy subtrees subs is returned as it is.
func Refine(subs [][]uint8, heavy []Heavy, target int64, expand func(prefix []uint8, depth int) (Frontier, error)) (out [][]uint8, walked int64, next int, err error) {
	next = NoNext
	if len(heavy) == 0 || target <= 0 {
		return subs, 0, next, nil
	}
	r := refiner{heavy: heavy, target: target, expand: expand, next: NoNext, out: make([][]uint8, 0, len(subs))}
	// Heavy subtrees above a frontier subtree share their predicted size
	// among the frontier subtrees below them.
	under := make([]int, len(heavy))
	for _, q := range subs {
		for i, h := range heavy {
			if len(h.Prefix) < len(q) && hasPrefix(q, h.Prefix) {
				under[i]++
			}
		}
	}
	for _, q := range subs {
		var spread float64
		for i, h := range heavy {
			if len(h.Prefix) < len(q) && hasPrefix(q, h.Prefix) {
				spread += float64(h.Nodes) * refineGrowth / float64(under[i])
			}
		}
		if err := r.refine(q, spread, len(q)+refineDepth); err != nil {
			return nil, 0, NoNext, err
		}
	}
	return r.out, r.walked, r.next, nil
}

type refiner struct {
	heavy  []Heavy
	target int64
	expand func(prefix []uint8, depth int) (Frontier, error)
	out    [][]uint8
	walked int64
	next   int
}

// inside is the predicted size of the heavy subtrees at q or below it,
// of those at q itself (at), and the depth of the shallowest of those
// below it (below; a large number if none).
func (r *refiner) inside(q []uint8) (in, at float64, below int) {
	below = 1 << 20
	for _, h := range r.heavy {
		if len(h.Prefix) >= len(q) && hasPrefix(h.Prefix, q) {
			in += float64(h.Nodes) * refineGrowth
			if len(h.Prefix) == len(q) {
				at += float64(h.Nodes) * refineGrowth
			} else {
				below = min(below, len(h.Prefix))
			}
		}
	}
	return in, at, below
}

// refine emits q, or its pieces when q is predicted heavy: the heavy
// subtrees at or below it, and spread, its share of those above it.
// Expanding q spreads its own (at q) and its share evenly over its
// pieces; a heavy subtree deeper down stays with the piece above it.
func (r *refiner) refine(q []uint8, spread float64, limit int) error {
	in, at, below := r.inside(q)
	est := in + spread
	if est <= HeavyFactor*float64(r.target) || len(q) >= limit {
		r.out = append(r.out, q)
		return nil
	}
	levels := int(math.Round(math.Log(est/float64(r.target)) / math.Log(refineBranching)))
	// Not past a heavy subtree below q: it is predicted again at its own
	// depth, so that its size goes to its pieces, not to all of q's.
	levels = min(max(levels, 1), refineStep, limit-len(q), below-len(q))
	f, err := r.expand(q, len(q)+levels)
	if err != nil {
		return err
	}
	if f.Done {
		r.out = append(r.out, q)
		return nil
	}
	r.walked += f.Walked
	r.next = min(r.next, f.Next)
	share := (spread + at) / float64(len(f.Subtrees))
	for _, c := range f.Subtrees {
		if err := r.refine(c, share, limit); err != nil {
			return err
		}
	}
	return nil
}

func hasPrefix(s, prefix []uint8) bool {
	return len(prefix) <= len(s) && string(s[:len(prefix)]) == string(prefix)
}
