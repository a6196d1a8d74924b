package ida55

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
)

// BenchmarkWalk5x5WDRemaining reports where the 5×5 walking-distance
// search spends its nodes: the share of nodes within the bound whose
// remaining budget (bound − depth) is at most k. A perimeter of radius k
// around the goal (exact distances of every state within k moves) would
// save at most that share. It runs a plain IDA* of its own that computes
// the bound from scratch at every node, so it is slow (minutes for the
// 16-move walks):
//
//	TESSERA_SOLVER_TABLES_DIR=~/.cache/tessera/tables go test -run '^$' -bench Walk5x5WDRemaining -benchtime 1x -timeout 30m ./internal/loopover/ida55
func BenchmarkWalk5x5WDRemaining(b *testing.B) {
	s := wd55FromDir(b)
	sp := spec(5, 5)
	for _, walk := range []int{14, 16} {
		b.Run(fmt.Sprintf("walk=%d", walk), func(b *testing.B) {
			for range b.N {
				rng := rand.New(rand.NewPCG(2026, uint64(walk)))
				p := &probe55{w: loopover.NewWork(s.g, loopover.Board{}, search.Budget{})}
				for range 10 {
					cells := puzzle.RandomWalk(sp, rng, walk).Cells
					root, err := s.g.Root(cells)
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
	w      loopover.Work
	bound  int
	next   int
	byLeft [64]int64
}

func (p *probe55) h() int {
	var cells [side * side]uint8
	for i, v := range p.w.B.Cells[:side*side] {
		cells[i] = v>>3*side + v&loopover.ColMask + 1
	}
	b, err := p.w.Root(cells[:])
	if err != nil {
		panic(err)
	}
	return b.HR + b.HC
}

func (p *probe55) solve(root loopover.Board) {
	p.w.B = root
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
	for m := uint8(0); m < 4*side; m++ {
		nrun := 1
		ax, ln, dr := s.Move(m)
		lax, lln, ldr := s.Move(min(last, m))
		if last != 0xff && ax == lax {
			if ln < lln {
				continue
			}
			if ln == lln {
				if run >= 2 || dr != ldr {
					continue
				}
				nrun = run + 1
			}
		}
		p.w.Shift(int(m))
		if p.dfs(g+1, m, nrun) {
			return true
		}
		p.w.Shift(int(m ^ 1))
	}
	return false
}
