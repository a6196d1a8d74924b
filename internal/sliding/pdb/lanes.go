package pdb

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tessera-solver/tessera/internal/prefetch"
	"github.com/tessera-solver/tessera/internal/search"
)

// Lanes: several subtrees of one search's iteration searched at once on
// one goroutine.
//
// Over a table far larger than the caches (15-pdb-78: 519 MB) a node's
// entries are misses, and one depth-first search cannot hide them: the
// prefetches of a node's successors are issued just before the first of
// them is expanded. Lanes interleave independent subtrees, one node each
// in turn: a node prefetches its successors' entries and yields, and by
// the time its lane comes round again the other lanes' nodes have hidden
// the misses. Each lane is the dfs's search of its subtree, node for node
// (the same order and pruning), written as an explicit stack so that it
// can stop after any node.

// laneCount is how many lanes a goroutine interleaves: enough for the
// other lanes' nodes to cover a miss (measured on 15-pdb-78).
const laneCount = 4

// frame is a node on a lane's stack: its successors within the bound in
// the order they are searched, and what the descent into the current one
// changed.
type frame struct {
	cs     [4]child
	nc, i  int
	blank  int
	st     int32
	s0, s1 int
	kids   [4]laneKid
	nk     int
	// The moved tile's patterns' ranks and entries before the descent.
	saveR [2]uint32
	saveV [2]uint8
}

// laneKid is a successor of a lane's node as enter found it: the move,
// the tile and its cell, the tile's pattern and rank per side.
type laneKid struct {
	r           [2]uint32
	dir, src, t uint8
	j           [2]uint8
}

// lane is one lane of an iteration (iterateLanes): it searches one work
// item's subtree at a time.
type lane struct {
	*idaWork
	g      int // depth of the current node
	frames []frame
	expand bool // the current node's successors are prefetched, not yet evaluated
	// root is the depth of the current subtree's root; found is set when
	// the lane reached the goal (path is then the path to it), err when
	// the budget ran out.
	root  int
	found bool
	path  []uint8
	err   error
}

// enter visits the current node: counts it, looks at the budget and the
// goal, and prefetches its successors' entries. It reports true when the
// search ended.
func (l *lane) enter() bool {
	k := l.idaWork
	fr := &l.frames[l.g]
	if k.gate.Visit() {
		l.err = search.ErrBudgetExceeded
		return true
	}
	if max(fr.s0, fr.s1) == 0 && k.isGoal() {
		l.path, l.found = append([]uint8(nil), k.path[:l.g]...), true
		return true
	}
	// The successors' ranks, and a prefetch of their entries (the
	// steps of prefetchKids).
	sv := k.Solver
	blank := fr.blank & 31
	var pf [8]uintptr
	n := 0
	mask := sv.legal[blank] & sv.fsm.allow[fr.st]
	for mask != 0 {
		d := uint8(bits.TrailingZeros8(mask))
		mask &= mask - 1
		m := &sv.moves[blank][d&3]
		t := k.board[m.src&31] & 31
		vs := m.vs & 1
		cr := &sv.cross[vs][t]
		a := sv.vert[vs][t] + cr[k.board[m.between[0]&31]&31] + cr[k.board[m.between[1]&31]&31] +
			cr[k.board[m.between[2]&31]&31] + cr[k.board[m.between[3]&31]&31]
		if sv.wide {
			a += sv.wideSteps(&k.board, m, t)
		}
		sel := -uint32(vs)
		j0, j1 := sv.pat[0][t]&15, sv.pat[1][t]&15
		r0 := k.rank[0][j0] + ((a&^sel | sv.horiz[0][t]&sel) ^ m.neg[0] - m.neg[0])
		r1 := k.rank[1][j1] + ((a&sel | sv.horiz[1][t]&^sel) ^ m.neg[1] - m.neg[1])
		kd := &fr.kids[(n>>1)&3]
		kd.r[0], kd.r[1], kd.dir, kd.src, kd.t, kd.j[0], kd.j[1] = r0, r1, d, m.src, t, j0, j1
		pf[n&7] = uintptr(unsafe.Pointer(unsafe.SliceData(sv.data[j0]))) + uintptr(r0)
		pf[(n+1)&7] = uintptr(unsafe.Pointer(unsafe.SliceData(sv.data[j1]))) + uintptr(r1)
		n += 2
	}
	fr.nk = n >> 1
	prefetch.Lines(&pf[0], n)
	l.expand = true
	return false
}

// step evaluates the current node's successors (their entries were
// prefetched when it was entered), then moves to the next node of the
// depth-first order and enters it. It reports true when the subtree's
// search ended.
func (l *lane) step() bool {
	k := l.idaWork
	sv := k.Solver
	if l.expand {
		l.expand = false
		l.successors()
	}
	for {
		fr := &l.frames[l.g]
		if fr.i < fr.nc {
			c := &fr.cs[fr.i]
			fr.i++
			blank, src := fr.blank&31, int(c.src)&31
			j0, j1 := c.j[0]&15, c.j[1]&15
			k.board[blank], k.board[src] = c.t, 0
			fr.saveR = [2]uint32{k.rank[0][j0], k.rank[1][j1]}
			fr.saveV = [2]uint8{k.hv[0][j0], k.hv[1][j1]}
			k.rank[0][j0], k.rank[1][j1], k.hv[0][j0], k.hv[1][j1] = c.r[0], c.r[1], c.v[0], c.v[1]
			k.path[l.g] = c.dir
			l.g++
			nf := &l.frames[l.g]
			nf.blank, nf.st, nf.s0, nf.s1 = src, sv.fsm.next[fr.st][c.dir&3], c.s0, c.s1
			return l.enter()
		}
		if l.g == l.root {
			return true // the subtree is done
		}
		// Back to the parent: undo its move into this node.
		l.g--
		pf := &l.frames[l.g]
		c := &pf.cs[pf.i-1]
		blank, src := pf.blank&31, int(c.src)&31
		j0, j1 := c.j[0]&15, c.j[1]&15
		k.board[blank], k.board[src] = 0, c.t
		k.rank[0][j0], k.rank[1][j1] = pf.saveR[0], pf.saveR[1]
		k.hv[0][j0], k.hv[1][j1] = pf.saveV[0], pf.saveV[1]
	}
}

// successors evaluates the current node's successors from what enter
// left, keeping those within the bound, most promising first: dfs's
// loop, on the lane's stack.
func (l *lane) successors() {
	k := l.idaWork
	sv := k.Solver
	g := l.g
	fr := &l.frames[g]
	s0, s1 := fr.s0, fr.s1
	nc := 0
	for i := range fr.nk & 7 {
		kd := &fr.kids[i&3]
		j0, j1 := kd.j[0]&15, kd.j[1]&15
		v0 := sv.data[j0][kd.r[0]]
		c0 := s0 - int(k.hv[0][j0]) + int(v0)
		if f := g + 1 + c0; f > k.bound && f >= k.next {
			continue
		}
		v1 := sv.data[j1][kd.r[1]]
		c1 := s1 - int(k.hv[1][j1]) + int(v1)
		f := g + 1 + max(c0, c1)
		if f > k.bound {
			k.next = min(k.next, f)
			continue
		}
		fr.cs[nc&3] = child{r: kd.r, s0: c0, s1: c1, f: f, dir: kd.dir, src: kd.src, t: kd.t, j: [2]uint8{j0, j1}, v: [2]uint8{v0, v1}}
		nc++
	}
	cs := &fr.cs
	for i := 1; i < nc; i++ {
		for j := i; j > 0 && cs[j].f < cs[j-1].f; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	fr.nc, fr.i = nc, 0
}

// An iteration of a search alone that has grown past laneAbove nodes is
// cut, like a parallel one, into the subtrees below a split depth (work
// items: a walk of the tree above collects their nodes), and laneCount of
// them are searched at a time, interleaved. Only the order of the nodes
// changes: every subtree is searched whole unless the goal is met, so the
// iteration proves what it would alone; the answer is as short, but may
// be another path, and the nodes differ from Solve's by the walk above
// the split and the subtrees the other lanes had begun when the goal was
// found.

// laneAbove is the size of an iteration (nodes) after which the next ones
// run in lanes (a variable so that tests cut small searches). With
// laneWant, chosen on Korf's 100 over 15-pdb-78 against other thresholds
// and item counts (docs/BENCHMARKS.md, "Measured and dropped").
var laneAbove int64 = 256

// laneWant is how many work items an iteration in lanes wants, given the
// size of the one before: few, large items keep the walk above the split
// short and the lanes busy; the goal's lane finds it no later than in
// one search, but the other lanes' items were begun by then.
func laneWant(last int64, workers int) int64 {
	return max(4*laneCount*int64(workers), last/256)
}

// laneItem is the node of a work item: the board, ranks and entries, the
// path to it, and its dfs arguments.
type laneItem struct {
	board  [32]uint8
	rank   [2][patSlots]uint32
	hv     [2][patSlots]uint8
	path   []uint8
	blank  int
	st     int32
	s0, s1 int
}

// iterateLanes runs one iteration of k's bound in lanes, on it.Workers
// goroutines (each with laneCount lanes, drawing the items in turn); the
// split is chosen from the previous iteration's size, it.Last. It returns
// the iteration's outcome and its nodes, the walk's included.
func (k *idaWork) iterateLanes(it search.Iteration) (search.Pass, int64) {
	workers := max(it.Workers, 1)
	want := laneWant(it.Last, workers)
	split := max(*it.Split, 1)
	nodes := it.Before // every node so far, the walks' included
	sc := k.lanesScratch(workers)
	var top topWalk
	for {
		sc.items, sc.paths = sc.items[:0], sc.paths[:0]
		top = k.walkTop(split, &nodes, sc)
		if top.done || top.items >= want || split == search.MaxSplit {
			break
		}
		split++
	}
	items := sc.items
	*it.Split = split
	if top.done {
		return search.Pass{D: top.d, OK: top.ok, Stopped: top.stopped, Next: top.next, Path: top.path}, nodes - it.Before
	}
	// The lanes count against MaxNodes together, as parallel workers do,
	// and stop when one finds the goal.
	var par search.Shared
	par.Nodes.Store(nodes)
	var drawn atomic.Int64
	ws := sc.ws[:workers]
	for i := range ws {
		ws[i] = laneWorker{set: &sc.sets[i]}
	}
	if workers == 1 {
		ws[0].run(k, &par, items, &drawn)
	} else {
		var wg sync.WaitGroup
		for i := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ws[i].run(k, &par, items, &drawn)
			}()
		}
		wg.Wait()
	}
	next := top.next
	var found *lane
	for i := range ws {
		nodes += ws[i].nodes
		next = min(next, ws[i].next)
		if ws[i].found != nil && found == nil {
			found = ws[i].found
		}
	}
	if found != nil {
		return search.Pass{D: len(found.path), OK: true, Next: next, Path: found.path}, nodes - it.Before
	}
	return search.Pass{Stopped: par.Out.Load(), Next: next}, nodes - it.Before
}

// laneWorker is one goroutine of an iteration in lanes.
type laneWorker struct {
	nodes int64
	next  int
	found *lane // the lane that reached the goal
	set   *laneSet
}

// laneScratch is what a search's iterations in lanes reuse from one to the
// next, and, pooled on the Solver, from one search to the next: the work
// items, their paths, and each worker's lanes with their stacks. Allocated
// per iteration, they were most of the search's garbage (a 15-puzzle
// allocated about 0.6 MB), which in a process with a larger heap (the
// pipeline's, with NATS and PostgreSQL) cost a tenth of its CPU in the
// collector.
type laneScratch struct {
	items []laneItem
	paths []uint8
	ws    []laneWorker
	sets  []laneSet
}

// laneSet is one worker's lanes and their workspaces.
type laneSet struct {
	lanes [laneCount]lane
	works [laneCount]idaWork
	live  []*lane
}

// lanesScratch is k's scratch for an iteration on workers goroutines.
func (k *idaWork) lanesScratch(workers int) *laneScratch {
	if k.scratch == nil {
		k.scratch, _ = k.Solver.scratch.Get().(*laneScratch)
		if k.scratch == nil {
			k.scratch = &laneScratch{}
		}
	}
	sc := k.scratch
	if len(sc.sets) < workers {
		sc.sets = make([]laneSet, workers)
		sc.ws = make([]laneWorker, workers)
	}
	return sc
}

// release returns k's scratch to the Solver's pool: the search is over.
func (k *idaWork) release() {
	if k.scratch != nil {
		k.Solver.scratch.Put(k.scratch)
		k.scratch = nil
	}
}

// run searches items, drawn in turn from drawn, in laneCount lanes over
// copies of k's start, until none is left, a lane reaches the goal or the
// budget (shared in par) runs out.
func (lw *laneWorker) run(k *idaWork, par *search.Shared, items []laneItem, drawn *atomic.Int64) {
	// begin starts items in l until one needs expanding; false when none
	// is left or the search ended (l.found, or the budget).
	begin := func(l *lane) bool {
		for !par.Found.Load() && !par.Out.Load() {
			i := int(drawn.Add(1) - 1)
			if i >= len(items) {
				return false
			}
			it := &items[i]
			w := l.idaWork
			w.board, w.rank, w.hv = it.board, it.rank, it.hv
			copy(w.path, it.path)
			l.root, l.g = len(it.path), len(it.path)
			fr := &l.frames[l.g]
			fr.blank, fr.st, fr.s0, fr.s1 = it.blank, it.st, it.s0, it.s1
			if !l.enter() {
				return true
			}
			if l.found || l.err != nil {
				return false
			}
		}
		return false
	}
	set := lw.set
	ls := set.lanes[:]
	live := set.live[:0]
	defer func() { set.live = live[:0] }()
	for i := range ls {
		ls[i].idaWork = nil // not begun in this iteration (yet)
	}
	var end *lane // the lane that found the goal or ran out
	for i := range ls {
		l := &ls[i]
		w := &set.works[i]
		path, frames := w.path, l.frames
		*w = *k
		w.gate = k.gate.Worker(par)
		if cap(path) < k.bound+1 {
			path = make([]uint8, k.bound+1)
		}
		w.path = path[:k.bound+1]
		w.next = search.NoNext
		w.par, w.split, w.collect, w.scratch = par, -1, nil, nil
		// Every field of a frame is written before it is read (begin,
		// enter, successors), so a stack from an earlier iteration serves.
		if cap(frames) < k.bound+1 {
			frames = make([]frame, k.bound+1)
		}
		*l = lane{idaWork: w, frames: frames[:k.bound+1]}
		if begin(l) {
			live = append(live, l)
		} else if l.found || l.err != nil {
			end = l
			break
		}
	}
	// A round steps every lane once; another worker's goal ends it (one
	// load per round, so the others stop within a few nodes).
	for end == nil && len(live) > 0 && !par.Found.Load() {
		for j := 0; j < len(live); {
			l := live[j]
			if !l.step() {
				j++
				continue
			}
			// l's subtree is done, or the goal or the budget ended it.
			if !l.found && l.err == nil && begin(l) {
				j++
				continue
			}
			if l.found || l.err != nil {
				end = l
				break
			}
			live[j] = live[len(live)-1]
			live = live[:len(live)-1]
		}
	}
	lw.next = search.NoNext
	for i := range ls {
		if ls[i].idaWork != nil {
			lw.nodes += ls[i].gate.Nodes
			lw.next = min(lw.next, ls[i].next)
		}
	}
	if end != nil && end.found {
		lw.found = end
		par.Found.Store(true)
	}
}
