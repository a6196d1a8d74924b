package solve

import (
	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding"
	"github.com/tessera-solver/tessera/internal/swap"
)

// Builtin is every algorithm that needs no table file, one per route the
// puzzle families name (puzzle.Family.Route, the one place that decides
// what answers a board in a mode). A loaded table set goes before them
// (see Tables), so for example the 15-puzzle is answered over pattern
// databases when they are loaded and by walking distance otherwise.
//
//	route            puzzles                   algorithm
//	RouteTable       sliding, loopover ≤ 10    distance table built in memory, by descent
//	RouteTwoPhase    loopover 5×5, fast mode   two-phase over small in-memory bounds
//	RouteSearch      loopover                  optimal IDA* for the shape (loopover/optimal.New)
//	RouteConstruct   loopover                  construction
//	RouteSearch      sliding                   IDA* over walking + inversion distance
//	RouteMatching    swap                      min-cost matching
func Builtin() []Entry {
	return []Entry{
		{Name: "distance table", Serves: route(policy.RouteTable), New: func(sp puzzle.Spec) (search.Algorithm, error) {
			return fulltable.Build(sp)
		}},
		{Name: "loopover two-phase", Serves: route(policy.RouteTwoPhase), New: func(puzzle.Spec) (search.Algorithm, error) {
			return twophase.New(nil)
		}},
		{Name: "loopover search", Serves: kindRoute(puzzle.Loopover, policy.RouteSearch), New: newLoopover},
		{Name: "loopover construction", Serves: route(policy.RouteConstruct), New: func(puzzle.Spec) (search.Algorithm, error) {
			return loopover.NewAlgorithm(nil), nil
		}},
		{Name: "sliding IDA*", Serves: kindRoute(puzzle.Sliding, policy.RouteSearch), New: func(sp puzzle.Spec) (search.Algorithm, error) {
			return sliding.NewSearcher(sp.Rows, sp.Cols)
		}},
		{Name: "swap matching", Serves: route(policy.RouteMatching), New: func(puzzle.Spec) (search.Algorithm, error) {
			return swap.Matching{}, nil
		}},
	}
}

// route serves the boards whose family routes them to r in the mode.
func route(r policy.Route) func(puzzle.Spec, result.Mode) bool {
	return func(sp puzzle.Spec, mode result.Mode) bool { return policy.Of(sp, mode == result.ModeFast) == r }
}

// kindRoute is route for one family's boards.
func kindRoute(k puzzle.Kind, r policy.Route) func(puzzle.Spec, result.Mode) bool {
	in := route(r)
	return func(sp puzzle.Spec, mode result.Mode) bool { return sp.Kind == k && in(sp, mode) }
}
