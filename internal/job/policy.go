package job

import (
	"errors"
	"fmt"
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

// Priority is the order in which workers take the jobs of one lane: high
// first, low last, each on subjects and consumers of its own, with a
// small share of pulls that look at the lower levels first so that they
// never starve (internal/worker).
type Priority string

const (
	PriorityHigh   Priority = "high"
	PriorityNormal Priority = "normal"
	PriorityLow    Priority = "low"
)

// Priorities is every priority, highest first.
func Priorities() []Priority { return []Priority{PriorityHigh, PriorityNormal, PriorityLow} }

// ErrBadPriority is returned by ParsePriority for anything but the three.
var ErrBadPriority = errors.New("unknown priority")

// ParsePriority reads high, normal or low ("" means normal).
func ParsePriority(s string) (Priority, error) {
	switch p := Priority(s); p {
	case PriorityHigh, PriorityNormal, PriorityLow:
		return p, nil
	case "":
		return PriorityNormal, nil
	}
	return "", fmt.Errorf("priority %q: want high, normal or low: %w", s, ErrBadPriority)
}

// QuickLimit is the largest per-state time budget of a quick job: a job
// that may take longer per state goes to the heavy lane, so a quick
// worker is never held for long.
const QuickLimit = puzzle.QuickBudget

// DefaultTimeout is the per-state time budget of a job that names none
// (docs/PIPELINE-store.md, "Budgets and lanes"), as its puzzle family
// declares it (internal/puzzle, family_*.go): every job ends, and what
// needs milliseconds gets a budget small enough for the quick lane. A job
// may ask for more, and each solverd caps what it grants
// (solver.timeout, solver.max_nodes).
func DefaultTimeout(spec puzzle.Spec, mode result.Mode) time.Duration {
	if f := spec.Family(); f != nil {
		return f.DefaultTimeout(spec, mode == result.ModeFast)
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
// them across workers matters more. Tiny boards are decided here, the
// rest by their family (Family.Chunk).
func autoChunk(spec puzzle.Spec, mode result.Mode) int {
	f := spec.Family()
	switch {
	case spec.Cells() <= 12:
		// Table lookups and tiny searches: microseconds per state.
		return 1000
	case f == nil:
		return 1
	}
	return f.Chunk(spec, mode == result.ModeFast)
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
