package worker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tessera-solver/tessera/internal/instances"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/search"
	"github.com/tessera-solver/tessera/internal/sliding/pdb"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/worker"
)

var (
	pdb555Once sync.Once
	pdb555     *pdb.Set
)

// solver555 is a solver over the 5-5-5 tables of the 15-puzzle, built in
// memory once (a third of a second).
func solver555(t *testing.T) *solve.Solver {
	t.Helper()
	pdb555Once.Do(func() {
		pdbs, _, err := pdb.BuildPartition(context.Background(), pdb.Partition555, pdb.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if pdb555, err = pdb.NewSet(pdbs...); err != nil {
			t.Fatal(err)
		}
	})
	if pdb555 == nil {
		t.Fatal("no tables")
	}
	return solve.New(solve.NewRegistry(solve.Entry{Name: "15-pdb-555",
		Serves: func(sp puzzle.Spec, _ result.Mode) bool {
			return sp.Kind == puzzle.Sliding && sp.Rows == 4 && sp.Cols == 4
		},
		New: func(puzzle.Spec) (search.Algorithm, error) { return pdb.NewSolver(pdb555, true) }}))
}

// korfStates are some of Korf's 100 with their optimal lengths.
func korfStates(ids ...int) (texts []string, opt map[string]int) {
	opt = map[string]int{}
	want := map[int]bool{}
	for _, id := range ids {
		want[id] = true
	}
	spec, _ := puzzle.ParseSpec("sliding:4x4")
	for _, k := range instances.Korf100() {
		if want[k.ID] {
			s := puzzle.State{Spec: spec, Cells: k.Cells}.String()
			texts = append(texts, s)
			opt[s] = k.Opt
		}
	}
	return texts, opt
}

// splitJob is a split job of one state.
func splitJob(batch, seq int64, state string) job.Job {
	return job.Job{V: job.Version, ID: fmt.Sprintf("%d-%d", batch, seq), BatchID: batch, Puzzle: "sliding:4x4", FirstSeq: seq,
		States: []string{state}, Mode: "optimal", Split: true}
}

// checkSplitRow checks a split row against the unsplit solve of its state.
func checkSplitRow(t *testing.T, r result.Result, opt int, sv *solve.Solver) {
	t.Helper()
	spec, _ := puzzle.ParseSpec(r.Puzzle)
	st, err := puzzle.Parse(spec, r.State)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := puzzle.ParseMoves(spec, r.Moves)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != result.StatusSolved || !r.Optimal || r.Length != opt || r.LowerBound != opt || puzzle.VerifyMoves(st, ms, st.Goal()) != nil {
		t.Fatalf("split row %+v, optimum %d", r, opt)
	}
	whole := sv.SolveText(context.Background(), spec, r.State, solve.Options{})
	if whole.Length != r.Length || whole.Optimal != r.Optimal || whole.Status != r.Status {
		t.Fatalf("split %+v, unsplit %+v", r, whole)
	}
}

// Split jobs through NATS, on two processes of one worker each: every
// state's row is the unsplit solve's (optimal length, replayed moves,
// optimal true, lower bound = length), the record has ended solved with
// its subtrees counted, and subtree jobs were published.
func TestSplitSolvesLikeUnsplit(t *testing.T) {
	e := newEnv(t, fastConfig())
	sv := solver555(t)
	var published sync.Map
	for p := range 2 {
		e.start(t, worker.Options{Workers: 1, Solve: sv.SolveText, Split: sv.Split, SubtreeNodes: 4096,
			OnSubtrees: func(n int) { v, _ := published.LoadOrStore(p, new(int)); *v.(*int) += n }})
	}
	states, opt := korfStates(1, 2, 5, 6, 9)
	for i, s := range states {
		e.publish(t, splitJob(31, int64(i), s))
	}
	got := e.results(t, len(states))
	splits, err := queue.OpenSplits(e.ctx, e.js, e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range got {
		r := rs.Results[0]
		checkSplitRow(t, r, opt[r.State], sv)
		rec, _, err := splits.Get(e.ctx, job.SplitKey(31, rs.FirstSeq))
		if err != nil || rec.End != job.EndSolved || rec.Nodes != r.Nodes || rec.Iteration < 2 || rec.Exhausted == 0 {
			t.Fatalf("record %+v %v, row nodes %d", rec, err, r.Nodes)
		}
		if rs.JobID != fmt.Sprintf("%d-%d", 31, rs.FirstSeq) {
			t.Fatalf("results id %s", rs.JobID)
		}
	}
	n := 0
	published.Range(func(_, v any) bool { n += *v.(*int); return true })
	if n == 0 {
		t.Fatal("no subtree job was published: nothing was split")
	}
	t.Logf("%d subtree jobs", n)
}
