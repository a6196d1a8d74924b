// Package store is tessera's PostgreSQL adapter: batches, solutions and
// distance counts (schema in migrations/). It is the only package besides
// its test helper that imports pgx.
//
// Writes are idempotent: a result is identified by (batch, seq), inserted
// with ON CONFLICT DO NOTHING, and the distance counts and batch progress
// are updated in the same statement from the rows actually inserted — so a
// redelivered result changes nothing.
package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/tern/v2/migrate"

	"github.com/tessera-solver/tessera/internal/puzzle"
	"github.com/tessera-solver/tessera/internal/redact"
	"github.com/tessera-solver/tessera/internal/result"
	"github.com/tessera-solver/tessera/migrations"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrNotFound: the batch does not exist.
	ErrNotFound = errors.New("not found")
	// ErrRejected: the data itself is unacceptable (failed validation, or
	// PostgreSQL refused it with a data or constraint error). Retrying the
	// same data cannot succeed; any other error may be transient.
	ErrRejected = errors.New("rejected")
	// ErrNoDatabase: no URL configured and no local server found.
	ErrNoDatabase = errors.New("no PostgreSQL configured")
	// ErrSyncStandby: commits wait for a synchronous standby that is not
	// connected (synchronous_standby_names names one); they stay pending
	// until one attaches or the setting is cleared.
	ErrSyncStandby = errors.New("commit waits for a synchronous standby")
	// ErrClientFull: a client key has been served as many states as its
	// cap allows (ScrambleQuery.ClientCap).
	ErrClientFull = errors.New("client key at its cap of served states")
)

// VersionTable is tern's schema version table, resolved through the
// connection's search_path like every other table.
const VersionTable = "schema_version"

// Store is a pool of connections to one database. Safe for concurrent use.
type Store struct {
	pool   *pool
	cfg    *pgx.ConnConfig // for Ready's own connection
	states stateCache      // what this Store wrote to puzzle_states
}

// Option changes how Open connects.
type Option func(*pgx.ConnConfig)

// WithPassword sets the password, replacing the URL's ("" changes
// nothing): the database.password key, so that the URL need not hold it.
func WithPassword(password string) Option {
	return func(c *pgx.ConnConfig) {
		if password != "" {
			c.Password = password
		}
	}
}

// Open prepares a connection pool for url (a libpq URL or key=value
// string; extra parameters such as search_path=... are sent to the server
// at connection start; sslmode, sslrootcert, sslcert and sslkey choose
// TLS as libpq does). It does not connect: the first query does, so a
// daemon can start before its database and retry. ctx is unused for now.
// Its errors never show a password, whether url parses or not.
func Open(_ context.Context, url string, opts ...Option) (*Store, error) {
	if url == "" {
		return nil, fmt.Errorf("open database: empty URL: %w", ErrNoDatabase)
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		// pgx redacts the password of the URL it quotes, on a best-effort
		// basis it documents; the wrapped parse error may still quote it.
		return nil, redact.Error(fmt.Errorf("open database: %w", err), redact.Secrets(url)...)
	}
	for _, o := range opts {
		o(cfg)
	}
	p, err := newPool(cfg)
	if err != nil {
		return nil, redact.Error(fmt.Errorf("open database: %w", err), append(redact.Secrets(url), cfg.Password)...)
	}
	return &Store{pool: p, cfg: cfg}, nil
}

// Close closes every connection, waiting for those in use to be released.
func (s *Store) Close() { s.pool.close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error { return c.Ping(ctx) })
	if err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// Ready checks that the database accepts a new connection and answers,
// on a connection of its own rather than the pool's: a pool busy with
// slow queries must not make a readiness probe wait or fail, and a probe
// must see what a fresh connection sees (the server's connection limit,
// credentials, TLS). The connection is closed before Ready returns.
func (s *Store) Ready(ctx context.Context) error {
	c, err := pgx.ConnectConfig(ctx, s.cfg.Copy())
	if err != nil {
		return fmt.Errorf("connect to database: %w", redact.Error(err, s.cfg.Password))
	}
	defer c.Close(context.WithoutCancel(ctx))
	if err := c.Ping(ctx); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// LocalURLs are the servers tried, in order, when no URL is configured:
// the machine's PostgreSQL on the standard port, then the private server
// scripts/pg-local.sh starts. Both use database tessera.
var LocalURLs = []string{
	"postgres://postgres@127.0.0.1:5432/tessera?sslmode=disable",
	"postgres://postgres@127.0.0.1:54329/tessera?sslmode=disable",
}

// ResolveURL returns configured when it is not empty; otherwise
// $DATABASE_URL, otherwise the first of LocalURLs that accepts a
// connection. It fails with ErrNoDatabase when none does.
func ResolveURL(ctx context.Context, configured string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u, nil
	}
	for _, u := range LocalURLs {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, u)
		if err == nil {
			conn.Close(cctx)
			cancel()
			return u, nil
		}
		cancel()
	}
	return "", fmt.Errorf("%w: set TESSERA_DATABASE_URL, or run scripts/pg-local.sh (make run does) to start a local server", ErrNoDatabase)
}

// Migrate brings the schema to the newest embedded version, under tern's
// advisory lock (concurrent callers wait, then find nothing to do).
func (s *Store) Migrate(ctx context.Context) error {
	ms, err := migrations.All()
	if err != nil {
		return err
	}
	return s.MigrateTo(ctx, len(ms))
}

// MigrateTo moves the schema up or down to version (0 drops everything).
func (s *Store) MigrateTo(ctx context.Context, version int) error {
	ms, err := migrations.All()
	if err != nil {
		return err
	}
	if version < 0 || version > len(ms) {
		return fmt.Errorf("migrate to %d: versions run from 0 to %d", version, len(ms))
	}
	return s.pool.withConn(ctx, func(conn *pgx.Conn) error {
		m, err := migrate.NewMigrator(ctx, conn, VersionTable)
		if err != nil {
			return fmt.Errorf("migrate: version table: %w", err)
		}
		for _, x := range ms {
			m.AppendMigration(x.Name, x.Up, x.Down)
		}
		if err := m.MigrateTo(ctx, int32(version)); err != nil {
			return fmt.Errorf("migrate to %d: %w", version, err)
		}
		return nil
	})
}

// SchemaVersion is the version of the schema in the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int32
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "select version from "+VersionTable).Scan(&v)
	})
	if err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return int(v), nil
}

// Batch is one batch and its progress.
type Batch struct {
	ID             int64      `json:"id"`
	Puzzle         string     `json:"puzzle"`
	Mode           string     `json:"mode"`
	Total          int64      `json:"total"` // -1 while unknown
	CreatedAt      time.Time  `json:"created_at"`
	FinishedAt     *time.Time `json:"finished_at"` // nil until every state has a row
	Solved         int64      `json:"solved"`
	BudgetExceeded int64      `json:"budget_exceeded"`
	Invalid        int64      `json:"invalid"`
	Unsolvable     int64      `json:"unsolvable"`
	Failed         int64      `json:"failed"`
	Cancelled      int64      `json:"cancelled"`
	Done           int64      `json:"done"` // rows stored, all statuses
	// Enqueued is how many states (a prefix of the batch) the server has
	// stored as jobs, as the producer last recorded it: where `producer
	// resume` starts. The producer records it once a second, so a killed
	// producer leaves it up to a second behind what it published, and
	// Done can be above it; EnqueuedAtLeast is the tighter figure to show.
	Enqueued    int64      `json:"enqueued"`
	UpdatedAt   *time.Time `json:"updated_at"` // last jobs enqueued or rows stored
	CancelledAt *time.Time `json:"cancelled_at"`
	PausedAt    *time.Time `json:"paused_at"` // set while `results pause` holds the batch
	Priority    string     `json:"priority"`  // high, normal or low (producer --priority)
}

// StallAfter is how long a batch whose enqueue is unfinished may go
// without progress (no jobs enqueued, no rows stored) before it counts as
// stalled: `producer resume` finishes it. A working producer records its
// progress once a second, so 30 s without any means it died, or is
// blocked (its input or the server gives it nothing to do), and a user
// should hear that their producer is gone within the minute.
const StallAfter = 30 * time.Second

// EnqueuedAtLeast is how many states are surely enqueued: the recorded
// mark, or the rows stored when more (every row answers an enqueued job;
// the mark lags the producer by up to a second, and a killed producer
// leaves it there, below the rows its jobs produced).
func (b Batch) EnqueuedAtLeast() int64 { return max(b.Enqueued, b.Done) }

// State is where the batch stands: "cancelled", "finished", "paused", "stalled"
// (its enqueue stopped short of the total and nothing moved for
// StallAfter), "enqueuing" or "running".
func (b Batch) State(now time.Time) string {
	last := b.CreatedAt
	if b.UpdatedAt != nil {
		last = *b.UpdatedAt
	}
	switch {
	case b.CancelledAt != nil:
		return "cancelled"
	case b.FinishedAt != nil:
		return "finished"
	case b.PausedAt != nil:
		return "paused"
	case b.Total < 0 || b.Enqueued < b.Total:
		if now.Sub(last) > StallAfter {
			return "stalled"
		}
		return "enqueuing"
	}
	return "running"
}

// Rate is the batch's rows per second so far: the rows stored over the
// time from its creation to its last progress (to now while it runs).
func (b Batch) Rate(now time.Time) float64 {
	end := now
	if b.FinishedAt != nil {
		end = *b.FinishedAt
	} else if b.CancelledAt != nil || b.PausedAt != nil {
		if b.UpdatedAt != nil {
			end = *b.UpdatedAt
		}
	}
	secs := end.Sub(b.CreatedAt).Seconds()
	if b.Done == 0 || secs <= 0 {
		return 0
	}
	return float64(b.Done) / secs
}

// ETA is how long the batch's remaining rows take at Rate; false when that
// is unknown (no total, no rate yet) or the batch is not running.
func (b Batch) ETA(now time.Time) (time.Duration, bool) {
	r := b.Rate(now)
	if b.FinishedAt != nil || b.CancelledAt != nil || b.PausedAt != nil || b.Total < 0 || r <= 0 {
		return 0, false
	}
	return time.Duration(float64(b.Total-b.Done) / r * float64(time.Second)).Round(time.Second), true
}

// Finished reports whether every state of the batch has a row.
func (b Batch) Finished() bool { return b.FinishedAt != nil }

// CreateBatch records a new batch and returns its id. puzzle is any spec
// ParseSpec accepts (stored canonical, so "8" becomes "sliding:3x3");
// mode is optimal or fast; total is the number of states, or -1 when not
// yet known (see SetBatchTotal).
func (s *Store) CreateBatch(ctx context.Context, puzzleSpec, mode string, total int64) (int64, error) {
	spec, err := puzzle.ParseSpec(puzzleSpec)
	if err != nil {
		return 0, fmt.Errorf("create batch: %w", err)
	}
	m, err := result.ParseMode(mode)
	if err != nil {
		return 0, fmt.Errorf("create batch: %w", err)
	}
	var tot *int64
	if total >= 0 {
		tot = &total
	}
	var id int64
	err = s.pool.withConn(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `
			INSERT INTO batches (puzzle, mode, total, finished_at)
			VALUES ($1, $2, $3, CASE WHEN $3::bigint = 0 THEN now() END)
			RETURNING id`, spec.String(), string(m), tot).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("create batch: %w", err)
	}
	return id, nil
}

// SetBatchTotal records the number of states of a batch created with an
// unknown total (a producer streaming its input learns it at the end), and
// marks the batch finished if every row is already in.
func (s *Store) SetBatchTotal(ctx context.Context, id, total int64) error {
	if total < 0 {
		return fmt.Errorf("batch %d: total %d: %w", id, total, ErrRejected)
	}
	var tag pgconn.CommandTag
	err := s.pool.withConn(ctx, func(c *pgx.Conn) (err error) {
		tag, err = c.Exec(ctx, `
			UPDATE batches SET total = $2,
			       finished_at = CASE WHEN finished_at IS NULL AND done >= $2 THEN now() ELSE finished_at END
			WHERE id = $1`, id, total)
		return err
	})
	if err != nil {
		return fmt.Errorf("batch %d: set total: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("batch %d: %w", id, ErrNotFound)
	}
	return nil
}

const batchColumns = `id, puzzle, mode, coalesce(total, -1), created_at, finished_at,
	solved, budget_exceeded, invalid, unsolvable, failed, cancelled, done, enqueued, updated_at, cancelled_at,
	paused_at, priority`

func scanBatch(row pgx.Row) (Batch, error) {
	var b Batch
	err := row.Scan(&b.ID, &b.Puzzle, &b.Mode, &b.Total, &b.CreatedAt, &b.FinishedAt,
		&b.Solved, &b.BudgetExceeded, &b.Invalid, &b.Unsolvable, &b.Failed, &b.Cancelled, &b.Done, &b.Enqueued, &b.UpdatedAt, &b.CancelledAt,
		&b.PausedAt, &b.Priority)
	return b, err
}

// BatchProgress returns a batch and its counters.
func (s *Store) BatchProgress(ctx context.Context, id int64) (Batch, error) {
	var b Batch
	err := s.pool.withConn(ctx, func(c *pgx.Conn) (err error) {
		b, err = scanBatch(c.QueryRow(ctx, `SELECT `+batchColumns+` FROM batches WHERE id = $1`, id))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Batch{}, fmt.Errorf("batch %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Batch{}, fmt.Errorf("batch %d: %w", id, err)
	}
	return b, nil
}

// Batches returns the newest batches first, at most limit of them.
func (s *Store) Batches(ctx context.Context, limit int) ([]Batch, error) {
	var out []Batch
	err := s.pool.withConn(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT `+batchColumns+` FROM batches ORDER BY id DESC LIMIT $1`, limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Batch, error) { return scanBatch(r) })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list batches: %w", err)
	}
	return out, nil
}

// rejected marks PostgreSQL's data exceptions (class 22, e.g. a NUL byte in
// text) and integrity violations (class 23, e.g. a CHECK) as ErrRejected:
// the same data will fail the same way however often it is retried.
func rejected(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && len(pg.Code) == 5 && (pg.Code[:2] == "22" || pg.Code[:2] == "23") {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	return err
}
