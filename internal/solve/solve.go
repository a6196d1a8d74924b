// Package solve is the single entry point for solving: it picks the
// algorithm per puzzle and mode, replays every answer against the input
// before returning it, and fills in the result.Result of the design contract.
package solve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tessera-solver/tessera/internal/sliding"

	"github.com/tessera-solver/tessera/internal/result"

	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/internal/swap"
)

// Options bound one solve. Zero values mean "no limit".
type Options struct {
	Mode     result.Mode
	MaxNodes int64
	Timeout  time.Duration
	// Goal replaces the standard goal of a swap board (same shape, same
	// number of ones); other puzzles ignore it.
	Goal *puzzle.State
	// Threads is how many goroutines one pattern-database search may use
	// (0 or 1: one). It pays for single long solves such as the 24-puzzle
	// (two threads halve the time); a batch is better spread over states.
	Threads int
}

// bfsMaxCells bounds the boards answered from an exact distance table built
// in memory on first use (sliding 2×5 has 1.8 M states: under a second).
const bfsMaxCells = 10

// fastWeight is the fast mode's heuristic weight (1.5×): it cuts
// 15-puzzle nodes by orders of magnitude for answers a few percent longer
// than optimal.
const fastWeight search.Weight = 24

// Solver caches the per-shape search tables. The zero value is not usable;
// use New. It is safe for concurrent use.
type Solver struct {
	mu      sync.Mutex
	sliding map[puzzle.Spec]*sliding.Searcher
	tables  map[puzzle.Spec]*tableEntry
	pdbs    map[puzzle.Spec]*pdb.Solver
	full    map[puzzle.Spec]*fulltable.Table // loaded distance-table files
	lo      map[puzzle.Spec]*loopoverIDA
	tp      *twophase.Solver // 5×5 Loopover over a loaded phase-1 table
	tpOnce  sync.Once
	tpMem   *twophase.Solver // … or over in-memory bounds
	tpErr   error
}

type tableEntry struct {
	once sync.Once
	t    *fulltable.Table
	err  error
}

// New returns a Solver with empty caches.
func New() *Solver {
	return &Solver{sliding: map[puzzle.Spec]*sliding.Searcher{}, tables: map[puzzle.Spec]*tableEntry{},
		pdbs: map[puzzle.Spec]*pdb.Solver{}, full: map[puzzle.Spec]*fulltable.Table{}, lo: map[puzzle.Spec]*loopoverIDA{}}
}

// UsePDB makes optimal solves of spec use IDA* over pattern databases
// (loaded by the caller, which keeps them mapped while s is in use)
// instead of walking distance.
func (s *Solver) UsePDB(spec puzzle.Spec, sv *pdb.Solver) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pdbs[spec] = sv
}

// PDB is the pattern-database solver used for spec, or nil.
func (s *Solver) PDB(spec puzzle.Spec) *pdb.Solver {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pdbs[spec]
}

var defaultSolver = New()

// SolveText parses text as a state of spec and solves it with the
// process-wide Solver.
func SolveText(ctx context.Context, spec puzzle.Spec, text string, opt Options) result.Result {
	return defaultSolver.SolveText(ctx, spec, text, opt)
}

// SolveText parses text as a state of spec and solves it. Input errors
// become a result.Result with status invalid or unsolvable and the reason in Error;
// it never panics on bad input.
func (s *Solver) SolveText(ctx context.Context, spec puzzle.Spec, text string, opt Options) result.Result {
	st, err := puzzle.Parse(spec, text)
	if err != nil {
		return Rejected(spec, text, err)
	}
	return s.Solve(ctx, st, opt)
}

// Rejected is the result.Result for input that could not be solved because it is
// malformed or unsolvable.
func Rejected(spec puzzle.Spec, text string, err error) result.Result {
	r := result.Result{Puzzle: spec.String(), State: text, Status: result.StatusInvalid, Error: err.Error()}
	if errors.Is(err, puzzle.ErrUnsolvable) {
		r.Status = result.StatusUnsolvable
	}
	return r
}

// Solve solves a parsed state. The returned moves have been replayed
// against st; an answer that fails the replay is reported as failed, never
// as solved.
func (s *Solver) Solve(ctx context.Context, st puzzle.State, opt Options) result.Result {
	start := time.Now()
	r := result.Result{Puzzle: st.Spec.String(), State: st.String()}
	// Searches assume a solvable, well-formed board (IDA* on an unsolvable
	// one never ends): check states that did not come through Parse.
	if err := puzzle.Solvable(st); err != nil {
		return Rejected(st.Spec, r.State, err)
	}
	goal := st.Goal()
	if opt.Goal != nil {
		if err := puzzle.CheckGoal(st, *opt.Goal); err != nil {
			r.Status, r.Error = result.StatusInvalid, err.Error()
			return r
		}
		goal = *opt.Goal
	}
	moves, err := s.dispatch(ctx, st, opt, &r)
	r.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	switch {
	case errors.Is(err, search.ErrBudgetExceeded):
		r.Status = result.StatusBudgetExceeded
		r.Error = fmt.Sprintf("%v after %d nodes; the optimal length is at least %d", err, r.Nodes, r.LowerBound)
		return r
	case errors.Is(err, puzzle.ErrUnsolvable):
		r.Status, r.Error = result.StatusUnsolvable, err.Error()
		return r
	case errors.Is(err, puzzle.ErrMalformed):
		r.Status, r.Error = result.StatusInvalid, err.Error()
		return r
	case err != nil:
		r.Status, r.Error = result.StatusFailed, err.Error()
		return r
	}
	r.Moves = puzzle.FormatMoves(st.Spec, moves)
	r.Length = len(moves)
	if err := puzzle.VerifyTo(st, r.Moves, goal); err != nil {
		// A solver bug: never hand out an answer that does not replay.
		return result.Result{Puzzle: r.Puzzle, State: r.State, Status: result.StatusFailed, Nodes: r.Nodes, ElapsedMS: r.ElapsedMS,
			Solver: r.Solver, Error: fmt.Sprintf("internal error: %s answer failed verification: %v", r.Solver, err)}
	}
	r.Status = result.StatusSolved
	if r.Optimal {
		r.LowerBound = r.Length
	}
	return r
}

// dispatch picks the algorithm and fills Solver, Nodes, Optimal and
// LowerBound of r.
func (s *Solver) dispatch(ctx context.Context, st puzzle.State, opt Options, r *result.Result) ([]puzzle.Move, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", search.ErrBudgetExceeded, err)
	}
	switch st.Spec.Kind {
	case puzzle.Sliding:
		if st.Spec.Cells() <= bfsMaxCells {
			return s.byTable(st, r)
		}
		return s.slidingIDA(ctx, st, opt, r)
	case puzzle.Loopover:
		return s.loopover(ctx, st, opt, r)
	case puzzle.Swap:
		return s.swap(st, opt, r)
	}
	return nil, fmt.Errorf("%s: unknown puzzle kind: %w", st.Spec, puzzle.ErrMalformed)
}

func (s *Solver) byTable(st puzzle.State, r *result.Result) ([]puzzle.Move, error) {
	s.mu.Lock()
	e, ok := s.tables[st.Spec]
	if !ok {
		e = &tableEntry{}
		s.tables[st.Spec] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.t, e.err = fulltable.Build(st.Spec) })
	if e.err != nil {
		return nil, fmt.Errorf("distance table %s: %w", st.Spec, e.err)
	}
	moves, err := e.t.Solve(st.Cells)
	if err != nil {
		return nil, err
	}
	r.Solver, r.Optimal, r.Nodes, r.LowerBound = "bfs-table", true, int64(len(moves)), len(moves)
	return moves, nil
}

func (s *Solver) slidingSearcher(spec puzzle.Spec) (*sliding.Searcher, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.sliding[spec]; ok {
		return t, nil
	}
	t, err := sliding.NewSearcher(spec.Rows, spec.Cols)
	if err != nil {
		return nil, err
	}
	s.sliding[spec] = t
	return t, nil
}

func (s *Solver) slidingIDA(ctx context.Context, st puzzle.State, opt Options, r *result.Result) ([]puzzle.Move, error) {
	b := budgetOf(ctx, opt)
	var out search.Outcome
	var err error
	if p := s.PDB(st.Spec); p != nil {
		if opt.Mode == result.ModeFast {
			out, err = fastPDB(p, st.Cells, b, opt.Threads, r)
		} else {
			out, err = p.SolveParallel(st.Cells, b, search.Unweighted, opt.Threads)
			r.Solver = p.Name()
		}
		return pathMoves(out, err, r)
	}
	t, err := s.slidingSearcher(st.Spec)
	if err != nil {
		return nil, err
	}
	if opt.Mode == result.ModeFast {
		out, err = t.SolveWeighted(st.Cells, b, fastWeight)
		r.Solver = t.Name() + "×1.5"
	} else {
		out, err = t.Solve(st.Cells, b)
		r.Solver = t.Name()
	}
	return pathMoves(out, err, r)
}

// fastWeights are the heuristic weights (sixteenths) of the fast mode
// over pattern databases, tried in turn: each lighter weight finds shorter
// answers for more nodes, and the last is plain (optimal) IDA*.
var fastWeights = []search.Weight{24, 23, 22, 21, 20, 18, search.Unweighted}

// fastWindow is how long the fast mode keeps looking for shorter answers,
// counted from the start: the 24-puzzle's fast answers (weight 1.5) come
// in well under a second, and the lighter weights shorten them within it.
// 50 ms under a second leaves room for the budget checks (every 65,536
// nodes) and the replay, so a solve stays within a second (with a full
// second the slowest of Korf and Felner's 50 took 1.02 s).
const fastWindow = 950 * time.Millisecond

// fastPDB is anytime weighted IDA*: the heaviest weight under the job's
// budget, then lighter ones while the window lasts, keeping the shortest.
func fastPDB(p *pdb.Solver, cells []uint8, b search.Budget, threads int, r *result.Result) (search.Outcome, error) {
	// The window counts from the start, so a solve takes about a second
	// in all unless the first answer alone takes longer.
	until := time.Now().Add(fastWindow)
	best, err := p.SolveParallel(cells, b, fastWeights[0], threads)
	r.Solver = fmt.Sprintf("%s×%g", p.Name(), float64(fastWeights[0])/search.WeightDen)
	if err != nil {
		return best, err
	}
	if !b.Deadline.IsZero() && b.Deadline.Before(until) {
		until = b.Deadline
	}
	for _, w := range fastWeights[1:] {
		lb := b
		lb.Deadline = until
		if b.MaxNodes > 0 {
			if lb.MaxNodes = b.MaxNodes - best.Nodes; lb.MaxNodes <= 0 {
				break
			}
		}
		out, err := p.SolveParallel(cells, lb, w, threads)
		best.Nodes += out.Nodes
		if err != nil {
			break // out of time or nodes: keep the best so far
		}
		if len(out.Path) < len(best.Path) || out.Optimal {
			nodes := best.Nodes
			best, best.Nodes = out, nodes
			r.Solver = fmt.Sprintf("%s×%g", p.Name(), float64(w)/search.WeightDen)
			if out.Optimal {
				r.Solver = p.Name()
				break
			}
		}
	}
	return best, nil
}

// pathMoves records a sliding search's outcome in r and converts its path
// (tile directions, as puzzle.Dir numbers them) to moves.
func pathMoves(out search.Outcome, err error, r *result.Result) ([]puzzle.Move, error) {
	r.Nodes, r.LowerBound, r.Optimal = out.Nodes, out.LowerBound, out.Optimal
	if err != nil {
		return nil, err
	}
	moves := make([]puzzle.Move, len(out.Path))
	for i, d := range out.Path {
		moves[i] = puzzle.Move{Dir: puzzle.Dir(d)}
	}
	return moves, nil
}

// maxSwapMoves caps the move list of one swap answer: a random 1000×1000
// board needs about 125 M swaps, a gigabyte move string no consumer wants.
// Larger answers report their exact length as the lower bound instead.
const maxSwapMoves = 5_000_000

// swapCheckCells is the board size from which the distance is computed
// before the move list, to refuse oversized answers cheaply.
const swapCheckCells = 100 * 100

func (s *Solver) swap(st puzzle.State, opt Options, r *result.Result) ([]puzzle.Move, error) {
	goal := st.Goal()
	if opt.Goal != nil {
		goal = *opt.Goal
	}
	r.Solver = "matching"
	rows, cols := st.Spec.Rows, st.Spec.Cols
	if st.Spec.Cells() >= swapCheckCells {
		d, err := swap.Distance(rows, cols, st.Cells, goal.Cells)
		if err != nil {
			return nil, err
		}
		if d > maxSwapMoves {
			r.LowerBound = d
			return nil, fmt.Errorf("%w: the answer has exactly %d swaps, more than the %d a move list may hold",
				search.ErrBudgetExceeded, d, maxSwapMoves)
		}
	}
	moves, err := swap.Solve(rows, cols, st.Cells, goal.Cells)
	if err != nil {
		return nil, err
	}
	r.Optimal, r.LowerBound = true, len(moves)
	return moves, nil
}
