package solve

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/tables/catalog"
)

// A Live solver swapped to a table set serves the next solve with it; a
// solve that started before the swap keeps the old set mapped until it
// returns, and only then is the old set unmapped.
func TestLiveSwapKeepsRunningSolvesMapped(t *testing.T) {
	dir := t.TempDir()
	sp := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	text := "1 2 3 4/5 6 7 8/9 10 11 12/13 14 0 15"
	none, err := Tables(dir, "auto", false)
	if err != nil {
		t.Fatal(err)
	}
	v := NewLive(none)
	if r := v.SolveText(context.Background(), sp, text, Options{}); r.Status != result.StatusSolved || strings.HasPrefix(r.Solver, "ida*(pdb") {
		t.Fatalf("without tables: %+v", r)
	}
	set, _ := catalog.LookupSet("15-pdb-555")
	for _, tb := range set.Tables {
		if _, _, err := catalog.Build(context.Background(), dir, tb, nil); err != nil {
			t.Fatal(err)
		}
	}
	first, err := Tables(dir, "auto", false)
	if err != nil {
		t.Fatal(err)
	}
	v.Swap(first)
	if v.Loaded() != first || first.Roles["sliding:4x4 optimal"] != "15-pdb-555" {
		t.Fatalf("after swap: %+v", v.Loaded())
	}
	if r := v.SolveText(context.Background(), sp, text, Options{}); r.Status != result.StatusSolved || !strings.HasPrefix(r.Solver, "ida*(pdb") {
		t.Fatalf("after swap: %+v", r)
	}
	if mapped(first) != 1 {
		t.Fatalf("the swapped-in set is not mapped after serving a solve: %d", mapped(first))
	}

	// A solve in flight on first (held as a running solve holds it) keeps
	// it mapped across a swap.
	g := v.acquire()
	second, err := Tables(dir, "auto", false)
	if err != nil {
		t.Fatal(err)
	}
	v.Swap(second)
	if mapped(first) != 1 {
		t.Fatal("a swap unmapped tables a running solve uses")
	}
	if r := g.solver.SolveText(context.Background(), sp, text, Options{}); r.Status != result.StatusSolved {
		t.Fatalf("running solve on the replaced set: %+v", r)
	}
	v.release(g)
	v.closing.Wait() // unmapping runs in the background
	if mapped(first) != 0 {
		t.Fatal("the replaced set stayed mapped after its last solve returned")
	}
	if r := v.SolveText(context.Background(), sp, text, Options{}); r.Status != result.StatusSolved || mapped(second) != 1 {
		t.Fatalf("on the new set: %+v (%d mapped)", r, mapped(second))
	}
	if err := v.Close(); err != nil || mapped(second) != 0 {
		t.Fatalf("Close: %v, %d still mapped", err, mapped(second))
	}
}

func mapped(l *Loaded) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.closers)
}

// Choose passes over an "auto" set its usable check refuses (the puzzle
// falls back to the next set, here none), but a named set that fails it
// is an error, as at start.
func TestChooseSkipsRefusedAutoSets(t *testing.T) {
	dir := t.TempDir()
	set, _ := catalog.LookupSet("15-pdb-555")
	for _, tb := range set.Tables {
		if _, _, err := catalog.Build(context.Background(), dir, tb, nil); err != nil {
			t.Fatal(err)
		}
	}
	refuse := func(s catalog.Set) error {
		if s.Name == set.Name {
			return errors.New("refused")
		}
		return nil
	}
	l, err := Choose(dir, "auto", false, refuse)
	if err != nil || len(l.Sets) != 0 || l.Roles["sliding:4x4 optimal"] != "" {
		t.Fatalf("auto with the set refused: %+v, %v", l, err)
	}
	if l, err = Choose(dir, "auto", false, func(catalog.Set) error { return nil }); err != nil || l.Roles["sliding:4x4 optimal"] != set.Name {
		t.Fatalf("auto with the set accepted: %+v, %v", l, err)
	}
	if _, err := Choose(dir, set.Name, false, refuse); err == nil {
		t.Fatal("a named set that fails its check was chosen")
	}
}

// Solves running on every side of many swaps all succeed (a search on
// unmapped tables would fault), and every replaced set ends unmapped.
func TestLiveSwapsUnderLoad(t *testing.T) {
	dir := t.TempDir()
	set, _ := catalog.LookupSet("15-pdb-555")
	for _, tb := range set.Tables {
		if _, _, err := catalog.Build(context.Background(), dir, tb, nil); err != nil {
			t.Fatal(err)
		}
	}
	load := func() *Loaded {
		l, err := Tables(dir, "auto", false)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	sp := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	text := "5 1 2 3/9 6 7 4/13 10 11 8/14 15 12 0"
	all := []*Loaded{load()}
	v := NewLive(all[0])
	stop := make(chan struct{})
	errs := make(chan string, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-stop:
					errs <- ""
					return
				default:
				}
				if r := v.SolveText(context.Background(), sp, text, Options{}); r.Status != result.StatusSolved || !strings.HasPrefix(r.Solver, "ida*(pdb") {
					errs <- string(r.Status) + " " + r.Solver + " " + r.Error
					return
				}
			}
		}()
	}
	for range 30 {
		l := load()
		all = append(all, l)
		v.Swap(l)
		time.Sleep(2 * time.Millisecond)
	}
	close(stop)
	for range 4 {
		if e := <-errs; e != "" {
			t.Fatalf("a solve across swaps: %s", e)
		}
	}
	v.closing.Wait()
	for i, l := range all[:len(all)-1] {
		if n := mapped(l); n != 0 {
			t.Fatalf("replaced set %d still has %d tables mapped", i, n)
		}
	}
	if err := v.Close(); err != nil || mapped(all[len(all)-1]) != 0 {
		t.Fatalf("Close: %v", err)
	}
}
