package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/tables"
)

// pdbKind: the additive pattern databases of one sliding partition,
// searched by IDA* with the reflected lookup, in both modes.
type pdbKind struct{ pt pdb.Partition }

func (k pdbKind) build(ctx context.Context, i int, progress Progress) ([]byte, []int64, error) {
	opt := pdb.Options{}
	if progress != nil {
		opt.Progress = func(_ int, placed, entries uint64) { progress(placed, entries) }
	}
	p, _, err := pdb.Build(ctx, k.pt.Rows, k.pt.Cols, k.pt.Patterns[i], opt)
	if err != nil {
		return nil, nil, err
	}
	return p.Data(), nil, nil
}

func (k pdbKind) buildMemory(i int, _ tables.Meta) uint64 {
	return pdb.BuildMemory(k.pt.Rows, k.pt.Cols, len(k.pt.Patterns[i]))
}

func (k pdbKind) serves(spec puzzle.Spec, _ result.Mode) bool {
	return spec == puzzle.Spec{Kind: puzzle.Sliding, Rows: k.pt.Rows, Cols: k.pt.Cols}
}

func (k pdbKind) open(dir string, s Set, private bool) (search.Algorithm, func() error, error) {
	return k.openSolver(dir, s, private)
}

func (k pdbKind) openSolver(dir string, s Set, private bool) (*pdb.Solver, func() error, error) {
	pdbs, closer, err := OpenPartition(dir, k.pt, false, private)
	if err != nil {
		return nil, nil, fmt.Errorf("table set %s: %w (build it with: %s)", s.Name, err, s.BuildCommand())
	}
	set, err := pdb.NewSet(pdbs...)
	if err == nil {
		var sv *pdb.Solver
		if sv, err = pdb.NewSolver(set, true); err == nil {
			return sv, closer, nil
		}
	}
	closer()
	return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
}

// pdbMeta is the header of the table of pattern tiles on a rows × cols
// board under name (e.g. "15-pdb-555-a"); Bytes and SHA256 are left for
// tables.Write.
func pdbMeta(name string, rows, cols int, tiles []uint8) tables.Meta {
	id := pdb.IdentOf(rows, cols, tiles)
	return tables.Meta{Name: name, Puzzle: id.Puzzle, Pattern: id.Pattern, Encoding: id.Encoding,
		Entries: id.Entries, Generator: id.Generator}
}

// OpenPartition maps every table of pt from dir (with verify, checking
// each payload's checksum: a full read) and returns the pattern databases
// over them and the closer that unmaps them. A missing, foreign or corrupt
// file is refused with the command that rebuilds it. With private the
// tables are copied into the process's own huge-page memory
// (tables.Table.Private): faster search, no sharing.
func OpenPartition(dir string, pt pdb.Partition, verify, private bool) ([]*pdb.PDB, func() error, error) {
	paths, metas := make([]string, len(pt.Patterns)), make([]tables.Meta, len(pt.Patterns))
	for i, tiles := range pt.Patterns {
		metas[i] = pdbMeta(pt.TableName(i), pt.Rows, pt.Cols, tiles)
		paths[i] = filepath.Join(dir, metas[i].FileName())
	}
	ts, closer, err := tables.OpenAll(paths, metas, verify, private)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*pdb.PDB, len(ts))
	for i, t := range ts {
		if out[i], err = pdb.FromData(pt.Rows, pt.Cols, pt.Patterns[i], t.Data); err != nil {
			closer()
			return nil, nil, err
		}
	}
	return out, closer, nil
}

// fullKind: the distance of every state of one board, answered by
// descent; a Loopover table serves the transposed board too.
type fullKind struct{ spec puzzle.Spec }

func (k fullKind) build(ctx context.Context, _ int, _ Progress) ([]byte, []int64, error) {
	t, err := fulltable.BuildContext(ctx, k.spec)
	if err != nil {
		return nil, nil, err
	}
	return t.Payload(), t.Counts, nil
}

// buildMemory: the nibble table is all the builder holds.
func (k fullKind) buildMemory(_ int, m tables.Meta) uint64 { return (m.Entries + 1) / 2 }

func (k fullKind) serves(spec puzzle.Spec, _ result.Mode) bool {
	return spec == k.spec || k.spec.Kind == puzzle.Loopover && spec == transposed(k.spec)
}

func (k fullKind) open(dir string, s Set, _ bool) (search.Algorithm, func() error, error) {
	t, closer, err := k.openTable(dir, s)
	if err != nil {
		return nil, nil, err
	}
	return transposingTable{t}, closer, nil
}

func (k fullKind) openTable(dir string, s Set) (*fulltable.Table, func() error, error) {
	f, err := tables.Open(s.Tables[0].Path(dir), s.Tables[0].Meta, false)
	if err != nil {
		return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
	}
	t, err := fulltable.FromPayload(k.spec, f.Data, f.Meta.Counts)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("table set %s: %w (rebuild it with: %s)", s.Name, err, s.BuildCommand())
	}
	return t, f.Close, nil
}

// OpenFullTable maps the whole-space distance table of spec from dir, when
// the catalogue has a set of one and it is built there: what generation
// draws states of an exact depth from. ok is false when there is none.
func OpenFullTable(dir string, spec puzzle.Spec) (t *fulltable.Table, closer func() error, ok bool, err error) {
	for _, s := range Sets() {
		if k, isFull := s.kind.(fullKind); isFull && k.spec == spec && s.Complete(dir) {
			t, closer, err := k.openTable(dir, s)
			return t, closer, err == nil, err
		}
	}
	return nil, nil, false, nil
}

// transposingTable answers a Loopover board of the table's shape directly
// and one of the transposed shape through loopover.Transpose.
type transposingTable struct{ t *fulltable.Table }

func (tt transposingTable) Answer(req search.Request) (search.Answer, error) {
	sp := req.State.Spec
	if sp == tt.t.Spec {
		return tt.t.Answer(req)
	}
	r := req
	r.State = puzzle.State{Spec: tt.t.Spec, Cells: loopover.Transpose(sp.Rows, sp.Cols, req.State.Cells)}
	a, err := tt.t.Answer(r)
	a.Moves = loopover.TransposeMoves(a.Moves)
	return a, err
}

func transposed(sp puzzle.Spec) puzzle.Spec {
	return puzzle.Spec{Kind: sp.Kind, Rows: sp.Cols, Cols: sp.Rows}
}

// twoPhaseKind: the tables of the 5×5 Loopover two-phase solver, which
// answers fast-mode requests: the phase-1 table of k pieces, and the
// optional phase-2 bounds.
type twoPhaseKind struct{ k int }

func (k twoPhaseKind) build(ctx context.Context, i int, progress Progress) ([]byte, []int64, error) {
	if i == 1 {
		return twophase.BuildPhase2(), nil, nil
	}
	if k.k == 7 {
		return twophase.BuildPhase7(ctx, progress)
	}
	return twophase.BuildPhase1(ctx, progress)
}

// buildMemory: the packed phase-1 table, 4 bits an entry (its payload is
// a view of it); the phase-2 tables and their payload copy, a byte each.
func (twoPhaseKind) buildMemory(i int, m tables.Meta) uint64 {
	if i == 1 {
		return 2 * m.Entries
	}
	return m.Entries / 2
}

func (twoPhaseKind) serves(spec puzzle.Spec, mode result.Mode) bool {
	return mode == result.ModeFast && spec == puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
}

// open maps the phase-1 table and, when present, the phase-2 one; without
// it the solver builds those bounds in memory (≈0.4 s of CPU). With
// private both are copied to the process's own huge pages, as the other
// kinds do: the seven-piece table's 1.2 GB miss the TLB at nearly every
// lookup where the shared mapping cannot have huge pages.
func (twoPhaseKind) open(dir string, s Set, private bool) (search.Algorithm, func() error, error) {
	paths, want := []string{s.Tables[0].Path(dir)}, []tables.Meta{s.Tables[0].Meta}
	if p2 := s.Tables[1]; p2.Present(dir) {
		paths, want = append(paths, p2.Path(dir)), append(want, p2.Meta)
	}
	files, closeAll, err := tables.OpenAll(paths, want, false, private)
	if err != nil {
		return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
	}
	var phase2 []byte
	if len(files) > 1 {
		phase2 = files[1].Data
	}
	sv, err := twophase.NewWith(files[0].Data, phase2)
	if err != nil {
		closeAll()
		// The header matched but the payload did not: the file is there,
		// so only a forced build replaces it.
		bad := s.Tables[0].Meta.Name
		if errors.Is(err, twophase.ErrPhase2Table) {
			bad = s.Tables[1].Meta.Name
		}
		return nil, nil, fmt.Errorf("table set %s: %w (rebuild it with: solverd tables build --force %s)", s.Name, err, bad)
	}
	return sv, closeAll, nil
}

// loopover44Kind: a pattern database of the 4×4 Loopover solver over the
// first k pieces. Without any, the solver builds the six-piece one in
// memory on its first state (about a second); mapped, the first answer
// costs no more than mapping it, and the seven- and eight-piece ones, too
// big to build at request time, search several times fewer nodes.
type loopover44Kind struct{ k int }

func (k loopover44Kind) build(context.Context, int, Progress) ([]byte, []int64, error) {
	return loopover.BuildPDB44(k.k)
}

// buildMemory: the direct index of the BFS (a byte per 16^k, a bit for
// eight pieces), its queue (4 bytes an entry) and the packed table.
func (k loopover44Kind) buildMemory(_ int, m tables.Meta) uint64 {
	direct := uint64(1) << (4 * k.k)
	if k.k == 8 {
		direct /= 8
	}
	return direct + 4*m.Entries + m.Entries/2
}

func (loopover44Kind) serves(spec puzzle.Spec, _ result.Mode) bool {
	return spec == puzzle.Spec{Kind: puzzle.Loopover, Rows: 4, Cols: 4}
}

func (loopover44Kind) open(dir string, s Set, private bool) (search.Algorithm, func() error, error) {
	f, err := tables.Open(s.Tables[0].Path(dir), s.Tables[0].Meta, false)
	if err != nil {
		return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
	}
	if private {
		if err := f.Private(); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
		}
	}
	sv, err := loopover.NewSolver44With(f.Data)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("table set %s: %w (rebuild it with: %s)", s.Name, err, s.BuildCommand())
	}
	return loopover.NewAlgorithm(sv), f.Close, nil
}

// wd55Kind: the walking-distance table of the 5×5 Loopover optimal
// search, one table for both axes (the board is square).
type wd55Kind struct{}

func (wd55Kind) build(ctx context.Context, _ int, progress Progress) ([]byte, []int64, error) {
	// The builder counts patterns (22 M); Build ends on the entries
	// (252 M): report in entries throughout, so the meter ends at 100 %.
	var scaled func(done, total uint64)
	if progress != nil {
		scaled = func(done, total uint64) { progress(done*loopover.WD55Entries/total, loopover.WD55Entries) }
	}
	return loopover.BuildWDTable(ctx, 5, 5, 0, scaled)
}

// buildMemory: the 4-bit work table and the payload.
func (wd55Kind) buildMemory(_ int, m tables.Meta) uint64 { return m.Entries/2 + m.Entries }

func (wd55Kind) serves(spec puzzle.Spec, mode result.Mode) bool {
	return mode == result.ModeOptimal && spec == puzzle.Spec{Kind: puzzle.Loopover, Rows: 5, Cols: 5}
}

// open honours private: the search reads the 252 MB table at random, and
// with 4 KB pages nearly every read misses the TLB.
func (wd55Kind) open(dir string, s Set, private bool) (search.Algorithm, func() error, error) {
	fs, closer, err := tables.OpenAll([]string{s.Tables[0].Path(dir)}, []tables.Meta{s.Tables[0].Meta}, false, private)
	if err != nil {
		return nil, nil, fmt.Errorf("table set %s: %w", s.Name, err)
	}
	f := fs[0]
	wd, err := loopover.NewWDFrom(5, 5, f.Data)
	if err == nil {
		var sv *loopover.Solver
		if sv, err = loopover.NewWDSolverWith(5, 5, wd, wd); err == nil {
			return loopover.NewAlgorithm(sv), closer, nil
		}
	}
	closer()
	return nil, nil, fmt.Errorf("table set %s: %w (rebuild it with: %s)", s.Name, err, s.BuildCommand())
}
