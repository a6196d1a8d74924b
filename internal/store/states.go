package store

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/result"
)

// The per-puzzle distribution counts distinct states (a state solved in
// several batches once, at its least proved-optimal length), so it cannot
// be summed from distance_counts, which counts rows per batch. The writer
// keeps puzzle_states (one row per distinct state: its least optimal
// length and the first row of that length, by batch and seq) and
// puzzle_counts (its histogram) in the transaction that stores the rows
// (migration 007). A state's row there is the minimum over its stored
// optimal rows of (length, batch_id, seq), so applying a stored optimal row
// again changes nothing, and applying rows in any order gives the same
// answer. A requeue's replacement keeps it exact too: an optimal row is
// only ever replaced by a shorter one, so the minimum over the rows as
// they are now is the minimum over every version they had.

// stateCandidates are the proved-optimal rows of a write, as the parallel
// arrays applyStates takes.
type stateCandidates struct {
	puzzle []string
	hash   [][]byte
	length []int32
	batch  []int64
	seq    []int64
}

// candidatesOf collects the optimal rows of batch. Unless full, only
// their batch and seq (checkedRows reads the rest back). When full, only
// the least (length, batch, seq) per state, grouped by state, less the
// rows that known (when not nil) shows cannot lower a stored state: a
// corpus of small boards repeats states (an 8-puzzle has 181,440), and
// sending and sorting each repeat cost the writer half its rate. The rows
// left are sorted whole and the first of each state kept, which costs a
// third of what a map of the least row per state did; they are looked up
// in the cache before the sort, which then has a fifth of a million
// 8-puzzles' rows to order instead of all of them.
func candidatesOf(batch []job.Results, full bool, known *stateCache) stateCandidates {
	type row struct {
		prefix     uint64 // the hash's first bytes, which order most pairs at once
		hash       [sha256.Size]byte
		puzzle     string
		length     int32
		batch, seq int64
	}
	var c stateCandidates
	var rows []row
	if full {
		n := 0
		for m := range batch {
			n += len(batch[m].Results)
		}
		rows = make([]row, 0, n)
		if known != nil {
			known.mu.Lock()
			defer known.mu.Unlock()
		}
	}
	lastPuzzle, puzzleID := "", -1 // the cache's index of lastPuzzle
	for m := range batch {
		rs := &batch[m]
		for i := range rs.Results {
			r := &rs.Results[i]
			if r.Status != result.StatusSolved || !r.Optimal {
				continue
			}
			seq := rs.FirstSeq + int64(i)
			if !full {
				c.batch = append(c.batch, rs.BatchID)
				c.seq = append(c.seq, seq)
				continue
			}
			v := row{hash: sha256.Sum256([]byte(r.State)), puzzle: rowPuzzle(rs, r), length: int32(r.Length), batch: rs.BatchID, seq: seq}
			if known != nil {
				if puzzleID < 0 || v.puzzle != lastPuzzle {
					lastPuzzle, puzzleID = v.puzzle, known.puzzleID(v.puzzle, false)
				}
				if known.known(puzzleID, &v.hash, cacheVal{v.length, v.batch, v.seq}) {
					continue
				}
			}
			v.prefix = binary.BigEndian.Uint64(v.hash[:8])
			rows = append(rows, v)
		}
	}
	if !full {
		return c
	}
	slices.SortFunc(rows, func(a, b row) int {
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		return cmp.Or(strings.Compare(a.puzzle, b.puzzle), bytes.Compare(a.hash[:], b.hash[:]),
			cmp.Compare(a.length, b.length), cmp.Compare(a.batch, b.batch), cmp.Compare(a.seq, b.seq))
	})
	hashes := make([]byte, 0, len(rows)*sha256.Size) // one allocation for every hash
	for i := range rows {
		v := &rows[i]
		if i > 0 && v.hash == rows[i-1].hash && v.puzzle == rows[i-1].puzzle {
			continue // a later row of the same state: the first is the least
		}
		hashes = append(hashes, v.hash[:]...)
		c.add(v.puzzle, hashes[len(hashes)-sha256.Size:], v.length, v.batch, v.seq)
	}
	return c
}

// add appends one candidate.
func (c *stateCandidates) add(puzzle string, hash []byte, length int32, batch, seq int64) {
	c.puzzle = append(c.puzzle, puzzle)
	c.hash = append(c.hash, hash)
	c.length = append(c.length, length)
	c.batch = append(c.batch, batch)
	c.seq = append(c.seq, seq)
}

// givenRows are the candidates as the messages give them: on the fast path
// every row was just inserted as given. checkedRows are the rows stored
// now at the candidates' (batch_id, seq), the ones still proved optimal:
// on the staged path some candidates were not inserted (a collision holds
// their place, or the row was stored before), and a requeue's replacement
// may have been refused as no better, or have changed a row whose state
// the message spells differently. Both keep the least (length, batch_id,
// seq) per state (candidatesOf has done it for givenRows).
const (
	givenRows = `c AS (
    SELECT * FROM unnest($1::text[], $2::bytea[], $3::integer[], $4::bigint[], $5::bigint[])
         AS c(puzzle, state_hash, length, batch_id, seq)
)`
	checkedRows = `c AS (
    SELECT DISTINCT ON (puzzle, state_hash) puzzle, state_hash, length, batch_id, seq
    FROM (SELECT s.puzzle, sha256(convert_to(s.state, 'UTF8')) AS state_hash, s.length, s.batch_id, s.seq
          FROM unnest($1::bigint[], $2::bigint[]) AS k(batch_id, seq)
          JOIN solutions s ON s.batch_id = k.batch_id AND s.seq = k.seq
          WHERE s.optimal) AS r
    ORDER BY puzzle, state_hash, length, batch_id, seq
)`
)

// insertStates adds the states not stored yet, each counted once at its
// length, and moves a stored state to a candidate of the same length that
// is less in (batch_id, seq), which changes no count. ON CONFLICT DO UPDATE
// locks the latest version of a stored state (waiting for a concurrent
// writer that inserted or changed it) and judges the candidate against
// that version, so a state is counted by exactly one transaction and
// lowered to the least of every candidate. Inserted rows are told from
// updated ones by xmax, which only an inserted row returns as 0. A
// candidate of a shorter length than the stored state is not applied
// here (its count must move from the old length, which RETURNING cannot
// give): the update leaves that row as it is and returns it, and the
// statement returns those candidates for lowerStates. Before, every write
// that met a stored state ran lowerStates over all its candidates, a hash
// join over the whole of puzzle_states: on 8-puzzles it took a third of
// the writer's time in PostgreSQL, and grew with the table.
const insertStates = `, ins AS (
    INSERT INTO puzzle_states AS p (puzzle, state_hash, length, batch_id, seq)
    SELECT puzzle, state_hash, length, batch_id, seq FROM c ORDER BY puzzle, state_hash
    ON CONFLICT (puzzle, state_hash) DO UPDATE SET
        batch_id = CASE WHEN excluded.length = p.length THEN excluded.batch_id ELSE p.batch_id END,
        seq      = CASE WHEN excluded.length = p.length THEN excluded.seq ELSE p.seq END
    WHERE (excluded.length, excluded.batch_id, excluded.seq) < (p.length, p.batch_id, p.seq)
    RETURNING p.puzzle, p.state_hash, p.length, p.xmax = 0 AS new
), cnt AS (
    INSERT INTO puzzle_counts AS t (puzzle, length, count)
    SELECT puzzle, length, count(*) FROM ins WHERE new GROUP BY puzzle, length ORDER BY puzzle, length
    ON CONFLICT (puzzle, length) DO UPDATE SET count = t.count + excluded.count
), shorter AS (
    SELECT c.* FROM ins JOIN c USING (puzzle, state_hash) WHERE NOT ins.new AND c.length < ins.length
)
SELECT (SELECT coalesce(array_agg(puzzle ORDER BY puzzle, state_hash), '{}') FROM shorter),
       (SELECT coalesce(array_agg(state_hash ORDER BY puzzle, state_hash), '{}') FROM shorter),
       (SELECT coalesce(array_agg(length ORDER BY puzzle, state_hash), '{}') FROM shorter),
       (SELECT coalesce(array_agg(batch_id ORDER BY puzzle, state_hash), '{}') FROM shorter),
       (SELECT coalesce(array_agg(seq ORDER BY puzzle, state_hash), '{}') FROM shorter)`

// lowerStates moves stored states to a candidate that is less in (length,
// batch_id, seq), and their count with them when the length changes. It
// runs as a statement of its own after insertStates, so it sees the states
// that concurrent writers committed meanwhile; FOR UPDATE locks each and
// reads its latest version, which is the old length the counts move from.
// Every change of a count is an upsert, falling ones too: an UPDATE would
// miss a count row that a concurrent writer created after this statement's
// snapshot (its state then moved here), and lose the decrement. This is
// why puzzle_counts has no CHECK (count >= 0): it would refuse the
// proposed negative row before the conflict that turns it into an update.
const lowerStates = `, old AS (
    SELECT p.puzzle, p.state_hash, p.length FROM puzzle_states p JOIN c USING (puzzle, state_hash)
    WHERE (c.length, c.batch_id, c.seq) < (p.length, p.batch_id, p.seq)
    ORDER BY p.puzzle, p.state_hash
    FOR UPDATE OF p
), upd AS (
    UPDATE puzzle_states p SET length = c.length, batch_id = c.batch_id, seq = c.seq
    FROM old o JOIN c ON c.puzzle = o.puzzle AND c.state_hash = o.state_hash
    WHERE p.puzzle = o.puzzle AND p.state_hash = o.state_hash
      AND (c.length, c.batch_id, c.seq) < (p.length, p.batch_id, p.seq)
    RETURNING p.puzzle, o.length AS old_length, p.length AS new_length
), delta AS (
    SELECT puzzle, length, sum(d)::bigint AS n FROM (
        SELECT puzzle, new_length AS length, 1 AS d FROM upd WHERE old_length <> new_length
        UNION ALL
        SELECT puzzle, old_length, -1 FROM upd WHERE old_length <> new_length
    ) AS x GROUP BY puzzle, length
)
INSERT INTO puzzle_counts AS t (puzzle, length, count)
SELECT puzzle, length, n FROM delta WHERE n <> 0 ORDER BY puzzle, length
ON CONFLICT (puzzle, length) DO UPDATE SET count = t.count + excluded.count`

// applyStates brings puzzle_states and puzzle_counts up to date with the
// candidates c, in tx: when check, those candidatesOf(batch, false) gives,
// which are read back from solutions; else the given ones, less those the
// cache shows cannot change a stored state (see givenRows). It returns the
// given candidates it sent, for the cache to remember once tx commits.
func applyStates(ctx context.Context, tx pgx.Tx, c stateCandidates, check bool) (stateCandidates, error) {
	if len(c.batch) == 0 {
		return stateCandidates{}, nil
	}
	rows, args := givenRows, []any{c.puzzle, c.hash, c.length, c.batch, c.seq}
	if check {
		rows, args = checkedRows, []any{c.batch, c.seq}
	}
	var shorter stateCandidates
	if err := tx.QueryRow(ctx, `WITH `+rows+insertStates, args...).Scan(
		&shorter.puzzle, &shorter.hash, &shorter.length, &shorter.batch, &shorter.seq); err != nil {
		return stateCandidates{}, fmt.Errorf("distinct states: %w", rejected(err))
	}
	if len(shorter.puzzle) > 0 {
		// The rows are locked since insertStates: lowerStates reads the
		// versions it left.
		if _, err := tx.Exec(ctx, `WITH `+givenRows+lowerStates,
			shorter.puzzle, shorter.hash, shorter.length, shorter.batch, shorter.seq); err != nil {
			return stateCandidates{}, fmt.Errorf("distinct states' lengths: %w", rejected(err))
		}
	}
	if check {
		return stateCandidates{}, nil // c holds no keys to remember
	}
	return c, nil
}
