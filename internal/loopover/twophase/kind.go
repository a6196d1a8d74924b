package twophase

import (
	"context"
	"errors"
	"runtime"

	"github.com/tessera-solver/tessera/internal/nibble"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// Kind is the table set of the two-phase solver (search.TableKind): the
// phase-1 pattern database of Pieces (6 or 7) pieces and, optional so
// that a directory holding only that one stays complete, the phase-2
// bounds, which the solver otherwise builds at its first request, and the
// eight-piece phase-2 table, which it otherwise goes without.
type Kind struct {
	Pieces int
	// Levels, when positive, caps the phase-1 BFS after that many levels
	// (entries not reached hold Levels+1, still a bound): the conformance
	// test's cheap stand-in with the real identity and layout.
	Levels int
}

var _ search.TableKind = Kind{}

var spec55 = puzzle.Spec{Kind: puzzle.Loopover, Rows: side, Cols: side}

// Name is the set's name, which its phase-1 table carries.
func (k Kind) Name() string {
	if k.Pieces == 7 {
		return "loopover-5x5-p7"
	}
	return "loopover-5x5-p1"
}

// Tables: the phase-1 table (its packed BFS table is all its builder
// holds: the payload is a view of it), the phase-2 one (its tables
// and the payload copy, a byte each) and the eight-piece phase-2 table
// (its packed table, of which the payload is a view).
func (k Kind) Tables() []search.Table {
	p1 := search.Table{Name: k.Name(), Puzzle: spec55.String(), Pattern: phase1Pattern, Encoding: phase1Encoding,
		Entries: phase1Entries, Generator: phase1Generator}
	if k.Pieces == 7 {
		p1.Pattern, p1.Entries, p1.Generator = phase7Pattern, phase7Entries, phase7Generator
	}
	p1.BuildMemory = p1.Entries / 2
	p2 := search.Table{Name: "loopover-5x5-p2", Puzzle: spec55.String(), Pattern: phase2Pattern, Encoding: phase2Encoding,
		Entries: phase2Entries, Generator: phase2Generator, Optional: true, BuildMemory: 2 * phase2Entries}
	a8 := search.Table{Name: "loopover-5x5-arm8", Puzzle: spec55.String(), Pattern: arm8Pattern, Encoding: arm8Encoding,
		Entries: arm8Entries, Generator: arm8Generator, Optional: true, BuildMemory: (arm8Entries + 1) / 2}
	return []search.Table{p1, p2, a8}
}

// Build fills the phase-1 table (i = 0) or the phase-2 one.
func (k Kind) Build(ctx context.Context, i int, progress func(done, total uint64)) ([]byte, []int64, error) {
	if i == 1 {
		return BuildPhase2(), nil, nil
	}
	if i == 2 {
		depth := arm8Depth
		if k.Levels > 0 {
			depth = min(depth, k.Levels)
		}
		return buildArm8(ctx, depth, runtime.GOMAXPROCS(0), progress)
	}
	if k.Levels <= 0 {
		return buildPhase(ctx, k.Pieces, progress)
	}
	packed, counts, err := buildPDB(ctx, k.Pieces, k.Levels, runtime.GOMAXPROCS(0), progress)
	if err != nil {
		return nil, nil, err
	}
	return nibble.Payload(packed, patSize(k.Pieces)), counts, nil
}

// Serves the 5×5 requests its family routes to the two-phase solver
// (policy.RouteTwoPhase: fast mode).
func (Kind) Serves(spec puzzle.Spec, mode result.Mode) bool {
	return spec == spec55 && policy.Of(spec, mode == result.ModeFast) == policy.RouteTwoPhase
}

// Serve is the solver over the phase-1 table and, when present, the
// phase-2 one.
func (Kind) Serve(payloads [][]byte, _ [][]int64) (search.Algorithm, error) {
	var a8 []byte
	if len(payloads) > 2 {
		a8 = payloads[2]
	}
	sv, err := NewTables(payloads[0], payloads[1], a8)
	if err != nil {
		bad := 0
		if errors.Is(err, ErrPhase2Table) {
			bad = 1
		}
		if errors.Is(err, ErrArm8Table) {
			bad = 2
		}
		return nil, &search.BadPayloadError{Index: bad, Err: err}
	}
	return sv, nil
}
