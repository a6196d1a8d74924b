package puzzle

import "fmt"

// Goal returns the goal state of spec: sliding 1..N−1 then the blank,
// Loopover 1..N ascending. Swap boards have one goal per count of ones;
// Goal returns the one for the half-ones board that Random and RandomWalk
// use (the first N/2 cells ones). Use SwapGoal or State.Goal for others.
func Goal(spec Spec) State {
	if f := spec.Family(); f != nil {
		return f.GoalOf(spec)
	}
	return loopoverRules.GoalOf(spec) // no family: ascending cells
}

// SwapGoal is the goal of a swap board holding `ones` ones: they fill the
// first `ones` cells in row-major order. ones is clamped to [0, N].
func SwapGoal(spec Spec, ones int) State {
	n := cellCount(spec)
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
	if f := s.Spec.Family(); f != nil {
		return f.GoalOfState(s)
	}
	return Goal(s.Spec)
}

// IsGoal reports whether s is its goal. It does not allocate.
func (s State) IsGoal() bool {
	n := len(s.Cells)
	f := s.Spec.Family()
	if n != s.Spec.Cells() || n == 0 || f == nil {
		return false
	}
	return f.IsGoal(s.Cells)
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
	if f := s.Spec.Family(); f != nil {
		return f.CheckGoal(s, goal)
	}
	return checkOneGoal(s, goal)
}

// checkOneGoal is CheckGoal for a family with one goal per board shape.
func checkOneGoal(s, goal State) error {
	if !goal.IsGoal() {
		return fmt.Errorf("%s has one goal, %s: %w", s.Spec, Goal(s.Spec), ErrMalformed)
	}
	return nil
}
