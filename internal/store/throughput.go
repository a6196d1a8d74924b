package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// MaxThroughputMinutes bounds the window of Throughput.
const MaxThroughputMinutes = 24 * 60

// Minute is how many of a batch's rows were stored in one minute (UTC,
// truncated to the minute), by the rows' solved_at: a row a requeue
// replaced counts in the minute of its replacement.
type Minute struct {
	Minute time.Time `json:"minute"`
	Rows   int64     `json:"rows"`
}

// Throughput is the batch's rows per minute over the last minutes
// minutes (1 to MaxThroughputMinutes) up to the minute of its newest row,
// oldest first, with the minutes in which no row came as zeros; nil when
// the batch has no row. It reads every row of the batch (solved_at has no
// index); docs/BENCHMARKS.md has what that costs.
func (s *Store) Throughput(ctx context.Context, batch int64, minutes int) ([]Minute, error) {
	minutes = max(1, min(minutes, MaxThroughputMinutes))
	var got []Minute
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `WITH m AS (
				SELECT date_trunc('minute', solved_at AT TIME ZONE 'UTC') AS minute FROM solutions WHERE batch_id = $1)
			SELECT minute, count(*) FROM m
			WHERE minute > (SELECT max(minute) FROM m) - make_interval(mins => $2)
			GROUP BY minute ORDER BY minute`, batch, minutes)
		if err != nil {
			return err
		}
		got, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Minute, error) {
			var m Minute
			err := r.Scan(&m.Minute, &m.Rows)
			m.Minute = time.Date(m.Minute.Year(), m.Minute.Month(), m.Minute.Day(), m.Minute.Hour(), m.Minute.Minute(), 0, 0, time.UTC)
			return m, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("throughput of batch %d: %w", batch, err)
	}
	if len(got) == 0 {
		return nil, nil
	}
	// Every minute of the window, so that a gap shows as zero.
	last := got[len(got)-1].Minute
	out := make([]Minute, minutes)
	for i := range out {
		out[i].Minute = last.Add(time.Duration(i-minutes+1) * time.Minute)
	}
	for _, m := range got {
		out[minutes-1-int(last.Sub(m.Minute)/time.Minute)].Rows = m.Rows
	}
	return out, nil
}
