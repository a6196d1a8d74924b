package fulltable

import (
	"context"
	"fmt"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// generator versions the table file of Kind: bump it when the index or
// the entries change meaning.
const generator = 1

// Kind is the one-table set of the distance of every state of one board
// (search.TableKind), named like "loopover-3x4-bfs" and answered by
// descent; a Loopover table serves the transposed board too.
type Kind struct{ Spec puzzle.Spec }

var _ search.TableKind = Kind{}

// Name is the set's and its table's name.
func (k Kind) Name() string {
	return fmt.Sprintf("%s-%dx%d-bfs", k.Spec.Kind, k.Spec.Rows, k.Spec.Cols)
}

// Tables is the one table; the catalogue lists supported boards only.
func (k Kind) Tables() []search.Table {
	entries, err := States(k.Spec)
	if err != nil {
		panic(err)
	}
	// The nibble table is all the builder holds.
	return []search.Table{{Name: k.Name(), Puzzle: k.Spec.String(), Pattern: "all", Encoding: "u4", Entries: entries,
		Generator: generator, Optional: false, BuildMemory: (entries + 1) / 2}}
}

// Build runs the BFS; the header carries its depth histogram.
func (k Kind) Build(ctx context.Context, _ int, _ func(done, total uint64)) ([]byte, []int64, error) {
	t, err := BuildContext(ctx, k.Spec)
	if err != nil {
		return nil, nil, err
	}
	return t.Payload(), t.Counts, nil
}

// Serves the board and, for Loopover, its transpose, in both modes.
func (k Kind) Serves(spec puzzle.Spec, _ result.Mode) bool {
	return spec == k.Spec || k.Spec.Kind == puzzle.Loopover && spec == puzzle.Spec{Kind: spec.Kind, Rows: k.Spec.Cols, Cols: k.Spec.Rows}
}

// Serve answers from the mapped table, transposing where it must.
func (k Kind) Serve(payloads [][]byte, counts [][]int64) (search.Algorithm, error) {
	t, err := k.Table(payloads[0], counts[0])
	if err != nil {
		return nil, err
	}
	return transposing{t}, nil
}

// Table is the table over a mapped payload: what generation draws states
// of an exact depth from.
func (k Kind) Table(payload []byte, counts []int64) (*Table, error) {
	t, err := FromPayload(k.Spec, payload, counts)
	if err != nil {
		return nil, &search.BadPayloadError{Index: 0, Err: err}
	}
	return t, nil
}

// transposing answers a Loopover board of the table's shape directly and
// one of the transposed shape through Transpose (Loopover only).
type transposing struct{ t *Table }

func (tt transposing) Answer(req search.Request) (search.Answer, error) {
	sp := req.State.Spec
	if sp == tt.t.Spec {
		return tt.t.Answer(req)
	}
	r := req
	r.State = puzzle.State{Spec: tt.t.Spec, Cells: Transpose(sp.Rows, sp.Cols, req.State.Cells)}
	a, err := tt.t.Answer(r)
	a.Moves = TransposeMoves(a.Moves)
	return a, err
}
