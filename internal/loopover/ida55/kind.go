package ida55

import (
	"context"
	"fmt"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// Kind is the walking-distance table of the Side×Side optimal search
// (search.TableKind), one table for both axes of the square board. The
// catalogue lists the 5×5 one (252 MB: 126^4 indices, 22 M patterns);
// without it that search uses the enhanced Manhattan distance. The 5×5
// set also reads, where it is built, the two-phase solver's seven-piece
// phase-1 table (loopover-5x5-p7, optional here): the search maxes the
// walking distance with it (NewWithPattern).
type Kind struct{ Side int }

var _ search.TableKind = Kind{}

// Tables is the walking-distance table (its builder holds the 4-bit work
// table and the payload) and, for 5×5, the optional seven-piece table.
func (k Kind) Tables() []search.Table {
	entries := uint64(loopover.WDTableEntries(k.Side, k.Side))
	out := []search.Table{{Name: fmt.Sprintf("loopover-%dx%d-wd", k.Side, k.Side), Puzzle: k.spec().String(),
		Pattern: "walking distance", Encoding: "u8", Entries: entries, Generator: loopover.WDGenerator,
		BuildMemory: entries/2 + entries}}
	if k.Side == side {
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

func (k Kind) spec() puzzle.Spec {
	return puzzle.Spec{Kind: puzzle.Loopover, Rows: k.Side, Cols: k.Side}
}

// Build runs loopover.BuildWDTable, which counts patterns; the table ends on its
// entries, so progress is reported in entries throughout and the meter
// ends at 100 %.
func (k Kind) Build(ctx context.Context, i int, progress func(done, total uint64)) ([]byte, []int64, error) {
	if i == 1 {
		return p7Kind.Build(ctx, 0, progress)
	}
	entries := uint64(loopover.WDTableEntries(k.Side, k.Side))
	var scaled func(done, total uint64)
	if progress != nil {
		scaled = func(done, total uint64) { progress(done*entries/total, entries) }
	}
	return loopover.BuildWDTable(ctx, k.Side, k.Side, 0, -1, scaled)
}

// Serves the requests of the board its family routes to the optimal
// search (policy.RouteSearch: 5×5 optimal mode; fast mode is the
// two-phase solver's).
func (k Kind) Serves(spec puzzle.Spec, mode result.Mode) bool {
	return spec == k.spec() && policy.Of(spec, mode == result.ModeFast) == policy.RouteSearch
}

// Serve is the walking-distance search over the mapped table.
func (k Kind) Serve(payloads [][]byte, _ [][]int64) (search.Algorithm, error) {
	wd, err := loopover.NewWDFrom(k.Side, k.Side, payloads[0])
	if err != nil {
		return nil, &search.BadPayloadError{Index: 0, Err: err}
	}
	if len(payloads) > 1 && payloads[1] != nil {
		sv, err := NewWithPattern(wd, payloads[1], pattern55Slots)
		if err != nil {
			return nil, &search.BadPayloadError{Index: 1, Err: err}
		}
		return loopover.NewAlgorithm(sv), nil
	}
	if k.Side != side {
		// Another square (the conformance test's 4×4 stand-in): the
		// general search over the same kind of table.
		sv, err := loopover.NewWDSolverWith(k.Side, k.Side, wd, wd)
		if err != nil {
			return nil, err
		}
		return loopover.NewAlgorithm(sv), nil
	}
	sv, err := New(wd)
	if err != nil {
		return nil, err
	}
	return loopover.NewAlgorithm(sv), nil
}
