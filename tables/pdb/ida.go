package pdb

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/tessera-solver/tessera/internal/search"
)

// Solver is IDA* for one board over a Set: the bound is the additive sum
// of the set's tables, and on square boards the maximum of that and the
// sum for the board reflected about the main diagonal. Only the table of
// the moved tile's pattern (and of its reflection) is looked up again
// after a move. It is immutable and safe for concurrent use; every Solve
// works in its own workspace.
//
// Move codes of the Outcome's Path are those of internal/search: the
// direction the TILE moves (Up 0, Down 1, Left 2, Right 3).
type Solver struct {
	set     *Set
	reflect bool
	pats    []pattern
	goal    [32]uint8
}

// pattern is one table in the layout the search reads.
type pattern struct {
	data   []byte
	k      int
	tiles  [MaxCells]uint8
	rtiles [MaxCells]uint8
	mul    [MaxCells]uint64
}

// maxPatterns is how many tables a Solver combines.
const maxPatterns = 8

// NewSolver prepares IDA* over s; reflect asks for the reflected lookup
// (ignored on boards that are not square).
func NewSolver(s *Set, reflect bool) (*Solver, error) {
	if len(s.pdbs) > maxPatterns {
		return nil, fmt.Errorf("pdb search: %d tables, at most %d", len(s.pdbs), maxPatterns)
	}
	sv := &Solver{set: s, reflect: reflect && s.square}
	for j, p := range s.pdbs {
		pt := pattern{data: p.data, k: p.k, mul: p.mul}
		copy(pt.tiles[:], p.tiles)
		if s.square {
			copy(pt.rtiles[:], s.rtiles[j])
		}
		sv.pats = append(sv.pats, pt)
	}
	for i := 0; i < s.g.n-1; i++ {
		sv.goal[i] = uint8(i + 1)
	}
	return sv, nil
}

// Name describes the heuristic, for a Result's solver field.
func (sv *Solver) Name() string {
	name := "ida*(pdb"
	for _, p := range sv.set.pdbs {
		name += fmt.Sprintf("-%d", p.k)
	}
	if sv.reflect {
		name += "+reflect"
	}
	return name + ")"
}

const (
	tileUp uint8 = iota
	tileDown
	tileLeft
	tileRight
	noMove = 4
)

type idaWork struct {
	*Solver
	board   [32]uint8          // cell → tile
	pos     Positions          // tile → cell
	hv, hr  [maxPatterns]uint8 // each pattern's entry, direct and reflected
	path    []uint8
	bound   int
	next    int
	nodes   int64
	check   int64 // nodes at which the budget is looked at next
	budget  search.Budget
	stopped bool
	w16     int // heuristic weight in sixteenths: 16 is plain IDA*
}

const checkEvery = 1 << 16

func (k *idaWork) rankDirect(j int) uint64 {
	p := &k.pats[j]
	var used uint32
	var r uint64
	for i := 0; i < p.k; i++ {
		c := k.pos[p.tiles[i]&31] & 31
		r += uint64(uint32(c)-uint32(bits.OnesCount32(used&(1<<c-1)))) * p.mul[i]
		used |= 1 << c
	}
	return r
}

func (k *idaWork) rankReflected(j int) uint64 {
	p := &k.pats[j]
	tr := &k.set.transpose
	var used uint32
	var r uint64
	for i := 0; i < p.k; i++ {
		c := tr[k.pos[p.rtiles[i]&31]&31] & 31
		r += uint64(uint32(c)-uint32(bits.OnesCount32(used&(1<<c-1)))) * p.mul[i]
		used |= 1 << c
	}
	return r
}

func (k *idaWork) h() int {
	sv, sr := 0, 0
	for j := range k.pats {
		sv += int(k.hv[j])
		sr += int(k.hr[j])
	}
	return max(sv, sr)
}

// Solve runs IDA* from cells (row-major, 0 the blank) to the goal. When
// the budget runs out it returns search.ErrBudgetExceeded with the lower
// bound proved so far.
func (sv *Solver) Solve(cells []uint8, b search.Budget) (search.Outcome, error) {
	return sv.SolveWeighted(cells, b, Unweighted)
}

// Unweighted is the weight of plain IDA* for SolveWeighted: sixteenths.
const Unweighted = 16

// SolveWeighted is IDA* on g + h·w16/16: with w16 > 16 it trades length
// for far fewer nodes (not proved optimal; the lower bound is the start's
// heuristic). w16 below 16 is treated as 16.
func (sv *Solver) SolveWeighted(cells []uint8, b search.Budget, w16 int) (search.Outcome, error) {
	n := sv.set.g.n
	if len(cells) != n {
		return search.Outcome{}, fmt.Errorf("pdb search: %d cells, want %d", len(cells), n)
	}
	k := &idaWork{Solver: sv, budget: b, check: checkEvery, w16: max(w16, Unweighted)}
	if b.MaxNodes > 0 && b.MaxNodes < k.check {
		k.check = b.MaxNodes + 1
	}
	if b.Ctx != nil || !b.Deadline.IsZero() {
		k.check = 1
	}
	var seen uint32
	for i, t := range cells {
		if int(t) >= n || seen&(1<<t) != 0 {
			return search.Outcome{}, fmt.Errorf("pdb search: %v is not a board of %d cells", cells, n)
		}
		seen |= 1 << t
		k.board[i] = t
		k.pos[t] = uint8(i)
	}
	for j := range k.pats {
		k.hv[j] = k.pats[j].data[k.rankDirect(j)]
		if sv.reflect {
			k.hr[j] = k.pats[j].data[k.rankReflected(j)]
		}
	}
	h0 := k.h()
	if h0 >= Unreached {
		return search.Outcome{}, fmt.Errorf("pdb search: %v cannot reach the goal", cells)
	}
	k.bound = k.f(0, h0)
	lower := h0
	for {
		if cap(k.path) < k.bound+1 {
			k.path = make([]uint8, k.bound+1)
		}
		k.path = k.path[:k.bound+1]
		k.next = 1 << 30
		if d, ok := k.dfs(0, int(k.pos[0]), noMove); ok {
			out := search.Outcome{Path: append([]uint8(nil), k.path[:d]...), Nodes: k.nodes, LowerBound: d, Optimal: k.w16 == Unweighted}
			if !out.Optimal {
				out.LowerBound = h0
			}
			return out, nil
		}
		if k.stopped {
			return search.Outcome{Nodes: k.nodes, LowerBound: lower}, search.ErrBudgetExceeded
		}
		if k.next == 1<<30 {
			return search.Outcome{Nodes: k.nodes}, search.ErrNoSolution
		}
		if k.w16 == Unweighted {
			lower = k.next // every path shorter than the bound was refuted
		}
		k.bound = k.next
	}
}

// f is the cost bound of a node at depth g with heuristic h.
func (k *idaWork) f(g, h int) int {
	if k.w16 == Unweighted {
		return g + h
	}
	return g + h*k.w16/16
}

func (k *idaWork) expired() bool {
	b := k.budget
	switch {
	case b.MaxNodes > 0 && k.nodes > b.MaxNodes,
		!b.Deadline.IsZero() && time.Now().After(b.Deadline),
		b.Ctx != nil && b.Ctx.Err() != nil:
		return true
	}
	k.check = k.nodes + checkEvery
	if b.MaxNodes > 0 && b.MaxNodes+1 < k.check {
		k.check = b.MaxNodes + 1
	}
	return false
}

func (k *idaWork) isGoal() bool { return k.board == k.goal }

// dfs explores below a node at depth g whose blank is on cell blank.
func (k *idaWork) dfs(g, blank int, prev uint8) (int, bool) {
	k.nodes++
	if k.nodes >= k.check && k.expired() {
		k.nodes--
		k.stopped = true
		return 0, false
	}
	hv, hr := k.hv, k.hr
	if k.h() == 0 && k.isGoal() {
		return g, true
	}
	w, n := k.set.g.w, k.set.g.n
	for dir := tileUp; dir <= tileRight; dir++ {
		if dir == prev^1 {
			continue
		}
		var src int
		switch dir {
		case tileUp: // the tile below the blank moves up
			if blank+w >= n {
				continue
			}
			src = blank + w
		case tileDown:
			if blank < w {
				continue
			}
			src = blank - w
		case tileLeft:
			if blank%w == w-1 {
				continue
			}
			src = blank + 1
		case tileRight:
			if blank%w == 0 {
				continue
			}
			src = blank - 1
		}
		t := k.board[src]
		k.board[blank], k.board[src] = t, 0
		k.pos[t], k.pos[0] = uint8(blank), uint8(src)
		if j := k.set.of[t]; j >= 0 {
			k.hv[j] = k.pats[j].data[k.rankDirect(int(j))]
		}
		if k.reflect {
			if j := k.set.of[k.set.relabel[t]]; j >= 0 {
				k.hr[j] = k.pats[j].data[k.rankReflected(int(j))]
			}
		}
		f := k.f(g+1, k.h())
		if f > k.bound {
			if f < k.next {
				k.next = f
			}
		} else {
			k.path[g] = dir
			if d, ok := k.dfs(g+1, src, dir); ok {
				return d, true
			}
		}
		k.board[blank], k.board[src] = 0, t
		k.pos[t], k.pos[0] = uint8(src), uint8(blank)
		k.hv, k.hr = hv, hr
		if k.stopped {
			return 0, false
		}
	}
	return 0, false
}
