package solverkit

import (
	"context"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"
)

// The one worker constructor carries the host's counts, caps, threads and
// streams' settings into worker.Options, and the metrics when configured:
// what `solverd run` and `producer --local` both run.
func TestWorkerOptions(t *testing.T) {
	s := config.Solver{Workers: 3, QuickWorkers: 2, MaxNodes: 100, Timeout: time.Second, Threads: 4}
	qc := cmdkit.QueueConfig(config.NATS{MaxDeliver: 7, AckWait: time.Minute, Replicas: 3})
	solveText := fakeSolver(func(_ context.Context, spec puzzle.Spec, _ string, _ solve.Options) result.Result {
		return result.Result{Puzzle: spec.String(), Status: result.StatusSolved}
	})
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}

	opts := WorkerOptions(s, qc, solveText, nil, nil)
	if opts.Workers != 3 || opts.QuickWorkers != 2 || opts.Queue == nil || opts.Queue.Replicas != 3 || opts.OnJob != nil {
		t.Errorf("options %+v", opts)
	}
	if opts.Split == nil {
		t.Error("no splitter: jobs marked split would be solved whole")
	}
	if opts.Ceiling != (search.Budget{MaxNodes: 100, Timeout: time.Second}) || opts.Threads != 4 {
		t.Errorf("ceiling %+v, threads %d: want the host's caps and threads", opts.Ceiling, opts.Threads)
	}

	reg := metrics.NewRegistry()
	opts = WorkerOptions(s, qc, solveText, nil, metrics.NewSolver(reg))
	if opts.OnJob == nil {
		t.Fatal("metrics configured, but no job is counted")
	}
	opts.Solve(context.Background(), spec, "", solve.Options{Mode: result.ModeOptimal})
	mf, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counted := false
	for _, f := range mf {
		for _, m := range f.GetMetric() {
			if m.GetCounter().GetValue() > 0 {
				counted = true
			}
		}
	}
	if !counted {
		t.Error("the answer was not counted in the solver's metrics")
	}
}

type fakeSolver func(context.Context, puzzle.Spec, string, solve.Options) result.Result

func (f fakeSolver) SolveText(ctx context.Context, spec puzzle.Spec, text string, opt solve.Options) result.Result {
	return f(ctx, spec, text, opt)
}

func (f fakeSolver) Split(puzzle.Spec, func(search.Splitter) error) (bool, error) { return false, nil }
