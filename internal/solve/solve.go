// Package solve is the single entry point for solving: it picks the
// algorithm per puzzle and mode, replays every answer against the input
// before returning it, and fills in the Result of the design contract.
package solve

import (
	"context"
	"time"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// Mode selects between proved-optimal and fast (possibly suboptimal) solving.
type Mode string

const (
	ModeOptimal Mode = "optimal"
	ModeFast    Mode = "fast"
)

// Options bound one solve. Zero values mean "no limit".
type Options struct {
	Mode     Mode
	MaxNodes int64
	Timeout  time.Duration
}

// SolveText parses text as a state of spec and solves it. Input errors
// become a Result with status invalid or unsolvable and the reason in Error;
// it never panics on bad input.
func SolveText(ctx context.Context, spec puzzle.Spec, text string, opt Options) Result {
	return Result{Puzzle: spec.String(), State: text, Status: StatusFailed, Error: "solver not implemented yet"}
}
