package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/fulltable"
	"github.com/tessera-solver/tessera/internal/loopover"
	"github.com/tessera-solver/tessera/internal/loopover/twophase"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/progress"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/internal/solve"
)

// errRejected makes a command exit 1 after it has printed its output.
var errRejected = errors.New("some input was not solved")

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// runContext is run under ctx: `solverd run` stops when ctx ends as on
// SIGTERM (tests run the daemon in-process this way).
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:   "solverd",
		Short: "Solve sliding-tile, Loopover and swap puzzles; run the JetStream solver daemon",
	}
	// Every command, in the order of `solverd --help`.
	root.AddCommand(solveCmd(), verifyCmd(), bfsCmd(), scrambleCmd(), runCmd(), queueCmd(), tablesCmd(), workersCmd(), configCmd())
	cmdkit.SetExamples(root, examples)
	// errRejected: the command has printed what it rejected.
	return cmdkit.Execute(ctx, root, args, stdin, stdout, stderr, errRejected)
}

type usageError = cmdkit.UsageError

func usagef(format string, a ...any) error { return cmdkit.Usagef(format, a...) }

// nArgs is cobra.ExactArgs with a usage error (exit 2).
func nArgs(n int) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("want %d arguments, got %d", n, len(args))
		}
		return nil
	}
}

func puzzleFlag(c *cobra.Command, p *string) {
	c.Flags().StringVarP(p, "puzzle", "p", "", "puzzle: KIND:ROWSxCOLS (sliding:4x4, loopover:5x5, swap:12x12) or 8, 15, 24")
}

func parseSpec(s string) (puzzle.Spec, error) {
	if s == "" {
		return puzzle.Spec{}, usagef("--puzzle is required")
	}
	sp, err := puzzle.ParseSpec(s)
	if err != nil {
		return puzzle.Spec{}, usageError{Err: err}
	}
	return sp, nil
}

func solveCmd() *cobra.Command {
	var p, goal string
	c := &cobra.Command{
		Use:   "solve --puzzle P [--mode optimal|fast] [--budget-nodes N] [--timeout D] [--goal G] [--threads T] [STATE ...]",
		Short: "Solve states given as arguments, or one per line on stdin; one JSON object per state on stdout",
		Long: `solve answers each state given as an argument, or each line of stdin, with one
JSON object on stdout, in input order.

Every state has a time budget: --timeout, else its puzzle's default, the
one the pipeline gives a job that names none (a state beyond it ends as
budget_exceeded). In fast mode the default only limits: the search looks
for shorter answers for a number of nodes, not a time, so that the same
state gets the same answer at any load:
` + fastNodesText() + `
or for --budget-nodes or --timeout when given. A fast answer that a
clock ended instead (--timeout, or a time ceiling of ` + search.FastCeiling.String() + ` on a very
slow host) says "(time limit)" in its solver.

` + budgetTable() + `
Input: one state per argument or per line; blank lines and lines starting
with # are skipped (a UTF-8 byte-order mark on line 1 is dropped). Rows are
separated by '/', cells by spaces or commas:
  sliding    0 for the blank, e.g. "8 6 7/2 5 4/3 0 1"; or all cells on one
             line, row-major, e.g. "8 6 7 2 5 4 3 0 1" (16 numbers for 15)
  loopover   1..N or letters A.., e.g. "ABC/DEF/HIG" or "2 3 1/4 5 6/7 8 9"
  swap       rows of 0 and 1, e.g. "1101/0110/0100/1010" (--goal: another target)

Output: one JSON object per state, in input order; each one not solved is
also reported on stderr as "line N: reason".

Exit status: 0 every state solved; 1 some state invalid, unsolvable, over
its budget or failed; 2 usage error (bad flag, puzzle or setting).`,
		Example: `  solverd solve -p 8 "8 6 7/2 5 4/3 0 1"
  solverd scramble -p 15 --count 3 --seed 1 | solverd solve -p 15 --mode fast
  solverd solve -p 15 --timeout 30s < corpus.txt > answers.jsonl
  solverd solve -p swap:4x4 1101/0110/0100/1010`,
		RunE: func(c *cobra.Command, args []string) error {
			spec, err := parseSpec(p)
			if err != nil {
				return err
			}
			cfg, err := solveKeys.Load(c.Flags())
			if err != nil {
				return usageError{Err: err}
			}
			m, err := result.ParseMode(cfg.Solver.Mode)
			if err != nil {
				return usageError{Err: err}
			}
			opt := solve.Options{Mode: m, Budget: solveBudget(cfg.Solver, spec, m), Threads: cfg.Solver.Threads}
			if opt.Goal, err = goalFlag(spec, goal); err != nil {
				return err
			}
			loaded, solver, err := loadTables(cfg.Solver, spec.String(), func(s string) { fmt.Fprintln(c.ErrOrStderr(), "solverd:", s) })
			if err != nil {
				return err
			}
			if n := missingOptional(cfg.Solver, loaded, spec, m); n != "" {
				fmt.Fprintln(c.ErrOrStderr(), "solverd:", n)
			}
			defer loaded.Close()
			ctx, stop := cmdkit.OnSignal(context.Background())
			defer stop()
			var src lineSource
			if len(args) > 0 {
				src = &argLines{args: args}
			} else {
				src = &scanLines{r: bufio.NewReaderSize(c.InOrStdin(), 64<<10)}
			}
			workers := cfg.Solver.Workers
			if workers <= 0 {
				workers = runtime.GOMAXPROCS(0)
			}
			return solveStream(ctx, solver, spec, opt, src, workers, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	puzzleFlag(c, &p)
	c.Flags().Int("workers", 0, "states solved in parallel (0: one per core) ["+config.EnvName("solver.workers")+"]")
	goalVar(c, &goal)
	// Every setting of solve is a key: --mode is solver.mode and
	// TESSERA_SOLVER_MODE, the budget flags solver.max_nodes/timeout.
	solveKeys.Bind(c.Flags())
	return c
}

// solveBudget is the budget of every state of `solverd solve`: its
// --budget-nodes and --timeout, and for a solve that names no time its
// puzzle's default, as the pipeline grants a job (search.Grant with
// policy.DefaultTimeout): a state beyond reach ends budget_exceeded instead
// of running until killed (a 5×5 Loopover may never end). As in the
// pipeline the default only limits: fast mode keeps its own node budget
// under it (search.Budget.Fast). No host ceiling: the command runs on the
// user's own machine.
func solveBudget(s config.Solver, spec puzzle.Spec, mode result.Mode) search.Budget {
	return search.Grant(search.Budget{MaxNodes: s.MaxNodes, Timeout: s.Timeout}, policy.DefaultTimeout(spec, mode), search.Budget{})
}

// budgetTable is the --help table of default budgets, read from the
// policy table (internal/policy) so that it cannot drift from it.
func budgetTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-40s %-8s %s\n", "puzzle", "optimal", "fast")
	for _, c := range policy.Classes() {
		fmt.Fprintf(&b, "  %-40s %-8v %v\n", c.Label, policy.DefaultTimeout(c.Spec, result.ModeOptimal), policy.DefaultTimeout(c.Spec, result.ModeFast))
	}
	return b.String()
}

// fastNodesText is the --help list of the fast modes' default node
// budgets, from the constants the searches read.
func fastNodesText() string {
	return fmt.Sprintf("  %-40s %d nodes (%d without loopover-5x5-arm8; about %v of one core)\n  %-40s %d nodes (about %v)\n  %-40s %d nodes (about %v)\n  %-40s %d nodes (about %v)",
		"loopover:5x5 two-phase", twophase.DefaultNodes, twophase.DefaultNodesWithoutArm8, twophase.DefaultTime,
		"sliding, weighted IDA* over tables", pdb.FastNodes, search.FastWindow,
		"sliding without tables (24-puzzle)", sliding.FastNodes, time.Second,
		"loopover, IDA* before construction", loopover.FastNodes, search.FastWindow)
}

// solveKeys are the config keys `solverd solve` reads.
var solveKeys = config.Uses("solver.workers", "solver.mode", "solver.max_nodes", "solver.timeout", "solver.threads",
	"solver.tables_dir", "solver.tables", "solver.tables_private")

func goalVar(c *cobra.Command, p *string) {
	c.Flags().StringVar(p, "goal", "", "swap boards only: target 0/1 pattern with as many ones as each state (default: the ones first, row-major)")
}

// goalFlag parses --goal; only swap boards have goals other than the standard one.
func goalFlag(spec puzzle.Spec, text string) (*puzzle.State, error) {
	if text == "" {
		return nil, nil
	}
	if !spec.Family().TakesGoal() {
		return nil, usagef("--goal applies to swap boards only; %s has one goal", spec)
	}
	g, err := puzzle.Parse(spec, text)
	if err != nil {
		return nil, usagef("--goal: %w", err)
	}
	return &g, nil
}

// lineSource yields input states with their 1-based line numbers.
type lineSource interface {
	next() (line int, text string, ok bool, err error)
}

type argLines struct {
	args []string
	i    int
}

func (a *argLines) next() (int, string, bool, error) {
	if a.i >= len(a.args) {
		return 0, "", false, nil
	}
	a.i++
	return a.i, a.args[a.i-1], true, nil
}

// scanLines reads stdin; blank lines and # comments are not states and
// produce no output, but still count for line numbers. A line of any
// length is read (a 1000×1000 board written with spaces is 2 MB); one
// longer than maxStdinLine is not kept: it becomes an invalid answer with
// the reason, and the lines after it are read as usual.
type scanLines struct {
	r    *bufio.Reader
	line int
}

// maxStdinLine bounds one state on stdin: four bytes per cell of the
// largest board (1000×1000) is ample.
const maxStdinLine = 4 << 20

func (s *scanLines) next() (int, string, bool, error) {
	for {
		text, tooLong, err := s.readLine()
		if err != nil && err != io.EOF {
			return 0, "", false, err
		}
		if err == io.EOF && text == "" && !tooLong {
			return 0, "", false, nil
		}
		s.line++
		if tooLong {
			return s.line, "", true, errLineTooLong
		}
		if s.line == 1 {
			// A byte-order mark (Windows editors write one) is not part of
			// the first state; the producer drops it too.
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		t := strings.TrimSpace(text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		return s.line, t, true, nil
	}
}

// errLineTooLong marks a stdin line over maxStdinLine; it is answered, not fatal.
var errLineTooLong = fmt.Errorf("line longer than %d bytes: not read as a state", maxStdinLine)

func (s *scanLines) readLine() (string, bool, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := s.r.ReadSlice('\n')
		if !tooLong && len(buf)+len(chunk) <= maxStdinLine+2 {
			buf = append(buf, chunk...)
		} else {
			tooLong, buf = true, nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) == 0 && !tooLong {
			return "", false, io.EOF
		}
		return strings.TrimRight(string(buf), "\r\n"), tooLong, err
	}
}

type solveTask struct {
	line int
	text string
	out  chan result.Result
}

// solveStream solves states in parallel and prints results in input order.
// A bounded window of pending tasks keeps memory flat on huge inputs.
func solveStream(ctx context.Context, solver *solve.Solver, spec puzzle.Spec, opt solve.Options, src lineSource, workers int, stdout, stderr io.Writer) error {
	tasks := make(chan *solveTask)
	order := make(chan *solveTask, 4*workers)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range tasks {
				t.out <- solver.SolveText(ctx, spec, t.text, opt)
			}
		}()
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(tasks)
		for {
			line, text, ok, err := src.next()
			if errors.Is(err, errLineTooLong) {
				// Answered in order, not solved: the lines after it still are.
				t := &solveTask{line: line, out: make(chan result.Result, 1)}
				// stderr adds the line number, as for every answer.
				t.out <- result.Result{Puzzle: spec.String(), Status: result.StatusInvalid, Error: err.Error()}
				order <- t
				continue
			}
			if err != nil {
				readErr = err
				return
			}
			if !ok {
				return
			}
			t := &solveTask{line: line, text: text, out: make(chan result.Result, 1)}
			order <- t
			tasks <- t
		}
	}()
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	notSolved := 0
	for t := range order {
		r := <-t.out
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("write result: %w", err)
		}
		if r.Status != result.StatusSolved {
			notSolved++
			w.Flush()
			// The reason already names its kind ("unsolvable: ..."): print it
			// once, the status only when there is no reason.
			reason := r.Error
			if reason == "" {
				reason = string(r.Status)
			}
			fmt.Fprintf(stderr, "line %d: %s\n", t.line, reason)
		}
	}
	wg.Wait()
	if readErr != nil {
		return fmt.Errorf("read states: %w", readErr)
	}
	if notSolved > 0 {
		return errRejected
	}
	return nil
}

func verifyCmd() *cobra.Command {
	var p, goal string
	c := &cobra.Command{
		Use:   "verify --puzzle P [--goal G] STATE MOVES",
		Short: "Exit 0 when MOVES take STATE to the goal",
		Args:  nArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			spec, err := parseSpec(p)
			if err != nil {
				return err
			}
			st, err := puzzle.ParseUnchecked(spec, args[0])
			if err != nil {
				fmt.Fprintln(c.ErrOrStderr(), "state:", err)
				return errRejected
			}
			g, err := goalFlag(spec, goal)
			if err != nil {
				return err
			}
			target := st.Goal()
			if g != nil {
				target = *g
			}
			if err := puzzle.VerifyTo(st, args[1], target); err != nil {
				fmt.Fprintln(c.ErrOrStderr(), err)
				return errRejected
			}
			ms, _ := puzzle.ParseMoves(spec, args[1])
			fmt.Fprintf(c.OutOrStdout(), "ok: %d moves reach the goal\n", len(ms))
			return nil
		},
	}
	puzzleFlag(c, &p)
	goalVar(c, &goal)
	return c
}

func bfsCmd() *cobra.Command {
	var p string
	c := &cobra.Command{
		Use:   "bfs --puzzle P",
		Short: "Print the exact distance distribution of a small puzzle: one 'depth count' line per depth",
		Args:  nArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			spec, err := parseSpec(p)
			if err != nil {
				return err
			}
			// The build reports no counts: off a terminal a line every
			// 10 s says it is still going; stdout stays the distribution.
			m := progress.New(c.ErrOrStderr(), "bfs "+spec.String(), "states", -1, progress.Options{})
			t, err := fulltable.Build(spec)
			m.Finish()
			if err != nil {
				return err
			}
			w := bufio.NewWriter(c.OutOrStdout())
			defer w.Flush()
			for d, n := range t.Counts {
				fmt.Fprintf(w, "%d %d\n", d, n)
			}
			return nil
		},
	}
	puzzleFlag(c, &p)
	return c
}

func scrambleCmd() *cobra.Command {
	var p string
	var count, walk int
	var seed uint64
	c := &cobra.Command{
		Use:   "scramble --puzzle P --count N [--seed S] [--walk L]",
		Short: "Print N random solvable states (uniform, or random walks of L moves from the goal)",
		Args:  nArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			spec, err := parseSpec(p)
			if err != nil {
				return err
			}
			if count < 0 || walk < 0 {
				return usagef("--count and --walk must not be negative")
			}
			if !c.Flags().Changed("seed") {
				seed = uint64(time.Now().UnixNano())
				fmt.Fprintf(c.ErrOrStderr(), "seed %d\n", seed)
			}
			rng := rand.New(rand.NewPCG(seed, 0x7e55e7a))
			w := bufio.NewWriter(c.OutOrStdout())
			defer w.Flush()
			for i := 0; i < count; i++ {
				var st puzzle.State
				if c.Flags().Changed("walk") {
					st = puzzle.RandomWalk(spec, rng, walk)
				} else {
					st = puzzle.Random(spec, rng)
				}
				fmt.Fprintln(w, st.String())
			}
			return nil
		},
	}
	puzzleFlag(c, &p)
	c.Flags().IntVarP(&count, "count", "n", 1, "how many states")
	c.Flags().Uint64Var(&seed, "seed", 0, "random seed (default: from the clock, printed on stderr)")
	c.Flags().IntVar(&walk, "walk", 0, "random walk of this many moves from the goal instead of a uniform state")
	return c
}
