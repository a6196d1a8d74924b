package solve

import (
	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding"
	"github.com/tessera-solver/tessera/internal/swap"
)

// smallCells bounds the boards answered from an exact distance table built
// in memory on first use (sliding 2×5 and Loopover 2×5 have 1.8 M and
// 3.6 M states: well under a second). 12-cell Loopover boards need a
// 240 MB table built on purpose (`solverd tables build loopover-3x4-bfs`).
const smallCells = 10

// Builtin is every algorithm that needs no table file, best first. A
// loaded table set goes before them (see Tables), so for example the
// 15-puzzle is answered over pattern databases when they are loaded and by
// walking distance otherwise.
//
//	puzzle      boards                 algorithm
//	sliding     ≤ 10 cells             distance table built in memory, by descent
//	loopover    ≤ 10 cells             the same
//	loopover    5×5, fast mode         two-phase over small in-memory bounds
//	loopover    any other              IDA* where its bound fits, else construction
//	sliding     any other              IDA* over walking + inversion distance
//	swap        any                    min-cost matching
func Builtin() []Entry {
	return []Entry{
		{Name: "distance table", Serves: small, New: func(sp puzzle.Spec) (search.Algorithm, error) {
			return fulltable.Build(sp)
		}},
		{Name: "loopover two-phase", Serves: fiveByFiveFast, New: func(puzzle.Spec) (search.Algorithm, error) {
			return twophase.New(nil)
		}},
		{Name: "loopover search", Serves: kind(puzzle.Loopover), New: newLoopover},
		{Name: "sliding IDA*", Serves: kind(puzzle.Sliding), New: func(sp puzzle.Spec) (search.Algorithm, error) {
			return sliding.NewSearcher(sp.Rows, sp.Cols)
		}},
		{Name: "swap matching", Serves: kind(puzzle.Swap), New: func(puzzle.Spec) (search.Algorithm, error) {
			return swap.Matching{}, nil
		}},
	}
}

func small(sp puzzle.Spec, _ result.Mode) bool {
	f := sp.Family()
	return f != nil && f.WholeSpaceTables() && sp.Cells() <= smallCells
}

func fiveByFiveFast(sp puzzle.Spec, mode result.Mode) bool {
	return mode == result.ModeFast && sp == puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
}

func kind(k puzzle.Kind) func(puzzle.Spec, result.Mode) bool {
	return func(sp puzzle.Spec, _ result.Mode) bool { return sp.Kind == k }
}
