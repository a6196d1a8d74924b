package bfs

import (
	"errors"
	"slices"
	"testing"
)

// Serial labels every state at its naive BFS depth, with one goal or two
// and holes in the index, and counts the states per depth as the naive
// search does.
func TestSerialMatchesNaive(t *testing.T) {
	perm, states := permGraph(7) // 5,040 states, deeper than 15
	expand := func(x int, out []int) []int {
		for _, n := range perm.adj[x] {
			out = append(out, int(n))
		}
		return out
	}
	for _, goals := range [][]uint64{{states[100]}, {states[17], states[600]}} {
		want, wantCounts := naive(perm, goals, -1)
		var gs []int
		for _, g := range goals {
			gs = append(gs, int(g))
		}
		dist, counts, err := Serial(len(perm.adj), gs, expand)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(counts, wantCounts) || len(dist) != len(want) {
			t.Fatalf("goals %v: counts %v over %d entries, want %v over %d", goals, counts, len(dist), wantCounts, len(want))
		}
		for i, d := range want {
			if (d < 0 && dist[i] != Unreached8) || (d >= 0 && int(dist[i]) != d) {
				t.Fatalf("goals %v: index %d holds %d, want %d", goals, i, dist[i], d)
			}
		}
	}
}

// Ids given on the fly extend the table: a caller numbering the states of
// a sparse space as it meets them (here the permutation graph's states in
// the order expand first names them) gets their depths by id.
func TestSerialGrows(t *testing.T) {
	perm, states := permGraph(6)
	want, wantCounts := naive(perm, []uint64{states[0]}, -1)
	id := map[uint64]int{states[0]: 0}
	index := []uint64{states[0]}
	dist, counts, err := Serial(0, []int{0}, func(x int, out []int) []int {
		for _, n := range perm.adj[index[x]] {
			i, ok := id[n]
			if !ok {
				i = len(index)
				id[n] = i
				index = append(index, n)
			}
			out = append(out, i)
		}
		return out
	})
	if err != nil || !slices.Equal(counts, wantCounts) || len(dist) != len(states) {
		t.Fatalf("counts %v over %d ids (%v), want %v over %d", counts, len(dist), err, wantCounts, len(states))
	}
	for i, s := range index {
		if int(dist[i]) != want[s] {
			t.Fatalf("id %d (index %d) holds %d, want %d", i, s, dist[i], want[s])
		}
	}
}

// A state deeper than a byte holds is refused, not wrapped.
func TestSerialTooDeep(t *testing.T) {
	for _, n := range []int{255, 256, 300} {
		g := path(n)
		_, counts, err := Serial(n, []int{0}, func(x int, out []int) []int {
			for _, m := range g.adj[x] {
				out = append(out, int(m))
			}
			return out
		})
		if deep := n > 255; deep != errors.Is(err, ErrTooDeep) || (!deep && len(counts) != n) {
			t.Errorf("path of %d: %d levels, %v", n, len(counts), err)
		}
	}
}
