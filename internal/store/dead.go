package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Sources of dead letters (the source column).
const (
	// DeadCollision: a result for a (batch, seq) that already holds a
	// DIFFERENT state — two jobs covered the same sequence numbers, or two
	// jobs had the same id. The stored row stays; the other answer is here.
	DeadCollision = "collision"
	// DeadResults: a results message, or one row of it, that the writer
	// cannot store (malformed, or refused by PostgreSQL).
	DeadResults = "results"
	// DeadJobs: a job message too malformed to answer with result rows,
	// copied to TESSERA_DEAD by solverd before it was terminated.
	DeadJobs = "jobs"
	// DeadProducer: input the producer could not enqueue.
	DeadProducer = "producer"
)

// DeadLetter is one row of dead_letters.
type DeadLetter struct {
	ID        int64     `json:"id"`
	BatchID   *int64    `json:"batch_id"` // nil when unknown
	Seq       *int64    `json:"seq"`      // nil when unknown
	JobID     string    `json:"job_id,omitempty"`
	Source    string    `json:"source"`
	Reason    string    `json:"reason"`
	Payload   []byte    `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	// Key identifies the letter: recording the same key twice (a
	// redelivered message) stores it once. Required.
	Key string `json:"-"`
}

// AddDeadLetters records letters, skipping those whose Key is already
// stored, and returns how many were new. Text is made storable (valid
// UTF-8, no NUL): a dead letter must never be refused.
func (s *Store) AddDeadLetters(ctx context.Context, letters []DeadLetter) (int, error) {
	if len(letters) == 0 {
		return 0, nil
	}
	b := &pgx.Batch{}
	for _, l := range letters {
		if l.Key == "" || l.Source == "" {
			return 0, fmt.Errorf("add dead letter: empty key or source: %w", ErrRejected)
		}
		var job any
		if l.JobID != "" {
			job = textOf(l.JobID)
		}
		payload := l.Payload
		if payload == nil {
			payload = []byte{}
		}
		b.Queue(`INSERT INTO dead_letters (batch_id, seq, job_id, source, reason, payload, key)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key) DO NOTHING`,
			l.BatchID, l.Seq, job, textOf(l.Source), textOf(l.Reason), payload, textOf(l.Key))
	}
	n := 0
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		n = 0
		return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			br := tx.SendBatch(ctx, b)
			defer br.Close()
			for range letters {
				tag, err := br.Exec()
				if err != nil {
					return rejected(err)
				}
				n += int(tag.RowsAffected())
			}
			return br.Close()
		})
	})
	if err != nil {
		return 0, fmt.Errorf("add dead letters: %w", err)
	}
	return n, nil
}

// DeadLetters lists dead letters, oldest first, of one batch (batch > 0)
// or of all, at most limit (≤ 0: all) of them.
func (s *Store) DeadLetters(ctx context.Context, batch int64, limit int) ([]DeadLetter, error) {
	q := `SELECT id, batch_id, seq, coalesce(job_id, ''), source, reason, payload, created_at, key
		FROM dead_letters WHERE ($1::bigint = 0 OR batch_id = $1) ORDER BY id`
	args := []any{batch}
	if limit > 0 {
		q += ` LIMIT $2`
		args = append(args, limit)
	}
	var out []DeadLetter
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (DeadLetter, error) {
			var d DeadLetter
			err := r.Scan(&d.ID, &d.BatchID, &d.Seq, &d.JobID, &d.Source, &d.Reason, &d.Payload, &d.CreatedAt, &d.Key)
			return d, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list dead letters: %w", err)
	}
	return out, nil
}

// textOf makes s storable as PostgreSQL text.
func textOf(s string) string {
	if checkText(s) == nil {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// recordCollisions runs after insertFromStaging in the same transaction:
// every staged row whose (batch, seq) holds a different state is not a
// redelivery but a second state claiming the same place, and is kept as a
// dead letter (the staged row as JSON) instead of vanishing in ON CONFLICT
// DO NOTHING. A staged row with the stored state is a redelivery: nothing.
const recordCollisions = `
WITH c AS (
    SELECT s.*, x.state AS stored_state
    FROM tessera_staging s JOIN solutions x USING (batch_id, seq)
    WHERE x.state <> s.state
), ins AS (
    INSERT INTO dead_letters (batch_id, seq, source, reason, payload, key)
    SELECT batch_id, seq, 'collision',
           format('batch %s seq %s already holds state %s; this result (status %s) is for state %s: two jobs covered the same sequence number or had the same id',
                  batch_id, seq, quote_literal(left(stored_state, 120)), status, quote_literal(left(state, 120))),
           convert_to(json_build_object('batch', batch_id, 'seq', seq, 'puzzle', puzzle, 'state', state,
               'status', status, 'moves', moves, 'length', length, 'optimal', optimal, 'lower_bound', lower_bound,
               'nodes', nodes, 'elapsed_ms', solve_ms, 'solver', solver, 'error', error)::text, 'UTF8'),
           'collision:' || batch_id || ':' || seq || ':' || md5(state || '|' || status || '|' || coalesce(moves, '') || '|' || coalesce(error, ''))
    FROM c
    ON CONFLICT (key) DO NOTHING
    RETURNING 1
)
SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM ins)`
