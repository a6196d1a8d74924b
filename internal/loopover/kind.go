package loopover

import (
	"context"
	"fmt"

	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

var spec44 = puzzle.Spec{Kind: puzzle.Loopover, Rows: 4, Cols: 4}

// PDB44Kind is a pattern database of the 4×4 solver over its first
// Pieces pieces (search.TableKind). Without any, the solver builds the
// six-piece one in memory on its first state (about a second); mapped,
// the first answer costs no more than mapping it, and the seven- and
// eight-piece ones, too big to build at request time, search several
// times fewer nodes.
type PDB44Kind struct{ Pieces int }

var _ search.TableKind = PDB44Kind{}

// Tables is the one table. Its builder (internal/bfs over the ranks)
// holds only the packed table.
func (k PDB44Kind) Tables() []search.Table {
	entries := uint64(placements(k.Pieces))
	return []search.Table{{Name: fmt.Sprintf("loopover-4x4-pdb%d", k.Pieces), Puzzle: spec44.String(),
		Pattern: fmt.Sprintf("pieces 1-%d", k.Pieces), Encoding: "u4", Entries: entries, Generator: pdb44Generator,
		BuildMemory: (entries + 1) / 2}}
}

// Build runs buildPDB44Payload, stopping when ctx ends, telling progress the
// placements labelled.
func (k PDB44Kind) Build(ctx context.Context, _ int, progress func(done, total uint64)) ([]byte, []int64, error) {
	return buildPDB44Payload(ctx, k.Pieces, progress)
}

// Serves the 4×4 requests its family routes to the optimal search
// (policy.RouteSearch: both modes).
func (PDB44Kind) Serves(spec puzzle.Spec, mode result.Mode) bool {
	return spec == spec44 && policy.Of(spec, mode == result.ModeFast) == policy.RouteSearch
}

// Serve is the 4×4 solver over the mapped table.
func (PDB44Kind) Serve(payloads [][]byte, _ [][]int64) (search.Algorithm, error) {
	sv, err := NewSolver44With(payloads[0])
	if err != nil {
		return nil, &search.BadPayloadError{Index: 0, Err: err}
	}
	return NewAlgorithm(sv), nil
}

// WDKind is the walking-distance table of the Side×Side optimal search
// (search.TableKind), one table for both axes of the square board. The
// catalogue lists the 5×5 one (252 MB: 126^4 indices, 22 M patterns);
// without it that search uses the enhanced Manhattan distance. The 5×5
// set also reads, where it is built, the two-phase solver's seven-piece
// phase-1 table (loopover-5x5-p7, optional here): the search maxes the
// walking distance with it (NewWD55Pattern).
type WDKind struct{ Side int }

var _ search.TableKind = WDKind{}

// Tables is the walking-distance table (its builder holds the 4-bit work
// table and the payload) and, for 5×5, the optional seven-piece table.
func (k WDKind) Tables() []search.Table {
	entries := uint64(WDTableEntries(k.Side, k.Side))
	out := []search.Table{{Name: fmt.Sprintf("loopover-%dx%d-wd", k.Side, k.Side), Puzzle: k.spec().String(),
		Pattern: "walking distance", Encoding: "u8", Entries: entries, Generator: wdGenerator,
		BuildMemory: entries/2 + entries}}
	if k.Side == side55 {
		p7 := p7Kind.Tables()[0]
		p7.Optional = true
		out = append(out, p7)
	}
	return out
}

// p7Kind is the two-phase table set whose first table the 5×5 search reads.
var p7Kind = twophase.Kind{Pieces: 7}

// pattern55Slots is how many symmetries the 5×5 search reads the
// seven-piece table through (docs/BENCHMARKS.md, "The seven-piece table in
// the optimal search").
const pattern55Slots = 50

func (k WDKind) spec() puzzle.Spec {
	return puzzle.Spec{Kind: puzzle.Loopover, Rows: k.Side, Cols: k.Side}
}

// Build runs BuildWDTable, which counts patterns; the table ends on its
// entries, so progress is reported in entries throughout and the meter
// ends at 100 %.
func (k WDKind) Build(ctx context.Context, i int, progress func(done, total uint64)) ([]byte, []int64, error) {
	if i == 1 {
		return p7Kind.Build(ctx, 0, progress)
	}
	entries := uint64(WDTableEntries(k.Side, k.Side))
	var scaled func(done, total uint64)
	if progress != nil {
		scaled = func(done, total uint64) { progress(done*entries/total, entries) }
	}
	return BuildWDTable(ctx, k.Side, k.Side, 0, scaled)
}

// Serves the requests of the board its family routes to the optimal
// search (policy.RouteSearch: 5×5 optimal mode; fast mode is the
// two-phase solver's).
func (k WDKind) Serves(spec puzzle.Spec, mode result.Mode) bool {
	return spec == k.spec() && policy.Of(spec, mode == result.ModeFast) == policy.RouteSearch
}

// Serve is the walking-distance search over the mapped table.
func (k WDKind) Serve(payloads [][]byte, _ [][]int64) (search.Algorithm, error) {
	wd, err := NewWDFrom(k.Side, k.Side, payloads[0])
	if err != nil {
		return nil, &search.BadPayloadError{Index: 0, Err: err}
	}
	if len(payloads) > 1 && payloads[1] != nil {
		sv, err := NewWD55Pattern(wd, payloads[1], pattern55Slots)
		if err != nil {
			return nil, &search.BadPayloadError{Index: 1, Err: err}
		}
		return NewAlgorithm(sv), nil
	}
	sv, err := NewWDSolverWith(k.Side, k.Side, wd, wd)
	if err != nil {
		return nil, err
	}
	return NewAlgorithm(sv), nil
}
