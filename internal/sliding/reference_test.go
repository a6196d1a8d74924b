package sliding

// The whole-board evaluations below are the oracles the admissibility
// tests check the solvers' incremental heuristics and tables against;
// the solvers themselves never evaluate a board from scratch this way.

// Manhattan is the sum of the tiles' grid distances to their goal cells.
func Manhattan(rows, cols int, cells []uint8) int {
	v, hz := ManhattanAxes(rows, cols, cells)
	return v + hz
}

// LinearConflictAxes returns the extra vertical moves forced by row
// conflicts and the extra horizontal moves forced by column conflicts.
//
// Within one line, the tiles already in their goal line that stay in it
// keep their relative order, so they form an increasing subsequence of goal
// positions; every other tile of that set must leave the line and come
// back, two moves across the line. The exact count per line is therefore
// 2 × (tiles in their goal line − longest increasing subsequence of their
// goal positions). The greedy "remove the tile with most conflicts" of the
// seed text can exceed this and is not admissible.
func LinearConflictAxes(rows, cols int, cells []uint8) (rowMoves, colMoves int) {
	for r := 0; r < rows; r++ {
		rowMoves += RowConflict(cols, cells, r)
	}
	for c := 0; c < cols; c++ {
		colMoves += ColConflict(rows, cols, cells, c)
	}
	return rowMoves, colMoves
}

// LinearConflict is Manhattan distance's companion term: extra moves forced
// by tiles that must pass each other within their goal row or column.
func LinearConflict(rows, cols int, cells []uint8) int {
	r, c := LinearConflictAxes(rows, cols, cells)
	return r + c
}

// InversionDistance is takaken's ID generalised to any board: the bounds of
// the two axes added (vertical and horizontal moves are disjoint).
func InversionDistance(rows, cols int, cells []uint8) int {
	v, hz := InversionAxes(rows, cols, cells)
	return InversionBound(v, cols-1) + InversionBound(hz, rows-1)
}

// WalkingAxes returns the vertical and horizontal walking distances of a
// board, or ok=false for an axis whose table is not supported.
func WalkingAxes(rows, cols int, cells []uint8) (v, hz int, vok, hok bool) {
	if t := SharedWD(rows, cols); t != nil {
		if p, err := t.Index(lineAndGoal(cols, cells, true)); err == nil {
			v, vok = int(t.Dist[p]), true
		}
	}
	if t := SharedWD(cols, rows); t != nil {
		if p, err := t.Index(lineAndGoal(cols, cells, false)); err == nil {
			hz, hok = int(t.Dist[p]), true
		}
	}
	return v, hz, vok, hok
}

// lineAndGoal lists each tile's current and goal line along an axis and the
// blank's line (rows when vertical, columns otherwise).
func lineAndGoal(cols int, cells []uint8, vertical bool) ([]int, []int, int) {
	line := make([]int, 0, len(cells))
	goal := make([]int, 0, len(cells))
	blank := 0
	for i, t := range cells {
		r, c := i/cols, i%cols
		if t == 0 {
			blank = c
			if vertical {
				blank = r
			}
			continue
		}
		gr, gc := goalRC(int(t), cols)
		if vertical {
			line, goal = append(line, r), append(goal, gr)
		} else {
			line, goal = append(line, c), append(goal, gc)
		}
	}
	return line, goal, blank
}
