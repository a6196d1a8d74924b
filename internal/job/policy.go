package job

import (
	"math"
	"time"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
)

// Lane is the cost class of a job. Quick and heavy jobs travel on separate
// subjects to separate consumers, and every solverd keeps workers for the
// quick lane alone, so a batch of cheap puzzles never waits behind hours
// of 24-puzzle search queued before it.
type Lane string

const (
	LaneQuick Lane = "quick"
	LaneHeavy Lane = "heavy"
)

// QuickLimit is the largest per-state time budget of a quick job: a job
// that may take longer per state goes to the heavy lane, so a quick
// worker is never held for long.
const QuickLimit = 10 * time.Second

// DefaultTimeout is the per-state time budget of a job that names none
// (docs/PIPELINE-store.md, "Budgets and lanes"): every job ends, and what
// needs milliseconds gets a budget small enough for the quick lane. A job
// may ask for more, and each solverd caps what it grants
// (solver.timeout, solver.max_nodes).
func DefaultTimeout(spec puzzle.Spec, mode result.Mode) time.Duration {
	fast := mode == result.ModeFast
	cells := spec.Cells()
	switch spec.Kind {
	case puzzle.Sliding:
		switch {
		case cells <= 12 || fast: // exact tables, tiny searches, anytime search within a second
			return QuickLimit
		case cells <= 16:
			return 5 * time.Minute
		}
		return 30 * time.Minute // 24-puzzles: minutes to hours with the best tables
	case puzzle.Loopover:
		if spec.Rows == 5 && spec.Cols == 5 && !fast {
			return 30 * time.Minute // optimal search over EMD: seconds to beyond reach
		}
		// Tables, the 4×4 solver (milliseconds), two-phase (300 ms) and
		// constructive answers (microseconds).
		return QuickLimit
	case puzzle.Swap:
		if cells <= 100*100 {
			return QuickLimit // matching: under a second
		}
		return 10 * time.Minute
	}
	return QuickLimit
}

// LaneOf is the lane of a job of spec in mode whose per-state time budget
// is timeout (0: DefaultTimeout).
func LaneOf(spec puzzle.Spec, mode result.Mode, timeout time.Duration) Lane {
	if timeout <= 0 {
		timeout = DefaultTimeout(spec, mode)
	}
	if timeout <= QuickLimit {
		return LaneQuick
	}
	return LaneHeavy
}

// autoChunk picks how many states travel in one job message when the
// configuration does not say: enough that JetStream's per-message cost
// (a pull, a publish and an ack, about 0.2 ms) is small next to the solve
// time, and one state per message for solves long enough that spreading
// them across workers matters more.
func autoChunk(spec puzzle.Spec, mode result.Mode) int {
	cells := spec.Cells()
	switch {
	case cells <= 12:
		// Table lookups and tiny searches: microseconds per state.
		return 1000
	case spec.Kind == puzzle.Swap && cells <= 100:
		return 100
	case spec.Kind == puzzle.Sliding && cells == 16 && mode == result.ModeFast:
		return 16
	case spec.Kind == puzzle.Sliding && cells == 16:
		// Optimal 15-puzzles take about 2.5 ms each over the 7-8 tables:
		// eight to a message cut the pipeline's overhead by a tenth (2,000
		// states in 2.3-2.4 s instead of 2.7 s), and a job of eight slow
		// ones (seconds each without tables) still spreads over workers.
		return 8
	case spec.Kind == puzzle.Loopover && cells > 25:
		// Constructive answers (no optimal solver that large): microseconds.
		return 100
	}
	return 1
}

// ChunkSize is how many consecutive states of a batch travel in one job:
// configured when positive (producer.chunk_size), else autoChunk's choice,
// bounded so a job message stays well under the server's max payload
// (results are split by the worker if they must be).
func ChunkSize(spec puzzle.Spec, mode result.Mode, configured int, maxPayload int64) int {
	c := configured
	if c <= 0 {
		c = autoChunk(spec, mode)
	}
	// A state's text is at most about 3 bytes per cell plus JSON quoting.
	per := int64(3*spec.Cells() + 8)
	budget := max(maxPayload/2, 1)
	return int(max(1, min(int64(c), budget/per, math.MaxInt32)))
}
