package job

import (
	"errors"
	"fmt"
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
