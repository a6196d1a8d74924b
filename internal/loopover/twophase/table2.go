package twophase

import (
	"errors"
	"fmt"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// The phase-2 table file holds the phase-2 bounds that New would
// otherwise compute by BFS at the first request: the arm
// pattern database, then the phase-2 walking distance, one byte per
// entry, laid out as in memory so the solver reads the mapping directly.
const (
	// phase2Entries is the number of one-byte entries of the file.
	phase2Entries = n3*n3 + wd2Entries
	// phase2Encoding is its entry encoding: one distance per byte.
	phase2Encoding = "u8"
	// phase2Pattern names its contents, for the file header.
	phase2Pattern = "arm DEIJNO, phase-2 wd"
	// phase2Generator versions BuildPhase2: bump it when an index or the
	// entries change meaning.
	phase2Generator = 1
)

// BuildPhase2 computes the phase-2 table file's payload.
func BuildPhase2() []byte {
	out := make([]byte, 0, phase2Entries)
	out = append(out, newPDB2().dist...)
	return append(out, newWD2().dist...)
}

// ErrPhase2Table marks a refused phase-2 payload (with puzzle.ErrMalformed),
// so that callers name the phase-2 file, not the phase-1 one, to rebuild.
var ErrPhase2Table = errors.New("bad phase-2 table")

// phase2From splits a phase-2 payload into its two tables, refusing one
// of the wrong size or whose goal is not at distance 0 (a file of another
// layout that a stale header let through).
func phase2From(payload []byte) (*pdb2, *wd2, error) {
	if len(payload) != phase2Entries {
		return nil, nil, fmt.Errorf("loopover 5x5 two-phase: phase-2 table has %d bytes, want %d: %w: %w", len(payload), phase2Entries, ErrPhase2Table, puzzle.ErrMalformed)
	}
	arm := &pdb2{dist: payload[: n3*n3 : n3*n3]}
	wd := wd2From(payload[n3*n3:])
	g := goalBoard
	if arm.h(&g, &identity, &identity) != 0 || wd.h(&g, &wd2Views[0]) != 0 || wd.h(&g, &wd2Views[1]) != 0 {
		return nil, nil, fmt.Errorf("loopover 5x5 two-phase: phase-2 table does not hold 0 at the goal: %w: %w", ErrPhase2Table, puzzle.ErrMalformed)
	}
	return arm, wd, nil
}
