package pdb

import (
	"context"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
)

// Kind is the table set of one partition (search.TableKind): its
// additive pattern databases, built here and searched by IDA* with the
// reflected lookup, in both modes.
type Kind struct{ Partition Partition }

var _ search.TableKind = Kind{}

// Tables is the identity of each pattern's table.
func (k Kind) Tables() []search.Table {
	pt := k.Partition
	out := make([]search.Table, len(pt.Patterns))
	for i, tiles := range pt.Patterns {
		out[i] = identOf(pt.Rows, pt.Cols, tiles)
		out[i].Name, out[i].BuildMemory = pt.TableName(i), BuildMemory(pt.Rows, pt.Cols, len(tiles))
	}
	return out
}

// Build builds pattern i's table.
func (k Kind) Build(ctx context.Context, i int, progress func(done, total uint64)) ([]byte, []int64, error) {
	opt := Options{}
	if progress != nil {
		opt.Progress = func(_ int, placed, entries uint64) { progress(placed, entries) }
	}
	p, _, err := Build(ctx, k.Partition.Rows, k.Partition.Cols, k.Partition.Patterns[i], opt)
	if err != nil {
		return nil, nil, err
	}
	return p.Data(), nil, nil
}

// Serves: the partition's board, in both modes.
func (k Kind) Serves(spec puzzle.Spec, _ result.Mode) bool {
	return spec == puzzle.Spec{Kind: puzzle.Sliding, Rows: k.Partition.Rows, Cols: k.Partition.Cols}
}

// Serve is the solver over the mapped tables.
func (k Kind) Serve(payloads [][]byte, _ [][]int64) (search.Algorithm, error) {
	return k.Solver(payloads)
}

// Solver is Serve typed for the benchmarks that drive the search directly.
func (k Kind) Solver(payloads [][]byte) (*Solver, error) {
	pt := k.Partition
	pdbs := make([]*PDB, len(payloads))
	for i, data := range payloads {
		p, err := FromData(pt.Rows, pt.Cols, pt.Patterns[i], data)
		if err != nil {
			return nil, &search.BadPayloadError{Index: i, Err: err}
		}
		pdbs[i] = p
	}
	set, err := NewSet(pdbs...)
	if err != nil {
		return nil, err
	}
	return NewSolver(set, true)
}
