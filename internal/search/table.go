package search

import (
	"context"
	"fmt"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
)

// Table is one precomputed table as the package of its solver describes
// it: the identity its file header carries (Name to Generator), whether
// its set is complete without it, and what its builder holds. The file
// format, checksums and mapping belong to package tables; the core only
// fills and reads payload bytes.
type Table struct {
	Name      string // e.g. "15-pdb-78-a": the file's name, what `solverd tables build` takes
	Puzzle    string // canonical spec
	Pattern   string // which pieces
	Encoding  string // "u8" or "u4"
	Entries   uint64
	Generator int // version of the builder: bump it when the payload changes meaning
	// Optional tables only spare the solver work it can do in memory.
	Optional bool
	// BuildMemory is the memory the builder holds (bytes).
	BuildMemory uint64
}

// TableKind is a set of tables described next to its solver: identity,
// build, and serve from the mapped payloads. One generic open in
// tables/catalog checks headers, maps (shared or private) and hands the
// bytes to Serve, so no kind opens files its own way.
type TableKind interface {
	// Tables is the identity of every table of the set, in order.
	Tables() []Table
	// Build fills the payload of table i and, for tables whose header
	// carries one, returns its depth histogram. progress may be nil.
	Build(ctx context.Context, i int, progress func(done, total uint64)) (payload []byte, counts []int64, err error)
	// Serves reports whether the set answers spec in mode.
	Serves(spec puzzle.Spec, mode result.Mode) bool
	// Serve returns the solver over the payloads (one per table, nil for
	// an optional table that is not there) and the header histograms. It
	// keeps the slices: they are mapped memory, valid until the caller
	// unmaps them. A payload it refuses is a *BadPayloadError.
	Serve(payloads [][]byte, counts [][]int64) (Algorithm, error)
}

// BadPayloadError is a payload whose header matched but whose contents a
// kind refuses: only a forced build of table Index replaces the file.
type BadPayloadError struct {
	Index int
	Err   error
}

func (e *BadPayloadError) Error() string { return fmt.Sprintf("table %d: %v", e.Index, e.Err) }
func (e *BadPayloadError) Unwrap() error { return e.Err }
