// Package result is the stored and wire vocabulary of a solve: the Result
// every solver answer becomes, its Status and the solving Mode. It is a
// leaf: the queue, the store, the results writer and the HTTP API share it
// without linking any solver.
package result

import (
	"errors"
	"fmt"
	"strings"
)

// Status is the outcome of one solve. The strings are stored in PostgreSQL
// and printed by the CLI, so they are part of the contract.
type Status string

const (
	StatusSolved         Status = "solved"
	StatusBudgetExceeded Status = "budget_exceeded"
	StatusInvalid        Status = "invalid"
	StatusUnsolvable     Status = "unsolvable"
	StatusFailed         Status = "failed"
	// StatusCancelled: its batch was cancelled (`results cancel`) before
	// or while it was solved; the row keeps the nodes spent and the bound
	// proved so far.
	StatusCancelled Status = "cancelled"
)

// statuses is the one list of statuses, in the order reports show them.
var statuses = [...]Status{StatusSolved, StatusBudgetExceeded, StatusInvalid, StatusUnsolvable, StatusFailed, StatusCancelled}

// Statuses is every status, in the order reports show them.
func Statuses() []Status { return statuses[:] }

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	for _, t := range statuses {
		if s == t {
			return true
		}
	}
	return false
}

// StatusNames is every status, comma-separated in the order reports show
// them: what an error about an unknown status offers instead.
func StatusNames() string {
	names := make([]string, len(statuses))
	for i, s := range statuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// Counts tallies results by status.
type Counts [len(statuses)]int64

// Add counts one result of status s; an unknown status is not counted.
func (c *Counts) Add(s Status, n int64) {
	for i, t := range statuses {
		if s == t {
			c[i] += n
			return
		}
	}
}

// Mode selects between proved-optimal and fast (possibly suboptimal) solving.
type Mode string

const (
	ModeOptimal Mode = "optimal"
	ModeFast    Mode = "fast"
)

// ErrBadMode is returned by ParseMode for anything but the two modes.
var ErrBadMode = errors.New("unknown mode")

// ParseMode reads "optimal" or "fast" ("" means optimal).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeOptimal, "":
		return ModeOptimal, nil
	case ModeFast:
		return ModeFast, nil
	}
	return "", fmt.Errorf("mode %q: want optimal or fast: %w", s, ErrBadMode)
}

// Result is what every solver returns, after its moves have been replayed
// against the input. Field names and JSON keys follow the design contract.
type Result struct {
	Puzzle     string  `json:"puzzle"`
	State      string  `json:"state"`
	Status     Status  `json:"status"`
	Moves      string  `json:"moves"`
	Length     int     `json:"length"`
	Optimal    bool    `json:"optimal"`
	LowerBound int     `json:"lower_bound"`
	Nodes      int64   `json:"nodes"`
	ElapsedMS  float64 `json:"elapsed_ms"`
	Solver     string  `json:"solver"`
	Error      string  `json:"error,omitempty"`
	// Attempts is the delivery of the job message that produced the row
	// (1: the first; 0: not known, stored as 1).
	Attempts int `json:"attempts,omitempty"`
}
