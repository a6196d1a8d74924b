package puzzle

import "fmt"

// Goal returns the goal state of spec: sliding 1..N−1 then the blank,
// Loopover 1..N ascending. Swap boards have one goal per count of ones;
// Goal returns the one for the half-ones board that Random and RandomWalk
// use (the first N/2 cells ones). Use SwapGoal or State.Goal for others.
func Goal(spec Spec) State {
	n := spec.Cells()
	if n < 0 || spec.Rows < 0 {
		n = 0
	}
	switch spec.Kind {
	case Swap:
		return SwapGoal(spec, n/2)
	case Sliding:
		c := make([]uint8, n)
		for i := 0; i+1 < n; i++ {
			c[i] = uint8(i + 1)
		}
		return State{Spec: spec, Cells: c}
	default:
		c := make([]uint8, n)
		for i := range c {
			c[i] = uint8(i + 1)
		}
		return State{Spec: spec, Cells: c}
	}
}

// SwapGoal is the goal of a swap board holding `ones` ones: they fill the
// first `ones` cells in row-major order. ones is clamped to [0, N].
func SwapGoal(spec Spec, ones int) State {
	n := spec.Cells()
	if n < 0 || spec.Rows < 0 {
		n = 0
	}
	ones = max(0, min(ones, n))
	c := make([]uint8, n)
	for i := 0; i < ones; i++ {
		c[i] = 1
	}
	return State{Spec: spec, Cells: c}
}

// Goal is the goal this state must reach. For swap boards that depends on
// the state: swaps preserve the number of ones.
func (s State) Goal() State {
	if s.Spec.Kind == Swap {
		return SwapGoal(s.Spec, countOnes(s.Cells))
	}
	return Goal(s.Spec)
}

// IsGoal reports whether s is its goal. It does not allocate.
func (s State) IsGoal() bool {
	n := len(s.Cells)
	if n != s.Spec.Cells() || n == 0 {
		return false
	}
	switch s.Spec.Kind {
	case Sliding:
		for i := 0; i+1 < n; i++ {
			if s.Cells[i] != uint8(i+1) {
				return false
			}
		}
		return s.Cells[n-1] == 0
	case Loopover:
		for i, v := range s.Cells {
			if v != uint8(i+1) {
				return false
			}
		}
		return true
	case Swap:
		// Ones then zeros: no cell may exceed its predecessor.
		prev := uint8(1)
		for _, v := range s.Cells {
			if v > prev {
				return false
			}
			prev = v
		}
		return true
	}
	return false
}

func countOnes(c []uint8) int {
	k := 0
	for _, v := range c {
		if v == 1 {
			k++
		}
	}
	return k
}

// CheckGoal reports whether goal is a goal s can reach: the same puzzle and,
// for swap boards, a 0/1 board with as many ones as s (any such pattern is
// reachable). Sliding and Loopover have only their standard goal.
func CheckGoal(s, goal State) error {
	if goal.Spec != s.Spec {
		return fmt.Errorf("goal is a %s board, the state a %s one: %w", goal.Spec, s.Spec, ErrMalformed)
	}
	if s.Spec.Kind != Swap {
		if !goal.IsGoal() {
			return fmt.Errorf("%s has one goal, %s: %w", s.Spec, Goal(s.Spec), ErrMalformed)
		}
		return nil
	}
	if err := goal.Validate(); err != nil {
		return fmt.Errorf("goal: %w", err)
	}
	if a, b := countOnes(s.Cells), countOnes(goal.Cells); a != b {
		return fmt.Errorf("goal has %d ones but the board has %d; a swap keeps the number of ones: %w", b, a, ErrMalformed)
	}
	return nil
}
