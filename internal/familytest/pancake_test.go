package familytest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tessera-solver/tessera/config"
	"github.com/tessera-solver/tessera/internal/cmdkit"
	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/natstest"
	"github.com/tessera-solver/tessera/internal/policy"
	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/solve"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
	"github.com/tessera-solver/tessera/internal/worker"
)

// The family is declared once, before any test uses a spec, as a main
// would at start.
func TestMain(m *testing.M) {
	if err := Declare(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// Declaring is refused for a kind or a name in use, and a second
// declaration of the same family changes nothing.
func TestDeclareRefusesClashes(t *testing.T) {
	if err := Declare(); err != nil {
		t.Errorf("declaring the family again: %v", err)
	}
	for _, f := range []puzzle.Family{named{Pancake{}, "sliding", Kind + 1}, named{Pancake{}, "flapjack", Kind}, named{Pancake{}, "stack", puzzle.Swap}, named{Pancake{}, "Big cake", Kind + 2}} {
		if err := puzzle.Declare(f); err == nil {
			t.Errorf("Declare(%s, kind %d) = nil, want refused", f.Name(), f.Kind())
		}
	}
	if _, err := puzzle.ParseSpec("flapjack:2x2"); err == nil {
		t.Error("a refused family's specs parse")
	}
}

// named is a family under another name and kind.
type named struct {
	Pancake
	name string
	kind puzzle.Kind
}

func (n named) Name() string      { return n.name }
func (n named) Kind() puzzle.Kind { return n.kind }

// Specs, boards and moves of the family read, write, apply and verify
// through puzzle's family-neutral code, with its errors.
func TestParseFormatApplyVerify(t *testing.T) {
	sp, err := puzzle.ParseSpec("Pancake:2x3")
	if err != nil || sp.Kind != Kind || sp.String() != "pancake:2x3" {
		t.Fatalf("ParseSpec = %v, %v", sp, err)
	}
	if _, err := puzzle.ParseSpec("pancake:5x5"); !errors.Is(err, puzzle.ErrMalformed) {
		t.Errorf("a board over MaxSide: %v", err)
	}
	if _, err := puzzle.ParseSpec("waffle:2x2"); err == nil || !strings.Contains(err.Error(), "sliding, loopover, swap or pancake") {
		t.Errorf("an unknown kind's error does not list the family: %v", err)
	}
	st, err := puzzle.Parse(sp, "3 2 1/4 5 6")
	if err != nil {
		t.Fatal(err)
	}
	if st.String() != "3 2 1/4 5 6" {
		t.Errorf("String = %q", st.String())
	}
	for text, want := range map[string]string{
		"3 2 1/4 5 5": "pancake 5",
		"3 2 1/4 5 7": "7",
		"3 2 1/4 5":   "",
	} {
		if _, err := puzzle.Parse(sp, text); !errors.Is(err, puzzle.ErrMalformed) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want ErrMalformed naming %q", text, err, want)
		}
	}
	ms, err := puzzle.ParseMoves(sp, "3f 2F2")
	if err != nil || len(ms) != 3 || puzzle.FormatMoves(sp, ms) != "3F 2F 2F" {
		t.Fatalf("ParseMoves = %v, %v", ms, err)
	}
	if err := puzzle.Verify(st, "3F"); err != nil {
		t.Errorf("Verify(3F) = %v", err)
	}
	if err := puzzle.Verify(st, "2F"); !errors.Is(err, puzzle.ErrNotSolved) {
		t.Errorf("Verify(2F) = %v, want ErrNotSolved", err)
	}
	for _, bad := range []string{"7F", "1F", "F", "3X"} {
		if _, err := puzzle.ParseMoves(sp, bad); !errors.Is(err, puzzle.ErrMalformed) {
			t.Errorf("ParseMoves(%q) = %v, want ErrMalformed", bad, err)
		}
	}
	inv := puzzle.InvertMoves(sp, ms)
	c := st.Clone()
	if err := c.ApplyMoves(append(ms, inv...)); err != nil || !c.Equal(st) {
		t.Errorf("moves then their inverse: %v, %v", c, err)
	}
}

// Random boards and walks of the family, solved through the facade of
// a registry with its entry: every answer replayed and as short as the
// breadth-first distance, the 8-puzzle still answered by the built-ins.
func TestSolvedAndReplayed(t *testing.T) {
	sv := solve.New(solve.NewRegistry(append([]solve.Entry{Entry()}, solve.Builtin()...)...))
	sp := puzzle.Spec{Kind: Kind, Rows: 2, Cols: 4}
	table := NewTable(sp)
	if n := len(table.dist); n != 40320 {
		t.Fatalf("the table holds %d stacks of 8, want 8! = 40320", n)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for i := range 200 {
		st := puzzle.Random(sp, rng)
		if i%2 == 1 {
			st = puzzle.RandomWalk(sp, rng, 1+i%9)
		}
		r := sv.Solve(ctx, st, solve.Options{Mode: result.ModeOptimal})
		if r.Status != result.StatusSolved || !r.Optimal || r.Solver != "pancake table" {
			t.Fatalf("%s: %+v", st, r)
		}
		if err := puzzle.Verify(st, r.Moves); err != nil {
			t.Fatalf("%s: the answer %q does not replay: %v", st, r.Moves, err)
		}
		if d := table.Distance(st.Cells); r.Length != d {
			t.Fatalf("%s: %d moves, the distance is %d", st, r.Length, d)
		}
	}
	if r := sv.SolveText(ctx, puzzle.Spec{Kind: Kind, Rows: 4, Cols: 4}, puzzle.Goal(puzzle.Spec{Kind: Kind, Rows: 4, Cols: 4}).String(), solve.Options{}); r.Status != result.StatusFailed || !strings.Contains(r.Error, "at most 9") {
		t.Errorf("a stack too large for the table: %+v", r)
	}
	if r := sv.SolveText(ctx, puzzle.Spec{Kind: puzzle.Sliding, Rows: 3, Cols: 3}, "1 2 3/4 5 6/7 0 8", solve.Options{}); r.Status != result.StatusSolved || r.Length != 1 {
		t.Errorf("the 8-puzzle beside the family: %+v", r)
	}
	// A family without a policy row gets the defaults: a quick lane, the
	// default budget, tiny boards chunked.
	if lane := policy.LaneOf(sp, result.ModeOptimal, 0); lane != job.LaneQuick {
		t.Errorf("lane %v", lane)
	}
}

// Through the pipeline: jobs of the family published to JetStream, a
// worker solving them with the family's entry, the writer storing the rows
// in PostgreSQL; every state ends as one row, solved, optimal and
// replayable.
func TestThroughThePipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("needs PostgreSQL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := store.Open(ctx, storetest.SchemaURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	_, nc := natstest.Server(t)
	cfg := config.Default()
	conn, err := cmdkit.Adopt(nc, cfg.NATS)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	src, deadSrc, err := conn.WriterSources(ctx, log)
	if err != nil {
		t.Fatal(err)
	}

	const n = 300
	spec := "pancake:3x3"
	sp, err := puzzle.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := st.CreateBatch(ctx, spec, string(result.ModeOptimal), n)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	states := make([]string, n)
	for i := range states {
		states[i] = puzzle.Random(sp, rng).String()
	}
	chunk := policy.ChunkSize(sp, result.ModeOptimal, 0, 1<<20)
	pub := queue.NewPublisher(conn.JS, 8)
	for first := 0; first < n; first += chunk {
		last := min(first+chunk, n)
		j := job.Job{V: job.Version, ID: fmt.Sprintf("%d-%d", batch, first), BatchID: batch, Puzzle: spec,
			FirstSeq: int64(first), States: states[first:last], Mode: string(result.ModeOptimal)}
		if err := pub.Publish(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	if err := pub.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	runCtx, stop := context.WithCancel(ctx)
	loops := cmdkit.NewLoops(runCtx, "pancake pipeline")
	sv := solve.New(solve.NewRegistry(append([]solve.Entry{Entry()}, solve.Builtin()...)...))
	q := conn.Queue
	loops.Go("worker", func(ctx context.Context) error {
		return worker.Run(ctx, conn.JS, worker.Options{Workers: 2, Queue: &q, Solve: sv.SolveText, Log: log, PollWait: 50 * time.Millisecond})
	})
	loops.Go("writer", func(ctx context.Context) error {
		return cmdkit.RunWriter(ctx, src, deadSrc, st, nil, cfg.Results, log)
	})
	defer func() {
		stop()
		if err := loops.Stop(); err != nil {
			t.Errorf("pipeline stop: %v", err)
		}
	}()

	for {
		b, err := st.BatchProgress(ctx, batch)
		if err != nil {
			t.Fatal(err)
		}
		if b.Done == n {
			if b.Solved != n {
				t.Fatalf("batch %d: %d solved of %d: %+v", batch, b.Solved, n, b)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("batch %d: %d rows of %d after a minute", batch, b.Done, n)
		case <-time.After(50 * time.Millisecond):
		}
	}
	rows, err := st.BatchRows(ctx, batch, nil, -1, n+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	table := NewTable(sp)
	for _, r := range rows {
		s, err := puzzle.Parse(sp, r.State)
		if err != nil || r.State != states[r.Seq] {
			t.Fatalf("row %d: state %q, published %q (%v)", r.Seq, r.State, states[r.Seq], err)
		}
		if r.Moves == nil || r.Length == nil || !r.Optimal || r.Solver != "pancake table" {
			t.Fatalf("row %d: %+v", r.Seq, r)
		}
		if err := puzzle.Verify(s, *r.Moves); err != nil {
			t.Fatalf("row %d: %v", r.Seq, err)
		}
		if d := table.Distance(s.Cells); *r.Length != d {
			t.Fatalf("row %d: %d moves, distance %d", r.Seq, *r.Length, d)
		}
	}
}
