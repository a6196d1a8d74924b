// Package policy is what tessera decides for each puzzle family beyond its
// rules (internal/puzzle): which built-in algorithm answers a board, the
// default per-state budget, how many states travel in one job message and
// so which lane a job takes. One row per built-in family, in families
// below; a family without one (declared outside internal/puzzle, whose
// solver entry serves it by kind) gets no route, the quick lane's budget
// and the tiny-board chunks. The rules say what a board is, this says how
// tessera treats it.
package policy

import (
	"math"
	"time"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
)

// Route names a built-in way of answering a board in one mode.
type Route uint8

const (
	NoRoute Route = iota // no family
	// RouteTable: an exact distance table of the whole space, built in
	// memory on first use (TableCells), answers by descent.
	RouteTable
	// RouteSearch: IDA* over the family's bound, budgeted; in fast mode a
	// weighted or budgeted one (Loopover: then the constructive answer).
	RouteSearch
	// RouteTwoPhase: the 5×5 Loopover two-phase solver (fast mode).
	RouteTwoPhase
	// RouteConstruct: a constructive answer, not proved optimal (Loopover
	// boards whose optimal search would only run out of budget).
	RouteConstruct
	// RouteMatching: the swap boards' min-cost matching, exact.
	RouteMatching
)

// TableCells bounds the boards of a family with whole-space tables that
// are answered from a table built in memory on first use (sliding 2×5 and
// Loopover 2×5 have 1.8 M and 3.6 M states). 12-cell Loopover boards need
// a 240 MB table built on purpose (`solverd tables build
// loopover-3x4-bfs`).
const TableCells = 10

// QuickLimit is the largest per-state time budget of a job in the quick
// lane: a job that may take longer per state goes to the heavy lane, so a
// quick worker is never held for long. The default budgets are measured
// against it.
const QuickLimit = 10 * time.Second

// Class is one row of the default-budget table `solverd solve --help`
// prints: a label and a board its budgets are read from.
type Class struct {
	Label string
	Spec  puzzle.Spec
}

// family is one family's policy.
type family struct {
	// route is which built-in algorithm answers a board (fast: fast mode).
	route func(sp puzzle.Spec, fast bool) Route
	// timeout is the per-state budget of a job that names none.
	timeout func(sp puzzle.Spec, fast bool) time.Duration
	// chunk is how many states of a board too large for the tiny-board
	// rule travel in one job message (1: one per message).
	chunk func(sp puzzle.Spec, fast bool) int
	// classes are the boards whose budgets differ, for --help.
	classes []Class
}

// families is the policy of each family, indexed by puzzle.Kind.
var families = [...]family{
	puzzle.Sliding: {
		// The in-memory table up to TableCells, IDA* beyond (over pattern
		// databases when a set is loaded, else walking and inversion
		// distance).
		route: func(sp puzzle.Spec, _ bool) Route {
			if inMemoryTable(sp) {
				return RouteTable
			}
			return RouteSearch
		},
		timeout: func(sp puzzle.Spec, fast bool) time.Duration {
			switch cells := sp.Cells(); {
			case cells <= 12 || fast: // exact tables, tiny searches, anytime search
				return QuickLimit
			case cells <= 16:
				return 5 * time.Minute
			}
			return 30 * time.Minute // 24-puzzles: minutes to hours with the best tables
		},
		chunk: func(sp puzzle.Spec, fast bool) int {
			switch {
			case sp.Cells() == 16 && fast:
				return 16
			case sp.Cells() == 16:
				// Optimal 15-puzzles over the 7-8 tables take milliseconds:
				// eight to a message cut the pipeline's overhead (BENCHMARKS),
				// and a job of eight slow ones (seconds each without tables)
				// still spreads over workers.
				return 8
			}
			return 1
		},
		classes: []Class{
			{"sliding up to 12 cells (8-puzzle, 3x4)", puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}},
			{"sliding 4x4 (15-puzzle)", puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}},
			{"sliding 5x5 and larger", puzzle.Spec{Kind: puzzle.Sliding, Rows: 5, Cols: 5}},
		},
	},
	puzzle.Loopover: {
		route: loopoverRoute,
		timeout: func(sp puzzle.Spec, fast bool) time.Duration {
			if loopoverRoute(sp, fast) == RouteSearch && sp.Cells() > 16 {
				return 30 * time.Minute // 5×5 optimal search: seconds to beyond reach
			}
			// Tables, the 4×4 solver, two-phase and constructive answers.
			return QuickLimit
		},
		chunk: func(sp puzzle.Spec, _ bool) int {
			if sp.Cells() > 25 {
				return 100 // constructive answers (no optimal solver that large)
			}
			return 1
		},
		classes: []Class{
			{"loopover 5x5", puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}},
			{"loopover, every other size", puzzle.Spec{Kind: puzzle.Loopover, Rows: 4, Cols: 4}},
		},
	},
	puzzle.Swap: {
		// Min-cost matching, exact at every size.
		route: func(puzzle.Spec, bool) Route { return RouteMatching },
		timeout: func(sp puzzle.Spec, _ bool) time.Duration {
			if sp.Cells() <= 100*100 {
				return QuickLimit // matching
			}
			return 10 * time.Minute
		},
		chunk: func(sp puzzle.Spec, _ bool) int {
			if sp.Cells() <= 100 {
				return 100
			}
			return 1
		},
		classes: []Class{
			{"swap up to 100x100", puzzle.Spec{Kind: puzzle.Swap, Rows: 100, Cols: 100}},
			{"swap larger", puzzle.Spec{Kind: puzzle.Swap, Rows: 101, Cols: 101}},
		},
	},
}

// loopoverRoute is the one place that decides what answers a Loopover board.
// Boards up to TableCells: the in-memory table. 5×5 in fast mode: the
// two-phase solver. An optimal search where its walking-distance tables
// fit in memory (every other board up to 12 cells, 4×4, 3×5 and 5×3:
// internal/loopover.WDSize, which a test of internal/solve holds this to)
// and on 5×5 (the displacement bound, or the walking-distance table file:
// states of up to about 18 moves in seconds). Other boards are
// constructive: an optimal search there would only run out of budget.
func loopoverRoute(sp puzzle.Spec, fast bool) Route {
	five := sp.Rows == 5 && sp.Cols == 5
	switch cells := sp.Cells(); {
	case inMemoryTable(sp):
		return RouteTable
	case five && fast:
		return RouteTwoPhase
	case five, cells <= 12, cells <= 16 && max(sp.Rows, sp.Cols) <= 5:
		return RouteSearch
	}
	return RouteConstruct
}

// of is sp's family's policy, nil when sp names no family.
func of(sp puzzle.Spec) *family {
	if sp.Family() == nil || int(sp.Kind) >= len(families) || families[sp.Kind].route == nil {
		return nil
	}
	return &families[sp.Kind]
}

// inMemoryTable reports whether sp's whole-space table is built in memory
// (RouteTable).
func inMemoryTable(sp puzzle.Spec) bool {
	return sp.Family().SpaceIndex() != puzzle.NoSpaceIndex && sp.Cells() <= TableCells
}

// Of is which built-in algorithm answers sp in a mode (fast: fast mode),
// the one decision the solver registry's built-ins, the table kinds'
// Serves and the default budgets ask; NoRoute for a spec that names no
// family. A loaded table set that serves the board goes before the
// built-in (internal/solve).
func Of(sp puzzle.Spec, fast bool) Route {
	if f := of(sp); f != nil {
		return f.route(sp, fast)
	}
	return NoRoute
}

// DefaultTimeout is the per-state time budget of a job that names none
// (docs/PIPELINE-store.md, "Budgets and lanes"): every job ends, and what
// needs milliseconds gets a budget small enough for the quick lane. A job
// may ask for more, and each solverd caps what it grants (solver.timeout,
// solver.max_nodes).
func DefaultTimeout(sp puzzle.Spec, mode result.Mode) time.Duration {
	if f := of(sp); f != nil {
		return f.timeout(sp, mode == result.ModeFast)
	}
	return QuickLimit
}

// LaneOf is the lane of a job of sp in mode whose per-state time budget is
// timeout (0: DefaultTimeout).
func LaneOf(sp puzzle.Spec, mode result.Mode, timeout time.Duration) job.Lane {
	if timeout <= 0 {
		timeout = DefaultTimeout(sp, mode)
	}
	if timeout <= QuickLimit {
		return job.LaneQuick
	}
	return job.LaneHeavy
}

// autoChunk picks how many states travel in one job message when the
// configuration does not say: enough that JetStream's per-message cost (a
// pull, a publish and an ack) is small next to the solve time, and one
// state per message for solves long enough that spreading them across
// workers matters more. Tiny boards are decided here, the rest by their
// family.
func autoChunk(sp puzzle.Spec, mode result.Mode) int {
	f := of(sp)
	switch {
	case sp.Cells() <= 12:
		return 1000 // table lookups and tiny searches
	case f == nil:
		return 1
	}
	return f.chunk(sp, mode == result.ModeFast)
}

// ChunkSize is how many consecutive states of a batch travel in one job:
// configured when positive (producer.chunk_size), else autoChunk's choice,
// bounded so a job message stays well under the server's max payload
// (results are split by the worker if they must be).
func ChunkSize(sp puzzle.Spec, mode result.Mode, configured int, maxPayload int64) int {
	c := configured
	if c <= 0 {
		c = autoChunk(sp, mode)
	}
	// A state's text is at most about 3 bytes per cell plus JSON quoting.
	per := int64(3*sp.Cells() + 8)
	budget := max(maxPayload/2, 1)
	return int(max(1, min(int64(c), budget/per, math.MaxInt32)))
}

// Classes lists the boards whose default budgets differ, family by family,
// for the budget table of `solverd solve --help`.
func Classes() []Class {
	var out []Class
	for _, f := range families {
		out = append(out, f.classes...)
	}
	return out
}
