package bfs

import "fmt"

// Unreached8 marks an entry of a Serial table that no state reached.
const Unreached8 = 0xff

// Serial is the breadth-first search of a small table on one goroutine,
// level by level from goals, a byte per entry: the one loop of the tables
// built in memory in milliseconds (walking distances, displacement
// tables, the two-phase solver's small bounds), where Build's packed,
// parallel table would cost more than it saves.
//
// States are numbered densely (their index, or an id the caller gives
// each state the first time it meets one: an id at or past size extends
// the table). expand appends to out the ids of the states one move from x
// and returns it; a state is expanded once, the states of a level in the
// order they were labelled, and neither the loop nor expand calls through
// a function value per neighbour. Serial returns the table (each reached
// id's depth, Unreached8 elsewhere) and the states per depth, or
// ErrTooDeep when a state lies deeper than 254.
func Serial(size int, goals []int, expand func(x int, out []int) []int) ([]uint8, []int64, error) {
	dist := make([]uint8, size)
	for i := range dist {
		dist[i] = Unreached8
	}
	// Ids fit 32 bits (the tables hold a few million bytes): half the
	// frontier's memory traffic of ints.
	var frontier, next []uint32
	var out []int
	for _, g := range goals {
		for g >= len(dist) {
			dist = append(dist, Unreached8)
		}
		if dist[g] == Unreached8 {
			dist[g] = 0
			frontier = append(frontier, uint32(g))
		}
	}
	var counts []int64
	for depth := 1; len(frontier) > 0; depth++ {
		counts = append(counts, int64(len(frontier)))
		for _, x := range frontier {
			out = expand(int(x), out[:0])
			// Extend the table before the checks, so that the loop below
			// reads a table that does not move.
			hi := -1
			for _, n := range out {
				hi = max(hi, n)
			}
			for hi >= len(dist) {
				dist = append(dist, Unreached8)
			}
			for _, n := range out {
				if dist[n] == Unreached8 {
					dist[n] = uint8(depth)
					next = append(next, uint32(n))
				}
			}
		}
		if depth >= Unreached8 && len(next) > 0 {
			return nil, nil, fmt.Errorf("%w: states deeper than %d levels in a byte table", ErrTooDeep, Unreached8-1)
		}
		frontier, next = next, frontier[:0]
	}
	return dist, counts, nil
}
