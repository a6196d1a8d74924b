package bfs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tessera-solver/tessera/internal/nibble"
)

// graph is a test space: index i's neighbours are adj[i] (symmetric).
type graph struct{ adj [][]uint64 }

func (g *graph) Expand(idx uint64, lv *Level) {
	for _, n := range g.adj[idx] {
		lv.Reach(n)
	}
}

// pusher hides Touches, so that every level is pushed.
type pusher struct{ g *graph }

func (p pusher) Expand(idx uint64, lv *Level) { p.g.Expand(idx, lv) }

type puller struct{ *graph }

func (p puller) Touches(idx uint64, lv *Level) bool {
	for _, n := range p.adj[idx] {
		if lv.InFrontier(n) {
			return true
		}
	}
	return false
}

// permGraph is the symmetric group on n elements under the swaps of
// positions (0,1), (0,n−1) and the rotation and its inverse, ranked
// naively (a map), plus holes: indices that are no state, every third
// one after the states.
func permGraph(n int) (*graph, []uint64) {
	var perms [][]int
	var gen func(p []int, used int)
	gen = func(p []int, used int) {
		if len(p) == n {
			perms = append(perms, slices.Clone(p))
			return
		}
		for v := 0; v < n; v++ {
			if used&(1<<v) == 0 {
				gen(append(p, v), used|1<<v)
			}
		}
	}
	gen(nil, 0)
	// Spread the states over a sparse index: state k at 3k/2.
	at := func(k int) uint64 { return uint64(3 * k / 2) }
	key := map[string]int{}
	for k, p := range perms {
		key[fmt.Sprint(p)] = k
	}
	size := at(len(perms)-1) + 3
	g := &graph{adj: make([][]uint64, size)}
	var states []uint64
	for k, p := range perms {
		moves := [][]int{swap(p, 0, 1), swap(p, 0, n-1), rot(p, 1), rot(p, n-1)}
		for _, q := range moves {
			g.adj[at(k)] = append(g.adj[at(k)], at(key[fmt.Sprint(q)]))
		}
		states = append(states, at(k))
	}
	return g, states
}

func swap(p []int, i, j int) []int {
	q := slices.Clone(p)
	q[i], q[j] = q[j], q[i]
	return q
}

func rot(p []int, k int) []int {
	q := make([]int, len(p))
	for i := range p {
		q[(i+k)%len(p)] = p[i]
	}
	return q
}

// path is 0 − 1 − … − n−1.
func path(n int) *graph {
	g := &graph{adj: make([][]uint64, n)}
	for i := 0; i < n; i++ {
		if i > 0 {
			g.adj[i] = append(g.adj[i], uint64(i-1))
		}
		if i+1 < n {
			g.adj[i] = append(g.adj[i], uint64(i+1))
		}
	}
	return g
}

// fan15 is a path 0 − … − 13, then 14 and 15 both next to 13 and to each
// of the ten indices 16 … 25, which are 15 moves deep: reached twice from
// a frontier of two, so a pushed level 15 would count them twice.
func fan15() *graph {
	g := path(14)
	g.adj = append(g.adj, make([][]uint64, 12)...)
	link := func(a, b uint64) {
		g.adj[a] = append(g.adj[a], b)
		g.adj[b] = append(g.adj[b], a)
	}
	for _, mid := range []uint64{14, 15} {
		link(13, mid)
		for leaf := uint64(16); leaf < 26; leaf++ {
			link(mid, leaf)
		}
	}
	return g
}

// naive is a plain single-threaded BFS: depth per index (−1 unreached)
// and the histogram, to depth maxDepth (−1: all).
func naive(g *graph, goals []uint64, maxDepth int) ([]int, []int64) {
	dist := make([]int, len(g.adj))
	for i := range dist {
		dist[i] = -1
	}
	for _, x := range goals {
		dist[x] = 0
	}
	counts := []int64{int64(len(goals))}
	frontier := slices.Clone(goals)
	for d := 0; maxDepth < 0 || d < maxDepth; d++ {
		var next []uint64
		for _, x := range frontier {
			for _, y := range g.adj[x] {
				if dist[y] < 0 {
					dist[y] = d + 1
					next = append(next, y)
				}
			}
		}
		if len(next) == 0 {
			break
		}
		counts = append(counts, int64(len(next)))
		frontier = next
	}
	return dist, counts
}

// wantEntry is what the table holds for a naive depth.
func wantEntry(d int, s Spec) uint64 {
	switch {
	case d < 0 && s.MaxDepth >= 0:
		return uint64(min(s.MaxDepth+1, 14))
	case d < 0:
		return nibble.Unreached
	case s.Wrap:
		return uint64(d % 15)
	}
	return uint64(d)
}

func checkTable(t *testing.T, name string, tb Table, g *graph, s Spec) {
	t.Helper()
	dist, counts := naive(g, s.Goals, s.MaxDepth)
	if !slices.Equal(tb.Counts, counts) {
		t.Fatalf("%s: counts %v, naive %v", name, tb.Counts, counts)
	}
	for i, d := range dist {
		if got, want := entry(tb.Packed, uint64(i)), wantEntry(d, s); got != want {
			t.Fatalf("%s: entry %d = %d, naive depth %d (want %d)", name, i, got, d, want)
		}
	}
	// Padding lanes: unreached, or the cap's fill.
	pad := wantEntry(-1, s)
	for i := s.Size; i < uint64(len(tb.Packed))*16; i++ {
		if got := entry(tb.Packed, i); got != pad {
			t.Fatalf("%s: padding entry %d = %d, want %d", name, i, got, pad)
		}
	}
}

// Every entry and the histogram equal a naive BFS's, pushed or pulled, on
// one to three workers, with several goals, holes, a cap and wrapping.
func TestMatchesNaive(t *testing.T) {
	perm, states := permGraph(6)   // 720 states, under 15 deep
	perm7, states7 := permGraph(7) // 5,040 states, deeper than 15
	cases := []struct {
		name string
		g    *graph
		s    Spec
	}{
		{"perm", perm, Spec{Goals: []uint64{0}, Reached: uint64(len(states)), MaxDepth: -1}},
		{"perm two goals", perm, Spec{Goals: []uint64{states[17], states[600]}, Reached: uint64(len(states)), MaxDepth: -1}},
		{"perm capped", perm, Spec{Goals: []uint64{0}, MaxDepth: 4}},
		{"perm capped past the end", perm, Spec{Goals: []uint64{0}, MaxDepth: 13}},
		{"perm deep, wrapped", perm7, Spec{Goals: []uint64{states7[100]}, Reached: uint64(len(states7)), MaxDepth: -1, Wrap: true}},
		{"path wrapped", path(100), Spec{Goals: []uint64{3}, MaxDepth: -1, Wrap: true}},
		{"path 15 deep", path(16), Spec{Goals: []uint64{0}, MaxDepth: -1}},
		{"fan 15 deep", fan15(), Spec{Goals: []uint64{0}, MaxDepth: -1}},
	}
	for _, c := range cases {
		c.s.Size = uint64(len(c.g.adj))
		for _, workers := range []int{1, 2, 3} {
			c.s.Workers = workers
			walkers := []struct {
				kind string
				new  func() Walker
			}{
				{"pull", func() Walker { return puller{c.g} }},
				{"push", func() Walker { return pusher{c.g} }},
			}
			for _, w := range walkers {
				name := fmt.Sprintf("%s, %s, %d workers", c.name, w.kind, workers)
				tb, err := Build(context.Background(), c.s, w.new)
				if strings.HasSuffix(c.name, "15 deep") && w.kind == "push" {
					if !errors.Is(err, ErrTooDeep) {
						t.Fatalf("%s: %v, want ErrTooDeep", name, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				checkTable(t, name, tb, c.g, c.s)
			}
		}
	}
}

// A pulling build pulls once the unreached indices are fewer than twice
// the frontier: the late levels of the permutation graph.
func TestPullsLateLevels(t *testing.T) {
	g, states := permGraph(6)
	var touched atomic.Int64
	counted := countingPuller{puller{g}, &touched}
	s := Spec{Size: uint64(len(g.adj)), Reached: uint64(len(states)), Goals: []uint64{0}, MaxDepth: -1, Workers: 2}
	if _, err := Build(context.Background(), s, func() Walker { return counted }); err != nil {
		t.Fatal(err)
	}
	if touched.Load() == 0 {
		t.Fatal("no level pulled")
	}
}

type countingPuller struct {
	puller
	n *atomic.Int64
}

func (c countingPuller) Touches(idx uint64, lv *Level) bool {
	c.n.Add(1)
	return c.puller.Touches(idx, lv)
}

// Too deep without wrapping, unreachable indices, bad goals and a
// cancelled context are errors, not tables.
func TestErrors(t *testing.T) {
	g := path(20)
	s := Spec{Size: 20, Goals: []uint64{0}, MaxDepth: -1}
	if _, err := Build(context.Background(), s, func() Walker { return puller{g} }); !errors.Is(err, ErrTooDeep) {
		t.Errorf("20-long path: %v, want ErrTooDeep", err)
	}
	s.Wrap = true
	if _, err := Build(context.Background(), s, func() Walker { return puller{g} }); err != nil {
		t.Errorf("20-long path wrapped: %v", err)
	}
	cut := path(10)
	cut.adj[4], cut.adj[5] = cut.adj[4][:1], cut.adj[5][1:] // 0−4 and 5−9
	s = Spec{Size: 10, Goals: []uint64{0}, MaxDepth: -1}
	if _, err := Build(context.Background(), s, func() Walker { return puller{cut} }); !errors.Is(err, ErrIncomplete) {
		t.Errorf("two components: %v, want ErrIncomplete", err)
	}
	s.Reached = 5
	if _, err := Build(context.Background(), s, func() Walker { return puller{cut} }); err != nil {
		t.Errorf("one component of 5 expected: %v", err)
	}
	for _, goals := range [][]uint64{nil, {10}, {1, 1}} {
		s.Goals = goals
		if _, err := Build(context.Background(), s, func() Walker { return puller{cut} }); err == nil {
			t.Errorf("goals %v accepted", goals)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s = Spec{Size: 10, Goals: []uint64{0}, MaxDepth: -1}
	if _, err := Build(ctx, s, func() Walker { return puller{g} }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Progress hears the reached count before the first level and after each.
func TestProgress(t *testing.T) {
	g := path(6)
	var got []uint64
	s := Spec{Size: 6, Goals: []uint64{2}, MaxDepth: -1, Workers: 1,
		Progress: func(done, total uint64) {
			if total != 6 {
				t.Errorf("total %d", total)
			}
			got = append(got, done)
		}}
	if _, err := Build(context.Background(), s, func() Walker { return puller{g} }); err != nil {
		t.Fatal(err)
	}
	if want := []uint64{1, 3, 5, 6}; !slices.Equal(got, want) {
		t.Fatalf("progress %v, want %v", got, want)
	}
}

// ForChunks hands out every chunk exactly once over any number of workers.
func TestForChunks(t *testing.T) {
	for _, workers := range []int{0, 1, 3} {
		seen := make([]atomic.Int32, 1000)
		ForChunks(context.Background(), workers, 1000, func(w int, ch uint64) {
			if w < 0 || w >= max(workers, 1) {
				t.Errorf("worker %d of %d", w, workers)
			}
			seen[ch].Add(1)
		})
		for ch := range seen {
			if n := seen[ch].Load(); n != 1 {
				t.Fatalf("%d workers: chunk %d handed out %d times", workers, ch, n)
			}
		}
	}
}
