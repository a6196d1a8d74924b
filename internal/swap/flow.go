package swap

import (
	"errors"
	"fmt"
)

// errInternal marks a broken invariant of the flow; it is a bug, never an
// answer.
var errInternal = errors.New("transpose: internal error")

const (
	inf = int32(1 << 30)
	// wallPi is the potential of padding nodes: an arc into a wall then has
	// a reduced cost above inf (potentials stay within a few board
	// diameters, far below 1<<24), so Dijkstra never relaxes one and no arc
	// into a wall is admissible.
	wallPi = -(inf + 1<<24)
)

// Arc directions out of a node; d^1 is the opposite direction.
const (
	right = iota
	left
	down
	up
)

// coarseMin is the board size from which a solve first solves the board
// coarsened by 2×2 blocks to warm-start the potentials; multiscale turns
// that off. Variables so the tests can run every oracle both ways.
var (
	coarseMin  = 16
	multiscale = true
)

// solver holds every buffer of one flow computation so that pooled solvers
// run without allocating once they have seen a board of the size; coarse
// is the solver of the next coarser board.
//
// The grid is padded with one wall column (index cols of every row, which
// also serves as the left neighbour of column 0 of the next row) and one
// wall row above and below, so neighbours need no bounds checks: cell
// (r,c) is node (r+1)*w + c with w = cols+1.
//
// Flow is stored as net flow per undirected edge: hf[v] on edge v→v+1
// (positive = rightwards), vf[v] on v→v+w (positive = downwards). Edges
// have unbounded capacity and cost 1, so the cheapest residual arc from v
// to a neighbour costs -1 when it cancels flow coming the other way, +1
// otherwise; the dearer parallel arc is never admissible when the cheaper
// one exists, so only the cheapest matters.
type solver struct {
	rows, cols int
	w          int32
	off        [4]int32 // node offset per direction
	exc        []int32  // units still to leave (>0) or to reach (<0) a node
	hf, vf     []int32
	pi         []int32 // potentials: every residual arc has cost+pi[v]-pi[u] ≥ 0
	adm        []uint8 // bit d: the arc in direction d has reduced cost 0
	dist       []int32 // Dijkstra; inf between searches
	buckets    [][]int32
	top        int32   // highest bucket in use
	seen       []int32 // nodes given a distance by the current Dijkstra
	label      []int32 // ISAP: lower bound on the admissible distance to a sink
	iter       []uint8 // ISAP current arc
	count      []int32 // ISAP: nodes per label, for the gap rule
	gap        int32   // ISAP: labels above gap cannot reach a sink
	queue      []int32 // nodes labelled by the last global relabel
	stack      []int32
	srcs       []int32 // nodes with units still to leave
	sinks      []int32 // nodes that had units to receive
	sup, csup  []int32 // supplies of the board and of the coarsened board
	coarse     *solver
	work       []uint8 // board replayed while emitting moves
	path, all  []int32
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// setup loads a flow problem: sup holds the net supply of every cell,
// row-major; units flow from positive to negative cells.
func (s *solver) setup(rows, cols int, sup []int32) {
	w := cols + 1
	n := (rows + 2) * w
	s.rows, s.cols, s.w = rows, cols, int32(w)
	s.off = [4]int32{1, -1, s.w, -s.w}
	s.exc = resize(s.exc, n)
	s.hf = resize(s.hf, n)
	s.vf = resize(s.vf, n)
	s.pi = resize(s.pi, n)
	s.adm = resize(s.adm, n) // no flow, equal potentials: every arc costs 1
	s.dist = resize(s.dist, n)
	s.label = resize(s.label, n)
	s.iter = resize(s.iter, n)
	s.srcs, s.sinks, s.queue = s.srcs[:0], s.sinks[:0], s.queue[:0]
	for v := range s.pi {
		s.pi[v] = wallPi
		s.dist[v] = inf
		s.label[v] = inf
	}
	for r := range rows {
		for c := range cols {
			v := int32((r+1)*w + c)
			s.pi[v] = 0
			s.exc[v] = sup[r*cols+c]
			if s.exc[v] > 0 {
				s.srcs = append(s.srcs, v)
			} else if s.exc[v] < 0 {
				s.sinks = append(s.sinks, v)
			}
		}
	}
}

// run solves the flow problem of setup, warm-started from the coarsened
// board when it is large.
func (s *solver) run(rows, cols int, sup []int32) error {
	s.setup(rows, cols, sup)
	if len(s.srcs) == 0 {
		return nil
	}
	if multiscale && rows*cols >= max(coarseMin, 2) { // coarsening must shrink
		if err := s.warm(rows, cols, sup); err != nil {
			return err
		}
	}
	return s.flow()
}

// warm sets the potentials from an optimal dual of the board coarsened by
// 2×2 blocks (each coarse step is two fine steps, so the coarse
// potentials double), lowered to the nearest 1-Lipschitz function so every
// arc keeps a non-negative reduced cost. Any such start is valid for
// successive shortest paths from the zero flow; a near-optimal one leaves
// few phases, as the shortest augmenting paths are then nearly tight.
func (s *solver) warm(rows, cols int, sup []int32) error {
	sr, sc := 0, 0
	if rows > 1 {
		sr = 1
	}
	if cols > 1 {
		sc = 1
	}
	cr, cc := (rows+sr)>>sr, (cols+sc)>>sc
	s.csup = resize(s.csup, cr*cc)
	for r := range rows {
		for c := range cols {
			s.csup[(r>>sr)*cc+c>>sc] += sup[r*cols+c]
		}
	}
	if s.coarse == nil {
		s.coarse = new(solver)
	}
	if err := s.coarse.run(cr, cc, s.csup); err != nil {
		return err
	}
	pi, cpi, w, cw := s.pi, s.coarse.pi, int(s.w), int(s.coarse.w)
	// Potentials matter up to a constant; keeping them near zero keeps
	// them far from wallPi however many levels double them.
	low := inf
	for r := range cr {
		for c := range cc {
			low = min(low, cpi[(r+1)*cw+c])
		}
	}
	for r := range rows {
		for c := range cols {
			pi[(r+1)*w+c] = 2 * (cpi[((r>>sr)+1)*cw+c>>sc] - low)
		}
	}
	// L1 distance transform, min over u of pi(u)+|u-v|, by sweeps along
	// the rows and then the columns.
	for r := 1; r <= rows; r++ {
		row := pi[r*w : r*w+cols]
		for c := 1; c < cols; c++ {
			row[c] = min(row[c], row[c-1]+1)
		}
		for c := cols - 2; c >= 0; c-- {
			row[c] = min(row[c], row[c+1]+1)
		}
	}
	for c := range cols {
		for r := 2; r <= rows; r++ {
			pi[r*w+c] = min(pi[r*w+c], pi[(r-1)*w+c]+1)
		}
		for r := rows - 1; r >= 1; r-- {
			pi[r*w+c] = min(pi[r*w+c], pi[(r+1)*w+c]+1)
		}
	}
	for r := 1; r <= rows; r++ {
		for c := range cols {
			s.refresh(int32(r*w+c), true, true)
		}
	}
	return nil
}

// flow routes every unit from the positive to the negative nodes at
// minimum total cost by primal-dual successive shortest paths: each phase
// moves the potentials by a Dijkstra so that the shortest augmenting paths
// become admissible, then saturates the admissible graph (isap). Reduced
// costs stay non-negative throughout, which makes the final flow optimal.
func (s *solver) flow() error {
	for len(s.srcs) > 0 {
		if err := s.shortest(); err != nil {
			return err
		}
		if !s.isap() {
			return fmt.Errorf("no admissible path after a shortest-path phase: %w", errInternal)
		}
		live := s.srcs[:0]
		for _, v := range s.srcs {
			if s.exc[v] > 0 {
				live = append(live, v)
			}
		}
		s.srcs = live
	}
	return nil
}

// relax offers distance nd to node u.
func (s *solver) relax(u, nd int32) {
	if nd >= s.dist[u] {
		return // also every wall: see wallPi
	}
	if s.dist[u] == inf {
		s.seen = append(s.seen, u)
	}
	s.dist[u] = nd
	for int(nd) >= len(s.buckets) {
		s.buckets = append(s.buckets, nil)
	}
	s.buckets[nd] = append(s.buckets[nd], u)
	s.top = max(s.top, nd)
}

// shortest runs Dijkstra on reduced costs from all unrouted surplus cells
// (Dial's buckets: costs are small integers) until it settles the nearest
// unfilled deficit cell, at reduced distance D. Adding min(dist, D) to
// every potential keeps reduced costs non-negative and turns every
// shortest augmenting path into admissible arcs; the same shift minus the
// constant D changes only the nodes settled closer than D, so the work
// stays within the searched region. adm is refreshed where potentials
// moved.
func (s *solver) shortest() error {
	if len(s.buckets) == 0 {
		s.buckets = append(s.buckets, nil)
	}
	s.seen = s.seen[:0]
	b0 := s.buckets[0][:0]
	for _, v := range s.srcs {
		s.dist[v] = 0
		s.seen = append(s.seen, v)
		b0 = append(b0, v)
	}
	s.buckets[0] = b0
	s.top = 0
	found := int32(-1)
	hf, vf, pi, w := s.hf, s.vf, s.pi, s.w
	for d := int32(0); d <= s.top && found < 0; d++ {
		for i := 0; i < len(s.buckets[d]); i++ {
			v := s.buckets[d][i]
			if s.dist[v] != d {
				continue // stale entry: v was settled closer
			}
			if s.exc[v] < 0 {
				found = d
				break
			}
			base := d + pi[v]
			c := int32(1)
			if hf[v] < 0 {
				c = -1
			}
			s.relax(v+1, base+c-pi[v+1])
			c = 1
			if hf[v-1] > 0 {
				c = -1
			}
			s.relax(v-1, base+c-pi[v-1])
			c = 1
			if vf[v] < 0 {
				c = -1
			}
			s.relax(v+w, base+c-pi[v+w])
			c = 1
			if vf[v-w] > 0 {
				c = -1
			}
			s.relax(v-w, base+c-pi[v-w])
		}
	}
	for d := int32(0); d <= s.top; d++ {
		s.buckets[d] = s.buckets[d][:0]
	}
	if found <= 0 {
		for _, v := range s.seen {
			s.dist[v] = inf
		}
		if found < 0 {
			return fmt.Errorf("no deficit cell reachable from %d surplus cells: %w", len(s.srcs), errInternal)
		}
		return nil // potentials unchanged
	}
	moved := s.seen[:0]
	for _, v := range s.seen {
		if d := s.dist[v]; d < found {
			pi[v] += d - found
			moved = append(moved, v)
		} else {
			s.dist[v] = inf
		}
	}
	// dist < found now marks the moved nodes, so an edge between two of
	// them is refreshed once.
	for _, v := range moved {
		s.refresh(v, s.dist[v-1] < found, s.dist[v-w] < found)
	}
	for _, v := range moved {
		s.dist[v] = inf
	}
	s.seen = moved
	return nil
}

// Admissibility of the arc from a node with potential p to one with
// potential q over an edge carrying net flow f from the first to the
// second: the arc costs -1 when it cancels flow (f < 0), +1 otherwise.
func admissible(p, q, f int32) bool {
	return q == p+1 && f >= 0 || q == p-1 && f < 0
}

func setBit(m uint8, d uint, on bool) uint8 {
	if on {
		return m | 1<<d
	}
	return m &^ (1 << d)
}

// refresh recomputes the admissibility of both arcs of each edge at v,
// after v's potential moved; skipLeft and skipUp leave out the edges that
// the refresh of that neighbour covers.
func (s *solver) refresh(v int32, skipLeft, skipUp bool) {
	hf, vf, pi, adm, w := s.hf, s.vf, s.pi, s.adm, s.w
	p := pi[v]
	m := adm[v]
	// Walls have a potential no neighbour is ever within one of, so arcs
	// into them never look admissible.
	{
		u := v + 1
		q, f := pi[u], hf[v]
		m = setBit(m, right, admissible(p, q, f))
		adm[u] = setBit(adm[u], left, admissible(q, p, -f))
	}
	{
		u := v + w
		q, f := pi[u], vf[v]
		m = setBit(m, down, admissible(p, q, f))
		adm[u] = setBit(adm[u], up, admissible(q, p, -f))
	}
	if !skipLeft {
		u := v - 1
		q, f := pi[u], hf[u]
		m = setBit(m, left, admissible(p, q, -f))
		adm[u] = setBit(adm[u], right, admissible(q, p, f))
	}
	if !skipUp {
		u := v - w
		q, f := pi[u], vf[u]
		m = setBit(m, up, admissible(p, q, -f))
		adm[u] = setBit(adm[u], down, admissible(q, p, f))
	}
	adm[v] = m
}

// push sends one unit along the arc from v in direction d and refreshes
// the admissibility of that edge both ways.
func (s *solver) push(v int32, d uint8) {
	u := v + s.off[d]
	var f int32
	switch d {
	case right:
		s.hf[v]++
		f = s.hf[v]
	case left:
		s.hf[u]--
		f = -s.hf[u]
	case down:
		s.vf[v]++
		f = s.vf[v]
	default:
		s.vf[u]--
		f = -s.vf[u]
	}
	p, q := s.pi[v], s.pi[u]
	s.adm[v] = setBit(s.adm[v], uint(d), admissible(p, q, f))
	s.adm[u] = setBit(s.adm[u], uint(d^1), admissible(q, p, -f))
}

// relabelAll sets every label to the admissible distance to the nearest
// node still missing units (inf where none is reachable) by a BFS backwards
// from those nodes, and recounts the labels.
func (s *solver) relabelAll() {
	label, adm, off := s.label, s.adm, s.off
	for _, v := range s.queue {
		label[v] = inf
	}
	q := s.queue[:0]
	for _, v := range s.sinks {
		if s.exc[v] < 0 {
			label[v] = 0
			q = append(q, v)
		}
	}
	for i := 0; i < len(q); i++ {
		u := q[i]
		next := label[u] + 1
		for d := range uint8(4) {
			// The arc into u from its neighbour v points the other way.
			if v := u + off[d]; label[v] == inf && adm[v]>>(d^1)&1 != 0 {
				label[v] = next
				s.iter[v] = 0
				q = append(q, v)
			}
		}
	}
	s.queue = q
	s.count = resize(s.count, len(q)+1)
	for _, v := range q {
		s.count[label[v]]++
	}
	s.gap = int32(len(q))
}

// isap saturates the admissible graph (a maximum flow from the nodes with
// units left to those missing units, over arcs of zero reduced cost) by
// the shortest-augmenting-path method with distance labels: a DFS from
// each node with units left follows arcs that go one label down, a node
// with no such arc is relabelled to one more than its lowest admissible
// neighbour and the DFS retreats. The labels stay lower bounds on the
// distance to a sink, so a skipped arc stays useless until its tail is
// relabelled (current-arc pointers are sound). When some label value
// empties, nothing above it can reach a sink (the gap rule), and a global
// BFS refreshes all labels after about as many relabels as labelled
// nodes. Reports whether it augmented.
func (s *solver) isap() bool {
	label, iter, adm, off := s.label, s.iter, s.adm, s.off
	s.relabelAll()
	progress := false
	relabels := 0
	st := s.stack[:0]
	for _, src := range s.srcs {
		for s.exc[src] > 0 && label[src] <= s.gap {
			st = append(st[:0], src)
			for len(st) > 0 {
				v := st[len(st)-1]
				if s.exc[v] < 0 {
					for _, u := range st[:len(st)-1] {
						s.push(u, iter[u])
					}
					s.exc[src]--
					s.exc[v]++
					progress = true
					break
				}
				want := label[v] - 1
				it, ok := iter[v], false
				if want < s.gap {
					for m := adm[v] >> it; m != 0; m, it = m>>1, it+1 {
						if m&1 != 0 && label[v+off[it]] == want {
							ok = true
							break
						}
					}
				}
				if ok {
					iter[v] = it
					st = append(st, v+off[it])
					continue
				}
				s.relabel(v)
				st = st[:len(st)-1]
				if relabels++; relabels > len(s.queue) {
					s.relabelAll()
					relabels = 0
					st = st[:0]
				}
			}
		}
	}
	s.stack = st[:0]
	return progress
}

// relabel raises v's label to one more than its lowest admissible
// neighbour, applying the gap rule.
func (s *solver) relabel(v int32) {
	label := s.label
	nl := inf
	for m, d := s.adm[v], 0; m != 0; m, d = m>>1, d+1 {
		if m&1 != 0 {
			nl = min(nl, label[v+s.off[d]])
		}
	}
	if old := label[v]; old <= s.gap {
		if s.count[old]--; s.count[old] == 0 {
			s.gap = old // nothing above can reach a sink any more
		}
	}
	if nl < s.gap {
		nl++
		s.count[nl]++
	} else {
		nl = inf
	}
	label[v], s.iter[v] = nl, 0
}
