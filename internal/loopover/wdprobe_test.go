package loopover

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// The walking distance of a board's inverse (each piece's goal cell
// holding the cell the piece is on) equals the board's own, on both axes:
// the bound is a distance between double cosets, and a word and its
// inverse have the same length. So the inverse lookup that helps pattern
// databases adds nothing here; this test keeps docs/BENCHMARKS.md's claim
// true for the tables the solvers use.
func TestWDInverseInvariant(t *testing.T) {
	wd55, err := capped55()
	if err != nil {
		t.Fatal(err)
	}
	s55, err := NewWDSolverWith(5, 5, wd55, wd55)
	if err != nil {
		t.Fatal(err)
	}
	s44, err := NewWDSolver(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	s34, err := NewWDSolver(3, 4)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(19, 16))
	for _, s := range []*Solver{s55, s44, s34} {
		for range 20000 {
			perm := rng.Perm(s.n)
			cells, inv := make([]uint8, s.n), make([]uint8, s.n)
			for p, q := range perm {
				cells[p], inv[q] = uint8(q+1), uint8(p+1)
			}
			a, err := s.root(cells)
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.root(inv)
			if err != nil {
				t.Fatal(err)
			}
			if a.hr != b.hr || a.hc != b.hc {
				t.Fatalf("%dx%d %v: walking distance %d+%d, inverse %d+%d", s.r, s.c, cells, a.hr, a.hc, b.hr, b.hc)
			}
		}
	}
}

// BenchmarkWalk5x5WDRemaining reports where the 5×5 walking-distance
// search spends its nodes: the share of nodes within the bound whose
// remaining budget (bound − depth) is at most k. A perimeter of radius k
// around the goal (exact distances of every state within k moves) would
// save at most that share. It runs a plain IDA* of its own that computes
// the bound from scratch at every node, so it is slow (minutes for the
// 16-move walks):
//
//	TESSERA_SOLVER_TABLES_DIR=~/.cache/tessera/tables go test -run '^$' -bench Walk5x5WDRemaining -benchtime 1x -timeout 30m ./internal/loopover
func BenchmarkWalk5x5WDRemaining(b *testing.B) {
	s := wd55FromDir(b)
	sp := spec(5, 5)
	for _, walk := range []int{14, 16} {
		b.Run(fmt.Sprintf("walk=%d", walk), func(b *testing.B) {
			for range b.N {
				rng := rand.New(rand.NewPCG(2026, uint64(walk)))
				p := &probe55{w: work{Solver: s}}
				for range 10 {
					cells := puzzle.RandomWalk(sp, rng, walk).Cells
					root, err := s.root(cells)
					if err != nil {
						b.Fatal(err)
					}
					p.solve(root)
				}
				var all, cum int64
				for _, n := range p.byLeft {
					all += n
				}
				for k := 4; k <= 9; k++ {
					for _, n := range p.byLeft[:k+1] {
						cum += n
					}
					b.ReportMetric(100*float64(cum)/float64(all), fmt.Sprintf("%%left≤%d", k))
					cum = 0
				}
				b.ReportMetric(float64(all)/10, "nodes/state")
			}
		})
	}
}

// probe55 is a plain IDA* over s's tables with the move rules of dfs,
// counting nodes within the bound by their remaining budget. It moves
// pieces with the search's own shift and recomputes the bound from the
// cells at every node.
type probe55 struct {
	w      work
	bound  int
	next   int
	byLeft [64]int64
}

func (p *probe55) h() int {
	p.w.walking(&p.w.b)
	return p.w.b.hr + p.w.b.hc
}

func (p *probe55) solve(root board) {
	p.w.b = root
	for p.bound = p.h(); ; p.bound = p.next {
		p.next = 1 << 30
		if p.dfs(0, 0xff, 0) {
			return
		}
	}
}

func (p *probe55) dfs(g int, last uint8, run int) bool {
	h := p.h()
	if g+h > p.bound {
		p.next = min(p.next, g+h)
		return false
	}
	p.byLeft[p.bound-g]++
	if h == 0 {
		return true
	}
	s := p.w.Solver
	for m := uint8(0); m < 4*side55; m++ {
		nrun := 1
		if last != 0xff && s.axis[m] == s.axis[last] {
			if s.line[m] < s.line[last] {
				continue
			}
			if s.line[m] == s.line[last] {
				if run >= 2 || s.dir[m] != s.dir[last] {
					continue
				}
				nrun = run + 1
			}
		}
		p.w.shift(int(m))
		if p.dfs(g+1, m, nrun) {
			return true
		}
		p.w.shift(int(m ^ 1))
	}
	return false
}
