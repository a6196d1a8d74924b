package store_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
)

// TestRowsAsWritten reads back every column of rows of each kind, written
// by the direct COPY and by the staged path: the binary COPY encoding
// (copyrows.go) stores what the messages say, with NULL moves and length
// unless solved, optimal only when solved, and NULL for no error.
func TestRowsAsWritten(t *testing.T) {
	t.Parallel()
	s, ctx, _ := oneBatch(t, 0)
	msg := func(batch, seq int64) job.Results {
		rs := job.Results{V: job.Version, JobID: fmt.Sprint("rows-", batch, "-", seq), BatchID: batch, Puzzle: p8, FirstSeq: seq}
		rs.Results = []result.Result{
			{Puzzle: p8, State: "8 1 3/4 0 2/7 6 5", Status: result.StatusSolved, Moves: "U L D", Length: 3,
				Optimal: true, LowerBound: 3, Nodes: 3, ElapsedMS: 0.125, Solver: "bfs-table"},
			{State: "état ☃ 😀", Status: result.StatusSolved, Moves: "", Length: 0, Nodes: 1 << 40,
				ElapsedMS: 1e-7, Solver: "", Error: "a note, kept", Attempts: 2}, // the message's puzzle; not optimal
			{Puzzle: p8, State: "1 2 3", Status: result.StatusBudgetExceeded, Moves: "ignored", Length: 9,
				Optimal: true, LowerBound: 2147483647, Nodes: -1, ElapsedMS: 12345.5, Solver: "ida*",
				Error: "budget: \"quoted\" \\ back\tslash\nline"},
			{Puzzle: p8, State: "x", Status: result.StatusFailed, Error: "", Attempts: 3},
		}
		return rs
	}
	want := func(batch, seq int64) []string {
		return []string{
			fmt.Sprintf("%d|%d|sliding:3x3|8 1 3/4 0 2/7 6 5|U L D|3|t|3|3|0.125|bfs-table|solved|<null>|1", batch, seq),
			fmt.Sprintf("%d|%d|sliding:3x3|état ☃ 😀||0|f|0|1099511627776|1e-07||solved|a note, kept|2", batch, seq+1),
			fmt.Sprintf("%d|%d|sliding:3x3|1 2 3|<null>|<null>|f|2147483647|-1|12345.5|ida*|budget_exceeded|budget: \"quoted\" \\ back\tslash\nline|1", batch, seq+2),
			fmt.Sprintf("%d|%d|sliding:3x3|x|<null>|<null>|f|0|0|0||failed|<null>|3", batch, seq+3),
		}
	}
	direct := mustBatch(t, s, 0)
	if n, err := s.InsertResults(ctx, []job.Results{msg(direct, 0)}); err != nil || n != 4 {
		t.Fatalf("direct: inserted %d, %v; want 4", n, err)
	}
	// A message stored before sends the next write down the staged path.
	staged := mustBatch(t, s, 0)
	first := res(staged, 0, 1)
	if _, err := s.InsertResults(ctx, []job.Results{first}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.InsertResults(ctx, []job.Results{first, msg(staged, 1)}); err != nil || n != 4 {
		t.Fatalf("staged: inserted %d, %v; want 4", n, err)
	}
	for _, c := range []struct {
		batch, seq int64
	}{{direct, 0}, {staged, 1}} {
		got, err := s.QueryStrings(ctx, `SELECT concat_ws('|', batch_id, seq, puzzle, state, coalesce(moves, '<null>'),
			coalesce(length::text, '<null>'), optimal, lower_bound, nodes, solve_ms, solver, status, coalesce(error, '<null>'), attempts)
			FROM solutions WHERE batch_id = $1 AND seq >= $2 ORDER BY seq`, c.batch, c.seq)
		if err != nil {
			t.Fatal(err)
		}
		if w := want(c.batch, c.seq); strings.Join(got, "\n") != strings.Join(w, "\n") {
			t.Errorf("batch %d rows:\n%s\nwant:\n%s", c.batch, strings.Join(got, "\n"), strings.Join(w, "\n"))
		}
	}
}
