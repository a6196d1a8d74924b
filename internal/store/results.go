package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tessera-solver/tessera/internal/result"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tessera-solver/tessera/internal/job"
)

// ValidateResults checks one results message before it is written. An
// error wraps ErrRejected and names the offending field; such a message
// can never be stored and retrying it is pointless.
func ValidateResults(rs job.Results) error {
	if rs.V != job.Version {
		return fmt.Errorf("results %q: wire version %d, want %d: %w", rs.JobID, rs.V, job.Version, ErrRejected)
	}
	if rs.BatchID <= 0 {
		return fmt.Errorf("results %q: batch %d: want a positive batch id: %w", rs.JobID, rs.BatchID, ErrRejected)
	}
	if rs.FirstSeq < 0 {
		return fmt.Errorf("results %q: seq %d: want 0 or more: %w", rs.JobID, rs.FirstSeq, ErrRejected)
	}
	if err := checkText(rs.Puzzle); err != nil {
		return fmt.Errorf("results %q: puzzle: %w", rs.JobID, err)
	}
	for i, r := range rs.Results {
		if err := validateResult(rs, r); err != nil {
			return fmt.Errorf("results %q (batch %d seq %d): %w", rs.JobID, rs.BatchID, rs.FirstSeq+int64(i), err)
		}
	}
	return nil
}

func validateResult(rs job.Results, r result.Result) error {
	if !r.Status.Valid() {
		return fmt.Errorf("status %q unknown: %w", r.Status, ErrRejected)
	}
	if rs.Puzzle == "" && r.Puzzle == "" {
		return fmt.Errorf("no puzzle: %w", ErrRejected)
	}
	if r.Status == result.StatusSolved && (r.Length < 0 || r.Length > math.MaxInt32) {
		return fmt.Errorf("length %d: %w", r.Length, ErrRejected)
	}
	if r.LowerBound < 0 || r.LowerBound > math.MaxInt32 {
		return fmt.Errorf("lower_bound %d: %w", r.LowerBound, ErrRejected)
	}
	for _, f := range []struct{ name, v string }{
		{"puzzle", r.Puzzle}, {"state", r.State}, {"moves", r.Moves}, {"solver", r.Solver}, {"error", r.Error},
	} {
		if err := checkText(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil
}

// checkText refuses what PostgreSQL text cannot hold.
func checkText(s string) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("not valid UTF-8 text without NUL: %w", ErrRejected)
	}
	return nil
}

// stagingColumns are copied into the per-transaction staging table.
var stagingColumns = []string{"batch_id", "seq", "puzzle", "state", "moves", "length", "optimal",
	"lower_bound", "nodes", "solve_ms", "solver", "status", "error", "attempts"}

// createTemp makes a per-transaction table of stagingColumns. ON COMMIT
// DROP: the table lives for one transaction, so concurrent writers (each
// on its own connection) never see each other's rows.
func createTemp(name string) string {
	return `CREATE TEMP TABLE ` + name + ` (
    batch_id bigint, seq bigint, puzzle text, state text, moves text, length integer,
    optimal boolean, lower_bound integer, nodes bigint, solve_ms double precision,
    solver text, status text, error text, attempts integer
) ON COMMIT DROP`
}

// insertFromStaging moves the staged rows into solutions, skipping those
// already there, and updates distance_counts and the batch counters from
// the RETURNING rows only: a redelivered result inserts nothing and so
// counts nothing. One statement, one round trip; data-modifying CTEs all
// run, and each sees the rows ins returned.
var insertFromStaging = `
WITH ins AS (
    INSERT INTO solutions (batch_id, seq, puzzle, state, moves, length, optimal,
                           lower_bound, nodes, solve_ms, solver, status, error, attempts)
    SELECT batch_id, seq, puzzle, state, moves, length, optimal,
           lower_bound, nodes, solve_ms, solver, status, error, attempts
    FROM tessera_staging
    ORDER BY batch_id, seq
    ON CONFLICT (batch_id, seq) DO NOTHING
    RETURNING batch_id, puzzle, length, optimal, status
), dist AS (
    INSERT INTO distance_counts AS d (puzzle, batch_id, length, count)
    SELECT puzzle, batch_id, length, count(*) FROM ins WHERE optimal
    GROUP BY puzzle, batch_id, length
    ORDER BY puzzle, batch_id, length
    ON CONFLICT (puzzle, batch_id, length) DO UPDATE SET count = d.count + excluded.count
), progress AS (
    UPDATE batches AS b SET
        ` + statusSums + `,
        updated_at      = now(),
        finished_at     = CASE WHEN b.finished_at IS NULL AND b.total IS NOT NULL AND b.done + p.n >= b.total
                               THEN now() ELSE b.finished_at END
    FROM (SELECT batch_id,
                 count(*) AS n,
                 ` + statusFilters + `
          FROM ins GROUP BY batch_id) AS p
    WHERE b.id = p.batch_id
)
SELECT count(*) FROM ins`

// InsertResults writes every result of batch in one transaction and
// returns how many rows were new. Rows already stored (a redelivery, or
// the same message twice in batch) are skipped and count nothing.
//
// Distance counts are counts of OPTIMAL lengths: only rows with status
// solved and optimal=true enter distance_counts; a fast-mode answer's
// length is an upper bound and would distort the distribution. Length and
// moves are stored only for solved rows (NULL otherwise), and optimal is
// forced false for any other status.
//
// Errors wrapping ErrRejected are about the data (see ValidateResults);
// any other error (connection lost, server restarting, deadlock) leaves
// nothing written and the call may be retried as is.
//
// Two paths, one result: the fast path COPYs straight into solutions
// under a savepoint, which succeeds exactly when no row exists yet (the
// common case), and then applies counts computed from the batch itself.
// If any row already exists COPY fails with a unique violation; the
// savepoint is rolled back and the staged path inserts with ON CONFLICT
// DO NOTHING and counts only the RETURNING rows. The fast path halves the
// server's work per row.
func (s *Store) InsertResults(ctx context.Context, batch []job.Results) (int, error) {
	r, err := s.InsertResultsReport(ctx, batch)
	return r.Inserted, err
}

// Report is what one InsertResultsReport call wrote.
type Report struct {
	Inserted int // new rows
	// Collisions are results whose (batch, seq) already holds a different
	// state: each is recorded in dead_letters (source collision), once.
	Collisions int
}

// InsertResultsReport is InsertResults, also reporting the collisions it
// recorded as dead letters: rows that conflict with a stored row of a
// different state are not redeliveries, and must not vanish silently.
func (s *Store) InsertResultsReport(ctx context.Context, batch []job.Results) (Report, error) {
	n := 0
	for _, rs := range batch {
		if err := ValidateResults(rs); err != nil {
			return Report{}, fmt.Errorf("insert results: %w", err)
		}
		n += len(rs.Results)
	}
	if n == 0 {
		return Report{}, nil
	}
	// The distinct-state candidates of the common case (no row stored
	// yet, no replacement) are hashed and sorted while PostgreSQL takes
	// the COPY, instead of after it: the writer is one loop, and this was a
	// third of its own CPU on 8-puzzles. A stale look at the cache only
	// sends more candidates.
	var given func() stateCandidates
	if !hasReplace(batch) {
		ch := make(chan stateCandidates, 1)
		go func() { ch <- candidatesOf(batch, true, &s.states) }()
		given = sync.OnceValue(func() stateCandidates { return <-ch })
	}
	// The rows are encoded once, before the transaction: a retry sends
	// the same bytes.
	buf := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(buf)
	rows := appendCopyRows((*buf)[:0], batch)
	*buf = rows
	var rep Report
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rep = Report{}
		tx, err := c.Begin(ctx)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer tx.Rollback(ctx) // no-op after Commit
		if err := lockBatches(ctx, tx, batchIDs(batch)); err != nil {
			return err
		}
		rep.Inserted, err = copyDirect(ctx, tx, batch, rows, n)
		staged := errors.Is(err, errConflict)
		if staged {
			rep, err = insertStaged(ctx, tx, rows, n)
		}
		if err != nil {
			return err
		}
		if _, err := replaceBetter(ctx, tx, batch); err != nil {
			return err
		}
		if err := lockPuzzles(ctx, tx, puzzlesOf(batch)); err != nil {
			return err
		}
		// Rows that were all just inserted as given need no check
		// against the stored ones (see givenRows).
		var written stateCandidates
		if staged || given == nil {
			written, err = applyStates(ctx, tx, candidatesOf(batch, false, nil), true)
		} else {
			written, err = applyStates(ctx, tx, given(), false)
		}
		if err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		if err := ctx.Err(); err != nil {
			// A commit that returns only because its context cancelled the
			// wait for a synchronous standby is committed on this server
			// alone: not confirmed as the server is configured to confirm,
			// so not reported as written (a retry finds the rows and adds
			// nothing).
			return fmt.Errorf("commit: %w", err)
		}
		s.states.remember(written)
		return nil
	})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = errors.Join(err, s.syncStandbyWait(context.WithoutCancel(ctx)))
		}
		return Report{}, fmt.Errorf("insert results: %w", err)
	}
	return rep, nil
}

// syncStandbyWait explains a write cut by its deadline when the server's
// commits are waiting for a synchronous standby that is not there (a
// promoted standby that kept the old primary's synchronous_standby_names
// waits forever): an error wrapping ErrSyncStandby, or nil when that is
// not the case or the server cannot be asked within a few seconds.
func (s *Store) syncStandbyWait(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var names, commit, server string
	var standbys int64
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		// A role that may not read the senders' details sees a NULL
		// sync_state: counted as connected, so never a false alarm.
		return c.QueryRow(ctx, `SELECT current_setting('synchronous_standby_names'), current_setting('synchronous_commit'),
    (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum') OR sync_state IS NULL),
    coalesce(host(inet_server_addr()) || ':', '') || current_setting('port')`).
			Scan(&names, &commit, &standbys, &server)
	})
	if err != nil || names == "" || standbys > 0 || commit == "off" || commit == "local" {
		return nil
	}
	return fmt.Errorf("%w: commits on %s wait for synchronous_standby_names = %q and no synchronous standby is connected: "+
		"attach a standby it names, or clear it on this server (ALTER SYSTEM SET synchronous_standby_names = ''; SELECT pg_reload_conf())",
		ErrSyncStandby, server, names)
}

func hasReplace(batch []job.Results) bool {
	for _, rs := range batch {
		if rs.Replace {
			return true
		}
	}
	return false
}

// uniqueViolation is SQLSTATE 23505.
const uniqueViolation = "23505"

// errConflict: some row of the batch is already stored.
var errConflict = errors.New("row exists")

// copyDirect is the fast path of InsertResults.
func copyDirect(ctx context.Context, tx pgx.Tx, batch []job.Results, rows []byte, n int) (int, error) {
	sp, err := tx.Begin(ctx) // a savepoint
	if err != nil {
		return 0, fmt.Errorf("savepoint: %w", err)
	}
	if err := copyIn(ctx, sp, "solutions", rows, n); err != nil {
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == uniqueViolation {
			if rerr := sp.Rollback(ctx); rerr != nil {
				return 0, fmt.Errorf("rollback to savepoint: %w", rerr)
			}
			return 0, errConflict
		}
		return 0, fmt.Errorf("copy %d rows: %w", n, rejected(err))
	}
	if err := sp.Commit(ctx); err != nil {
		return 0, fmt.Errorf("release savepoint: %w", err)
	}
	c := countBatch(batch)
	args := []any{c.puzzle, c.distBatch, c.length, c.count, c.batch, c.n}
	for _, a := range c.status {
		args = append(args, a)
	}
	if _, err := tx.Exec(ctx, applyCounts, args...); err != nil {
		return 0, fmt.Errorf("update counts: %w", rejected(err))
	}
	return n, nil
}

// insertStaged is the idempotent path of InsertResults. Rows that were
// not inserted because their place holds a different state are recorded
// as collisions in dead_letters.
func insertStaged(ctx context.Context, tx pgx.Tx, rows []byte, n int) (Report, error) {
	if _, err := tx.Exec(ctx, createTemp("tessera_staging")); err != nil {
		return Report{}, fmt.Errorf("staging table: %w", err)
	}
	if err := copyIn(ctx, tx, "tessera_staging", rows, n); err != nil {
		return Report{}, fmt.Errorf("copy %d rows to staging: %w", n, rejected(err))
	}
	var rep Report
	if err := tx.QueryRow(ctx, insertFromStaging).Scan(&rep.Inserted); err != nil {
		return Report{}, fmt.Errorf("%d rows: %w", n, rejected(err))
	}
	var seen, recorded int
	if err := tx.QueryRow(ctx, recordCollisions).Scan(&seen, &recorded); err != nil {
		return Report{}, fmt.Errorf("record collisions: %w", rejected(err))
	}
	rep.Collisions = recorded
	return rep, nil
}

// A write takes its locks in one order, so that concurrent writers
// (several `results run`, a redelivery beside the first delivery) wait
// for each other instead of deadlocking: first its batches' rows, by id,
// then each puzzle's distinct-state lock, by name; the rows it inserts
// and the counts it moves come under those. Before, three orders met:
// UPDATE … FROM locks batches rows in the order its plan meets them, not
// its input's (two counter updates deadlocked on two batches); the direct
// path's COPY took solutions keys before the counters' batch row, the
// staged path after; and puzzle_counts rows were locked by insertStates,
// then at other lengths by lowerStates (7 deadlocks in 15 runs of
// TestPuzzleStatesOracleFastPath). The writer retried each, so nothing
// was lost, but the work was done twice. Writers of one batch now run
// one after the other; they already did from the counters' update to
// their commit, and DEPLOY.md says more writers are for availability.

// lockBatches takes, in id order, the lock an UPDATE of the counters
// takes (FOR NO KEY UPDATE, which leaves the key-share locks of the
// solutions' foreign key free) on the batches rows of ids (sorted).
func lockBatches(ctx context.Context, tx pgx.Tx, ids []int64) error {
	if _, err := tx.Exec(ctx, `SELECT id FROM batches WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE`, ids); err != nil {
		return fmt.Errorf("lock batches: %w", rejected(err))
	}
	return nil
}

// puzzleLockClass is the first key of the distinct-state locks
// (pg_advisory_xact_lock's two-key space, apart from the migrations'
// one-key lock); the second is the puzzle's hashtext. Two puzzles of one
// hash share a lock, which only serialises them.
const puzzleLockClass = 0x7e55

// lockPuzzles takes the distinct-state lock of each of puzzles (sorted),
// one statement each so that they are taken in that order.
func lockPuzzles(ctx context.Context, tx pgx.Tx, puzzles []string) error {
	for _, p := range puzzles {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, puzzleLockClass, p); err != nil {
			return fmt.Errorf("lock puzzle %s: %w", p, rejected(err))
		}
	}
	return nil
}

// batchIDs is the sorted distinct batch ids of batch's messages.
func batchIDs(batch []job.Results) []int64 {
	ids := make([]int64, 0, len(batch))
	for _, rs := range batch {
		ids = append(ids, rs.BatchID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// puzzlesOf is the sorted distinct puzzles of batch's rows.
func puzzlesOf(batch []job.Results) []string {
	var ps []string
	for i := range batch {
		rs := &batch[i]
		ps = append(ps, rs.Puzzle)
		for j := range rs.Results {
			if p := rowPuzzle(rs, &rs.Results[j]); p != rs.Puzzle {
				ps = append(ps, p)
			}
		}
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

// applyCounts adds a batch's histogram and status counts (as parallel
// arrays) to distance_counts and batches, like the tail of
// insertFromStaging does from its RETURNING rows.
var applyCounts = `
WITH dist AS (
    INSERT INTO distance_counts AS d (puzzle, batch_id, length, count)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::bigint[])
    ON CONFLICT (puzzle, batch_id, length) DO UPDATE SET count = d.count + excluded.count
)
UPDATE batches AS b SET
    ` + statusSums + `,
        updated_at      = now(),
    finished_at     = CASE WHEN b.finished_at IS NULL AND b.total IS NOT NULL AND b.done + p.n >= b.total
                           THEN now() ELSE b.finished_at END
FROM unnest($5::bigint[], $6::bigint[], ` + statusParams(7) + `)
     AS p(batch_id, n, ` + statusColumns + `)
WHERE b.id = p.batch_id`

// The batches table has one counter column per status, named as the
// status; these fragments spell them out from result.Statuses so that the
// list is written once.
var (
	statusColumns = statusSQL(", ", func(s string, _ int) string { return s })
	statusSums    = statusSQL(",\n    ", func(s string, _ int) string { return s + " = b." + s + " + p." + s })
	statusFilters = statusSQL(",\n    ", func(s string, _ int) string {
		return "count(*) FILTER (WHERE status = '" + s + "') AS " + s
	})
)

func statusParams(first int) string {
	return statusSQL(", ", func(_ string, i int) string { return fmt.Sprintf("$%d::bigint[]", first+i) })
}

func statusSQL(sep string, f func(status string, i int) string) string {
	parts := make([]string, len(result.Statuses()))
	for i, st := range result.Statuses() {
		parts[i] = f(string(st), i)
	}
	return strings.Join(parts, sep)
}

// batchCounts is a batch's histogram and per-batch status counts as the
// parallel arrays applyCounts takes, sorted by key so that concurrent
// writers lock rows in the same order.
type batchCounts struct {
	puzzle    []string
	distBatch []int64
	length    []int32
	count     []int64
	batch, n  []int64
	status    [len(result.Counts{})][]int64 // one array per status, in result.Statuses order
}

func countBatch(batch []job.Results) batchCounts {
	type dk struct {
		puzzle string
		batch  int64
		length int
	}
	dist := map[dk]int64{}
	type progress struct {
		n      int64
		counts result.Counts
	}
	prog := map[int64]*progress{}
	for _, rs := range batch {
		p := prog[rs.BatchID]
		if p == nil {
			p = new(progress)
			prog[rs.BatchID] = p
		}
		for i := range rs.Results {
			r := &rs.Results[i]
			p.n++
			p.counts.Add(r.Status, 1)
			if r.Status == result.StatusSolved && r.Optimal {
				dist[dk{rowPuzzle(&rs, r), rs.BatchID, r.Length}]++
			}
		}
	}
	keys := make([]dk, 0, len(dist))
	for k := range dist {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b dk) int {
		return cmp.Or(strings.Compare(a.puzzle, b.puzzle), cmp.Compare(a.batch, b.batch), cmp.Compare(a.length, b.length))
	})
	var c batchCounts
	for _, k := range keys {
		c.puzzle = append(c.puzzle, k.puzzle)
		c.distBatch = append(c.distBatch, k.batch)
		c.length = append(c.length, int32(k.length))
		c.count = append(c.count, dist[k])
	}
	ids := make([]int64, 0, len(prog))
	for id := range prog {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p := prog[id]
		c.batch = append(c.batch, id)
		c.n = append(c.n, p.n)
		for i := range c.status {
			c.status[i] = append(c.status[i], p.counts[i])
		}
	}
	return c
}

func rowPuzzle(rs *job.Results, r *result.Result) string {
	if r.Puzzle != "" {
		return r.Puzzle
	}
	return rs.Puzzle
}
