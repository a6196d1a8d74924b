package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SetBatchSource records where batch's states come from and its jobs'
// options (JSON objects; see migration 003), for `producer resume`, and
// the priority its jobs are published at ("": normal), which every view
// of the batch shows.
func (s *Store) SetBatchSource(ctx context.Context, batch int64, source, options any, priority string) error {
	src, err := json.Marshal(source)
	if err != nil {
		return fmt.Errorf("batch %d source: %w", batch, err)
	}
	opt, err := json.Marshal(options)
	if err != nil {
		return fmt.Errorf("batch %d options: %w", batch, err)
	}
	return s.exec(ctx, fmt.Sprintf("batch %d source", batch),
		`UPDATE batches SET source = $2, options = $3, priority = coalesce(nullif($4, ''), 'normal') WHERE id = $1`,
		batch, src, opt, priority)
}

// SetEnqueued records that the server has stored the first n states of
// batch as jobs. It never moves the mark back.
func (s *Store) SetEnqueued(ctx context.Context, batch, n int64) error {
	return s.exec(ctx, fmt.Sprintf("batch %d enqueued", batch),
		`UPDATE batches SET enqueued = greatest(enqueued, $2), updated_at = now() WHERE id = $1`, batch, n)
}

// BatchSource returns what SetBatchSource recorded, decoded into source
// and options; ErrNoSource for a batch made before it was recorded.
func (s *Store) BatchSource(ctx context.Context, batch int64, source, options any) error {
	var src, opt []byte
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT source, options FROM batches WHERE id = $1`, batch).Scan(&src, &opt)
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("batch %d: %w", batch, ErrNotFound)
	case err != nil:
		return fmt.Errorf("batch %d source: %w", batch, err)
	case src == nil || opt == nil:
		return fmt.Errorf("batch %d: %w", batch, ErrNoSource)
	}
	if err := json.Unmarshal(src, source); err != nil {
		return fmt.Errorf("batch %d source: %w", batch, err)
	}
	if err := json.Unmarshal(opt, options); err != nil {
		return fmt.Errorf("batch %d options: %w", batch, err)
	}
	return nil
}

// ErrNoSource: the batch does not record where its states came from.
var ErrNoSource = errors.New("the batch does not record its source (made before schema version 3)")

// CancelBatch marks batch cancelled (the solvers stop its running solves
// and answer its remaining states as cancelled). It returns false when the batch had finished or was
// cancelled already.
func (s *Store) CancelBatch(ctx context.Context, batch int64) (bool, error) {
	// A cancel ends a pause: the parked jobs go back to be answered.
	return s.markBatch(ctx, "cancel", batch, `UPDATE batches SET cancelled_at = now(), paused_at = NULL, updated_at = now()
		WHERE id = $1 AND finished_at IS NULL AND cancelled_at IS NULL`)
}

// UncancelBatch takes the cancel off batch (a requeue of its cancelled
// states that the user asked for). It returns false when the batch was
// not cancelled.
func (s *Store) UncancelBatch(ctx context.Context, batch int64) (bool, error) {
	return s.markBatch(ctx, "uncancel", batch, `UPDATE batches SET cancelled_at = NULL, updated_at = now()
		WHERE id = $1 AND cancelled_at IS NOT NULL`)
}

// PauseBatch marks batch paused. It returns false when the batch had
// finished, was cancelled or was paused already.
func (s *Store) PauseBatch(ctx context.Context, batch int64) (bool, error) {
	return s.markBatch(ctx, "pause", batch, `UPDATE batches SET paused_at = now(), updated_at = now()
		WHERE id = $1 AND finished_at IS NULL AND cancelled_at IS NULL AND paused_at IS NULL`)
}

// UnpauseBatch takes the pause off batch. It returns false when the batch
// was not paused.
func (s *Store) UnpauseBatch(ctx context.Context, batch int64) (bool, error) {
	return s.markBatch(ctx, "unpause", batch, `UPDATE batches SET paused_at = NULL, updated_at = now()
		WHERE id = $1 AND paused_at IS NOT NULL`)
}

// markBatch runs sql, an update of batch $1, and reports whether it
// changed the row; ErrNotFound when there is no such batch.
func (s *Store) markBatch(ctx context.Context, what string, batch int64, sql string) (bool, error) {
	var n int64
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		tag, err := c.Exec(ctx, sql, batch)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("%s batch %d: %w", what, batch, err)
	}
	if n == 0 {
		if _, err := s.BatchProgress(ctx, batch); err != nil {
			return false, err
		}
	}
	return n == 1, nil
}

func (s *Store) exec(ctx context.Context, what, sql string, args ...any) error {
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, sql, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
