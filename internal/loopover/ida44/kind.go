package ida44

import (
	"context"
	"fmt"

	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

var spec44 = puzzle.Spec{Kind: puzzle.Loopover, Rows: 4, Cols: 4}

// Kind is a pattern database of the 4×4 solver over its first
// Pieces pieces (search.TableKind). Without any, the solver builds the
// six-piece one in memory on its first state (about a second); mapped,
// the first answer costs no more than mapping it, and the seven- and
// eight-piece ones, too big to build at request time, search several
// times fewer nodes.
type Kind struct{ Pieces int }

var _ search.TableKind = Kind{}

// Tables is the one table. Its builder (internal/bfs over the ranks)
// holds only the packed table.
func (k Kind) Tables() []search.Table {
	entries := uint64(placements(k.Pieces))
	return []search.Table{{Name: fmt.Sprintf("loopover-4x4-pdb%d", k.Pieces), Puzzle: spec44.String(),
		Pattern: fmt.Sprintf("pieces 1-%d", k.Pieces), Encoding: "u4", Entries: entries, Generator: pdb44Generator,
		BuildMemory: (entries + 1) / 2}}
}

// Build runs buildPDB44Payload, stopping when ctx ends, telling progress the
// placements labelled.
func (k Kind) Build(ctx context.Context, _ int, progress func(done, total uint64)) ([]byte, []int64, error) {
	return buildPDB44Payload(ctx, k.Pieces, progress)
}

// Serves the 4×4 requests its family routes to the optimal search
// (policy.RouteSearch: both modes).
func (Kind) Serves(spec puzzle.Spec, mode result.Mode) bool {
	return spec == spec44 && policy.Of(spec, mode == result.ModeFast) == policy.RouteSearch
}

// Serve is the 4×4 solver over the mapped table.
func (Kind) Serve(payloads [][]byte, _ [][]int64) (search.Algorithm, error) {
	sv, err := NewWith(payloads[0])
	if err != nil {
		return nil, &search.BadPayloadError{Index: 0, Err: err}
	}
	return loopover.NewAlgorithm(sv), nil
}
