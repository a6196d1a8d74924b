package store_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/internal/store"
	"github.com/tessera-solver/tessera/internal/store/storetest"
)

// Brute-force definitions over solutions, what the per-puzzle tables must
// always equal: each distinct state of a puzzle once, as its least
// (length, batch_id, seq) proved-optimal row.
const (
	bruteStates = `SELECT DISTINCT ON (h) sha256(convert_to(state, 'UTF8')) AS h, length, batch_id, seq, nodes
		FROM solutions WHERE puzzle = $1 AND optimal ORDER BY h, length, batch_id, seq`
	bruteScrambles = `SELECT batch_id || ' ' || seq FROM (` + bruteStates + `) AS d
		WHERE length = $2 AND nodes BETWEEN $3 AND $4 AND (batch_id, seq) > ($5, $6)
		ORDER BY batch_id, seq LIMIT $7`
)

// checkOracle compares everything derived from puzzle_states with the
// brute-force answers over solutions.
func checkOracle(t *testing.T, s *store.Store, puzzle string) {
	t.Helper()
	ctx := ctxT(t)
	q := func(sql string, args ...any) []string {
		t.Helper()
		out, err := s.QueryStrings(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, sql)
		}
		return out
	}
	got := q(`SELECT encode(state_hash, 'hex') || ' ' || length || ' ' || batch_id || ' ' || seq
		FROM puzzle_states WHERE puzzle = $1 ORDER BY 1`, puzzle)
	want := q(`SELECT encode(h, 'hex') || ' ' || length || ' ' || batch_id || ' ' || seq
		FROM (`+bruteStates+`) AS d ORDER BY 1`, puzzle)
	if !slices.Equal(got, want) {
		t.Errorf("puzzle_states (%d) differ from the brute force (%d):\n got %v\nwant %v", len(got), len(want), got, want)
	}
	hist := q(`SELECT length || ' ' || count(*) FROM (`+bruteStates+`) AS d GROUP BY length ORDER BY length`, puzzle)
	d, err := s.PuzzleDistribution(ctx, puzzle)
	if err != nil {
		t.Fatal(err)
	}
	var gotHist []string
	for _, c := range d.Counts {
		gotHist = append(gotHist, fmt.Sprintf("%d %d", c.Length, c.Count))
	}
	if !slices.Equal(gotHist, hist) {
		t.Errorf("PuzzleDistribution = %v, brute force %v", gotHist, hist)
	}
	if neg := q(`SELECT length::text FROM puzzle_counts WHERE count < 0`); len(neg) > 0 {
		t.Errorf("negative counts at lengths %v", neg)
	}
	for l := 0; l <= 30; l++ {
		n, err := s.DistinctAtLength(ctx, puzzle, l)
		if err != nil {
			t.Fatal(err)
		}
		w := q(`SELECT count(*)::text FROM (`+bruteStates+`) AS d WHERE length = $2`, puzzle, l)
		if fmt.Sprint(n) != w[0] {
			t.Errorf("DistinctAtLength(%d) = %d, brute force %s", l, n, w[0])
		}
		if n == 0 {
			continue
		}
		for _, nodes := range [][2]int64{{0, 1 << 62}, {5, 15}} {
			// Whole, and in pages of 2 walked with the cursor.
			all := scrambleKeys(t, s, store.ScrambleQuery{Puzzle: puzzle, Length: l, Count: 10000, MinNodes: nodes[0], MaxNodes: nodes[1]})
			if w := q(bruteScrambles, puzzle, l, nodes[0], nodes[1], 0, -1, 10000); !slices.Equal(all, w) {
				t.Errorf("scrambles at %d, nodes %v = %v, brute force %v", l, nodes, all, w)
			}
			var paged []string
			var ab, as int64
			for {
				page := scrambleKeys(t, s, store.ScrambleQuery{Puzzle: puzzle, Length: l, Count: 2,
					MinNodes: nodes[0], MaxNodes: nodes[1], AfterBatch: ab, AfterSeq: as})
				if w := q(bruteScrambles, puzzle, l, nodes[0], nodes[1], ab, as, 2); !slices.Equal(page, w) {
					t.Errorf("scrambles at %d after (%d, %d) = %v, brute force %v", l, ab, as, page, w)
				}
				paged = append(paged, page...)
				if len(page) < 2 {
					break
				}
				fmt.Sscan(page[1], &ab, &as)
			}
			if !slices.Equal(paged, all) {
				t.Errorf("scrambles at %d in pages = %v, whole %v", l, paged, all)
			}
		}
	}
}

func scrambleKeys(t *testing.T, s *store.Store, sq store.ScrambleQuery) []string {
	t.Helper()
	rows, err := s.ServeScrambles(ctxT(t), sq)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		if !r.Optimal || r.Length == nil || *r.Length != sq.Length {
			t.Errorf("scramble %+v: not an optimal row of length %d", r, sq.Length)
		}
		out = append(out, fmt.Sprintf("%d %d", r.BatchID, r.Seq))
	}
	return out
}

// One row to write: a state and an answer (length >= 0 optimal, -1
// budget_exceeded, -2 solved without proof).
type row struct {
	state  string
	length int
	nodes  int64
}

func msgOf(batch, seq int64, replace bool, rows ...row) job.Results {
	rs := job.Results{V: job.Version, JobID: fmt.Sprintf("%d-%d", batch, seq), BatchID: batch, Puzzle: p8, FirstSeq: seq, Replace: replace}
	solver := "test"
	if replace {
		rs.JobID, solver = rs.JobID+"-r", "requeue"
	}
	for _, w := range rows {
		r := result.Result{Puzzle: p8, State: w.state, Solver: solver, Nodes: w.nodes}
		switch {
		case w.length >= 0:
			r.Status, r.Length, r.Optimal, r.LowerBound = result.StatusSolved, w.length, true, w.length
			r.Moves = strings.TrimSpace(strings.Repeat("R ", w.length))
		case w.length == -1:
			r.Status, r.LowerBound = result.StatusBudgetExceeded, 3
		default:
			r.Status, r.Length, r.Moves = result.StatusSolved, 30, strings.TrimSpace(strings.Repeat("L ", 30))
		}
		rs.Results = append(rs.Results, r)
	}
	return rs
}

// The writer's per-puzzle tables against the brute force, after random
// messages over a small pool of states (so states recur within and across
// batches, with different lengths as with a swap board's goals),
// redelivered up to three times, collisions (another state at a stored
// place), and requeue replacements (optimal rows made shorter, unproved
// ones proved), written in random order by three concurrent writers.
func TestPuzzleStatesOracle(t *testing.T) {
	t.Parallel()
	s := storetest.NewStore(t)
	ctx := ctxT(t)
	rng := rand.New(rand.NewPCG(7, 30))
	const nStates, per, perBatch = 40, 4, 15
	ids := []int64{mustBatch(t, s, -1), mustBatch(t, s, -1), mustBatch(t, s, -1)}
	state := func() string { return fmt.Sprintf("state %d", rng.IntN(nStates)) }
	var msgs []job.Results
	for _, id := range ids {
		for m := int64(0); m < perBatch; m++ {
			rows := make([]row, per)
			for i := range rows {
				rows[i] = row{state(), rng.IntN(28) - 2, rng.Int64N(20)}
			}
			msgs = append(msgs, msgOf(id, m*per, false, rows...))
			switch rng.IntN(6) {
			case 0: // a collision: another job over the same places
				c := make([]row, per)
				for i := range c {
					c[i] = row{state(), rng.IntN(26), rng.Int64N(20)}
				}
				col := msgOf(id, m*per, false, c...)
				col.JobID += "-other"
				msgs = append(msgs, col)
			case 1: // a requeue: each row shorter, or proved
				r := slices.Clone(rows)
				for i := range r {
					r[i].length = max(0, r[i].length) / 2
					r[i].nodes = rng.Int64N(20)
				}
				msgs = append(msgs, msgOf(id, m*per, true, r...))
			}
		}
	}
	writeRedelivered(t, ctx, s, rng, msgs, 6)
	// The messages made every kind of change the tables must follow.
	for what, sql := range map[string]string{
		"states in two batches": `SELECT count(*)::text FROM (SELECT state FROM solutions WHERE optimal
			GROUP BY state HAVING count(DISTINCT batch_id) > 1) AS x`,
		"states with two optimal lengths": `SELECT count(*)::text FROM (SELECT state FROM solutions WHERE optimal
			GROUP BY state HAVING count(DISTINCT length) > 1) AS x`,
		"collisions":        `SELECT count(*)::text FROM dead_letters WHERE source = 'collision'`,
		"rows of a requeue": `SELECT count(*)::text FROM solutions WHERE solver = 'requeue'`,
		"rows not optimal":  `SELECT count(*)::text FROM solutions WHERE NOT optimal`,
	} {
		if n, err := s.QueryStrings(ctx, sql); err != nil || n[0] == "0" {
			t.Errorf("%s: %v %v: the test does not exercise it", what, n, err)
		}
	}
	checkOracle(t, s, p8)
}

// Messages written once each, none stored before, take the writer's fast
// path, where the Store skips the states it knows cannot change: the
// tables against the brute force when states recur across writes, with
// keys above and below the ones stored, from three concurrent writers
// sharing one Store, then from a second Store that knows none of them.
func TestPuzzleStatesOracleFastPath(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	u := storetest.SchemaURL(t)
	open := func() *store.Store {
		s, err := store.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	s, other := open(), open()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 30))
	const nStates, per, perBatch = 30, 4, 40
	ids := []int64{mustBatch(t, s, -1), mustBatch(t, s, -1), mustBatch(t, s, -1)}
	var msgs []job.Results
	for _, id := range ids {
		for m := int64(0); m < perBatch; m++ {
			rows := make([]row, per)
			for i := range rows {
				// Mostly optimal, lengths of a few values so that keys tie
				// on length and differ in (batch, seq), or fall.
				rows[i] = row{fmt.Sprintf("state %d", rng.IntN(nStates)), rng.IntN(6) - 1, rng.Int64N(20)}
			}
			msgs = append(msgs, msgOf(id, m*per, false, rows...))
		}
	}
	rng.Shuffle(len(msgs), func(i, j int) { msgs[i], msgs[j] = msgs[j], msgs[i] })
	half := len(msgs) / 2
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range 3 {
		wg.Go(func() {
			for {
				mu.Lock()
				if next >= half {
					mu.Unlock()
					return
				}
				k := min(1+rng.IntN(3), half-next)
				b := msgs[next : next+k]
				next += k
				mu.Unlock()
				// Retried as in writeRedelivered; a deadlock fails.
				for attempt := 0; ; attempt++ {
					_, err := s.InsertResults(ctx, b)
					if err == nil {
						break
					}
					if errors.Is(err, store.ErrRejected) || isDeadlock(err) || attempt == 20 {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	checkOracle(t, s, p8)
	for i := half; i < len(msgs); i++ {
		w := s
		if i%2 == 1 {
			w = other
		}
		if _, err := w.InsertResults(ctx, msgs[i:i+1]); err != nil {
			t.Fatal(err)
		}
	}
	checkOracle(t, s, p8)
}

// Migration 007 fills the per-puzzle tables from the rows stored before
// it, and the writer goes on from there.
func TestPuzzleStatesBackfill(t *testing.T) {
	t.Parallel()
	s := storetest.Open(t)
	ctx := ctxT(t)
	if err := s.MigrateTo(ctx, 6); err != nil {
		t.Fatal(err)
	}
	// Rows as an older writer stored them: states repeated across batches,
	// with two lengths, and rows that are not proved optimal.
	if err := s.Exec(ctx, `INSERT INTO solutions (batch_id, seq, puzzle, state, moves, length, optimal, lower_bound, nodes, status)
		SELECT 1 + g % 3, g, $1, 'state ' || (g % 17), '', CASE WHEN g % 5 = 4 THEN NULL ELSE 3 + (g * 7) % 11 END,
		       g % 5 < 3, 0, g % 20, CASE WHEN g % 5 = 4 THEN 'failed' ELSE 'solved' END
		FROM generate_series(0, 99) AS g`, p8); err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.QueryStrings(ctx, `SELECT count(*)::text FROM puzzle_states`); n[0] != "17" {
		t.Errorf("backfill holds %v states, want 17", n)
	}
	checkOracle(t, s, p8)
	// New rows after the backfill: new states, old ones again, one shorter.
	if _, err := s.InsertResults(ctx, []job.Results{msgOf(4, 0, false,
		row{"state 3", 1, 2}, row{"state 99", 6, 7}, row{"state 5", 20, 1}, row{"state 98", -2, 0})}); err != nil {
		t.Fatal(err)
	}
	checkOracle(t, s, p8)
	if err := s.MigrateTo(ctx, 6); err != nil { // and the down migration drops them
		t.Fatal(err)
	}
	if n, _ := s.QueryStrings(ctx, `SELECT count(*)::text FROM pg_tables WHERE tablename IN ('puzzle_states', 'puzzle_counts')
		AND schemaname = current_schema()`); n[0] != "0" {
		t.Errorf("after the down migration %v tables are left", n)
	}
}
