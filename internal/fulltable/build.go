package fulltable

import (
	"context"
	"errors"
	"fmt"

	"github.com/tessera-solver/tessera/internal/bfs"
)

// build fills t.Packed and t.Counts with internal/bfs's builder: entries
// are distances mod 15 (Wrap), so boards deeper than 14 moves still fit.
func (t *Table) build(ctx context.Context) error {
	s := t.sp
	tb, err := bfs.Build(ctx, bfs.Spec{Size: s.size, Goals: []uint64{s.goalIndex}, MaxDepth: -1, Wrap: true},
		func() bfs.Walker { return &walker{s: s} })
	if errors.Is(err, bfs.ErrIncomplete) {
		// The index is exact, so a gap means the move generator or the
		// parity rule is wrong: refuse the table rather than hand it out.
		return fmt.Errorf("%w: move generation or indexing bug", err)
	}
	if err != nil {
		return err
	}
	t.Packed, t.Counts = tb.Packed, tb.Counts
	return nil
}

// walker is one build worker's scratch space, reused for every state.
type walker struct {
	s  *space
	b  board
	nb [maxDegree]uint64
}

func (w *walker) Expand(idx uint64, lv *bfs.Level) {
	w.s.unrank(idx, &w.b)
	k := w.s.neighbours(&w.b, idx, &w.nb)
	for _, n := range w.nb[:k] {
		lv.Reach(n)
	}
}

func (w *walker) Touches(idx uint64, lv *bfs.Level) bool {
	w.s.unrank(idx, &w.b)
	return w.s.touches(&w.b, idx, lv)
}
