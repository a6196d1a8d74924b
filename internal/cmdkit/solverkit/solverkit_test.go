package solverkit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/metrics"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

// The one worker constructor carries the host's counts, caps, threads and
// streams' settings into worker.Options, and the metrics when configured:
// what `solverd run` and `producer --local` both run.
func TestWorkerOptions(t *testing.T) {
	s := config.Solver{Workers: 3, QuickWorkers: 2, MaxNodes: 100, Timeout: time.Second, Threads: 4}
	qc := cmdkit.QueueConfig(config.NATS{MaxDeliver: 7, AckWait: time.Minute, Replicas: 3})
	solveText := fakeSolver(func(_ context.Context, spec puzzle.Spec, _ string, _ solve.Options) result.Result {
		return result.Result{Puzzle: spec.String(), Status: result.StatusSolved, Nodes: 1234}
	})
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}

	opts := WorkerOptions(s, qc, solveText, nil, nil, nil)
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
	opts = WorkerOptions(s, qc, solveText, nil, metrics.NewSolver(reg), nil)
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

// A job taken up shows in the process's registry entry with its nodes so
// far, which are exact once its solves end; a split search's nodes count
// in tessera_solver_nodes_total where they were searched, not in the
// split row's; jobs carry their lane, redeliveries are counted, and the
// configured workers are a gauge.
func TestWorkerOptionsPresence(t *testing.T) {
	s := config.Solver{Workers: 3, QuickWorkers: 2}
	qc := cmdkit.QueueConfig(config.NATS{MaxDeliver: 7, AckWait: time.Minute, Replicas: 1})
	solveText := fakeSolver(func(_ context.Context, spec puzzle.Spec, _ string, opt solve.Options) result.Result {
		opt.Budget.Progress.Add(1 << 16) // a search's checkpoint
		return result.Result{Puzzle: spec.String(), Status: result.StatusSolved, Nodes: 70000}
	})
	spec := puzzle.Spec{Kind: puzzle.Sliding, Rows: 4, Cols: 4}
	reg := metrics.NewRegistry()
	p := NewPresence("solverd", s)
	opts := WorkerOptions(s, qc, solveText, nil, metrics.NewSolver(reg), p)
	var progress atomic.Int64
	done := opts.OnJob(worker.JobInfo{Lane: "heavy", Batch: 5, FirstSeq: 10, States: 2, Puzzle: "sliding:4x4", Delivery: 3,
		Progress: &progress, Published: time.Now()})
	for range 2 {
		opts.Solve(context.Background(), spec, "", solve.Options{Mode: result.ModeOptimal, Budget: search.Budget{Progress: &progress}})
	}
	e := p.Entry(time.Now())
	if len(e.Jobs) != 1 || e.Jobs[0].Nodes != 140000 || e.Jobs[0].Batch != 5 || e.Jobs[0].Lane != "heavy" || e.Jobs[0].Delivery != 3 {
		t.Fatalf("jobs in flight %+v", e.Jobs)
	}
	if e.Workers != 3 || e.QuickWorkers != 2 || e.Role != "solverd" || e.PID == 0 || e.Host == "" {
		t.Fatalf("entry %+v", e)
	}
	opts.OnSplitNodes("sliding:4x4", 500)
	opts.OnSplitRow("sliding:4x4", result.ModeOptimal, result.Result{Status: result.StatusSolved, Nodes: 1e9})
	done()
	if e := p.Entry(time.Now()); len(e.Jobs) != 0 || e.Nodes != 140500 {
		t.Fatalf("after the job: %+v", e)
	}
	text := gather(t, metrics.Handler(reg))
	for _, want := range []string{
		`tessera_solver_nodes_total{mode="optimal",puzzle="sliding:4x4"} 140500`,
		`tessera_solver_jobs_total{lane="heavy"} 1`,
		`tessera_solver_redeliveries_total{lane="heavy"} 1`,
		`tessera_solver_redeliveries_total{lane="quick"} 0`,
		`tessera_solver_jobs_in_flight{lane="heavy"} 0`,
		`tessera_solver_queue_lag_seconds_count{lane="heavy"} 1`,
		`tessera_solver_workers{lanes="quick+heavy"} 3`,
		`tessera_solver_workers{lanes="quick"} 2`,
		`tessera_solver_solves_total{mode="optimal",puzzle="sliding:4x4",status="solved"} 3`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

func gather(t *testing.T, reg http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	reg.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}
