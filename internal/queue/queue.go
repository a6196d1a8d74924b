// Package queue is tessera's JetStream adapter: the streams, the durable
// consumers and their ack policy, and the publishers of jobs, results and
// dead letters. It knows the wire subjects and message ids; what a job means
// is internal/worker's business and what a result means is internal/ingest's.
//
// Facts it is built on (measured against nats-server 2.15 and 2.9.10, see
// DESIGN.md): Term on a work-queue stream deletes the message; a message that
// exhausts MaxDeliver stays in a work-queue stream until someone deletes it
// (so the MAX_DELIVERIES advisory is captured in a stream and handled);
// BackOff replaces AckWait; only one unfiltered consumer may read a
// work-queue stream.
package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// Stream, subject and consumer names. Users and operators see them in
// `nats stream ls`, so they are part of the contract.
const (
	JobsStream    = "TESSERA_JOBS"
	ResultsStream = "TESSERA_RESULTS"
	// DeadStream keeps what could not be processed: captured MAX_DELIVERIES
	// advisories of TESSERA_JOBS (handled by the dead-letter consumer) and
	// copies of job messages too broken to turn into results.
	DeadStream = "TESSERA_DEAD"

	JobsSubjects    = "tessera.jobs.>"
	ResultsSubjects = "tessera.results.>"
	// DeadJobsSubject receives undecodable job messages before they are
	// terminated, so nothing disappears without a trace.
	DeadJobsSubject = "tessera.dead.jobs"
	// MaxDeliveriesSubject is the advisory the server publishes when a job
	// message exhausts MaxDeliver (the last token is the consumer name).
	MaxDeliveriesSubject = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + JobsStream + ".*"

	// JobsConsumer takes the heavy lane (subjects tessera.jobs.<kind>.<RxC>,
	// as every job had before lanes, so jobs queued by an older producer
	// stay deliverable), QuickConsumer the quick lane
	// (tessera.jobs.quick.<kind>.<RxC>). Their filters differ in token
	// count, so the server accepts both on the one work-queue stream.
	JobsConsumer    = "solverd"
	QuickConsumer   = "solverd-quick"
	ResultsConsumer = "results"
	DeadConsumer    = "deadletter"

	// ResultsMsgIDPrefix prefixes a job id to make the Nats-Msg-Id of its
	// results, so a job solved twice publishes one Results message.
	ResultsMsgIDPrefix = "r-"

	// Headers on dead-letter copies.
	HeaderReason  = "Tessera-Reason"
	HeaderSubject = "Tessera-Subject"
	HeaderSeq     = "Tessera-Stream-Seq"
)

// Config tunes the streams and consumers. The zero value is not useful:
// start from DefaultConfig.
type Config struct {
	// DuplicateWindow is how long TESSERA_JOBS and TESSERA_RESULTS remember
	// a Nats-Msg-Id. It only narrows duplicates: the window forgets ids of
	// consumed messages after a restart, so idempotency lives in Postgres.
	DuplicateWindow time.Duration
	// MaxDeliver is how many times a job is handed to a worker before it is
	// recorded as failed.
	MaxDeliver int
	// AckWait is the time a worker has to ack or heartbeat a job when
	// BackOff is empty.
	AckWait time.Duration
	// BackOff, when set, replaces AckWait: delivery n waits BackOff[n-1]
	// (the last entry repeats) before the job is redelivered. Growing
	// entries give transient failures growing delays. At most MaxDeliver
	// entries.
	BackOff []time.Duration
	// MaxAckPending caps jobs held unacknowledged across every solverd
	// attached to the consumer. Workers pull only when idle, so in practice
	// the number of busy workers is what bounds it.
	MaxAckPending int
	// ResultsAckWait is the time the results writer has to commit and ack a
	// fetched batch.
	ResultsAckWait time.Duration
	// ResultsMaxAckPending caps unacknowledged Results messages.
	ResultsMaxAckPending int
	// DeadMaxAge is how long TESSERA_DEAD keeps its records.
	DeadMaxAge time.Duration
	// Replicas of every stream and bucket tessera creates (1 for a single
	// server). Existing ones keep theirs: see replicas.go.
	Replicas int
	// MaxBytes is the byte limit of each of TESSERA_JOBS, TESSERA_RESULTS
	// and TESSERA_DEAD (0: none), with discard-new: a full stream refuses
	// a publish (IsStoreFull) rather than drop what it holds, and the
	// server's store keeps room for what has no limit of its own (raft
	// logs, consumer state, buckets). Like Replicas, a new stream gets
	// it and an existing one keeps its own until `solverd queue apply`.
	MaxBytes int64
	// MemoryConsumers keeps the state of the consumers tessera creates in
	// the server's memory instead of files (the streams stay on file):
	// for producer --local's throw-away in-process server, whose file
	// store otherwise rewrites a consumer's state file (a temp file and a
	// rename) as acks change it, 2.4 % of a 15-puzzle run's CPU. Not for
	// a server that outlives its processes: a restart would lose what
	// was delivered and acknowledged.
	MemoryConsumers bool
}

// DefaultConfig returns the production defaults.
func DefaultConfig() Config {
	return Config{
		DuplicateWindow:      10 * time.Minute,
		MaxDeliver:           5,
		AckWait:              30 * time.Second,
		BackOff:              []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute},
		MaxAckPending:        1024,
		ResultsAckWait:       30 * time.Second,
		ResultsMaxAckPending: 10000,
		DeadMaxAge:           30 * 24 * time.Hour,
		Replicas:             1,
		MaxBytes:             DefaultMaxBytes,
	}
}

// WithDeliveries returns DefaultConfig with a job delivered at most
// maxDeliver times, the first delivery given ackWait and each later one
// twice the previous (at most four distinct steps), so a job whose worker
// keeps dying is retried with growing delays. It maps the nats.max_deliver
// and nats.ack_wait config keys. The server wants fewer BackOff entries
// than deliveries (the last entry repeats), so a job delivered once has
// none and waits AckWait.
func WithDeliveries(maxDeliver int, ackWait time.Duration) Config {
	c := DefaultConfig()
	c.MaxDeliver, c.AckWait = maxDeliver, ackWait
	c.BackOff = nil
	for i := range min(maxDeliver-1, 4) {
		c.BackOff = append(c.BackOff, ackWait<<i)
	}
	return c
}

// Validate reports the first setting the server would reject or that makes
// no sense, naming it.
func (c Config) Validate() error {
	switch {
	case c.DuplicateWindow <= 0:
		return fmt.Errorf("queue: duplicate window must be positive, got %v", c.DuplicateWindow)
	case c.MaxDeliver < 1:
		return fmt.Errorf("queue: max deliver must be at least 1, got %d", c.MaxDeliver)
	case c.AckWait <= 0:
		return fmt.Errorf("queue: ack wait must be positive, got %v", c.AckWait)
	case len(c.BackOff) >= c.MaxDeliver:
		return fmt.Errorf("queue: %d backoff entries but max deliver is %d (the server wants fewer entries than deliveries)", len(c.BackOff), c.MaxDeliver)
	case c.MaxAckPending < 1:
		return fmt.Errorf("queue: max ack pending must be at least 1, got %d", c.MaxAckPending)
	case c.ResultsAckWait <= 0:
		return fmt.Errorf("queue: results ack wait must be positive, got %v", c.ResultsAckWait)
	case c.ResultsMaxAckPending < 1:
		return fmt.Errorf("queue: results max ack pending must be at least 1, got %d", c.ResultsMaxAckPending)
	case c.DeadMaxAge <= 0:
		return fmt.Errorf("queue: dead-letter max age must be positive, got %v", c.DeadMaxAge)
	case c.Replicas < 1:
		return fmt.Errorf("queue: replicas must be at least 1, got %d", c.Replicas)
	case c.MaxBytes < 0:
		return fmt.Errorf("queue: max bytes must be 0 (no limit) or positive, got %d", c.MaxBytes)
	}
	for i, d := range c.BackOff {
		if d <= 0 {
			return fmt.Errorf("queue: backoff entry %d must be positive, got %v", i+1, d)
		}
	}
	return nil
}

// AckDeadline is how long delivery number n (1-based) of a job may go
// without an ack or heartbeat before the server redelivers it, for a
// consumer configured as cc.
func AckDeadline(cc jetstream.ConsumerConfig, n uint64) time.Duration {
	if l := len(cc.BackOff); l > 0 {
		i := int(min(n, uint64(l))) - 1
		return cc.BackOff[max(i, 0)]
	}
	return cc.AckWait
}

// PublishTimeout bounds how long one publish waits for the server's
// PubAck before it counts as failed (and is retried): async publishes
// here, and the callers' contexts of their synchronous ones.
const PublishTimeout = 10 * time.Second

// New returns the JetStream context tessera uses on nc.
func New(nc *nats.Conn) (jetstream.JetStream, error) {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(PublishTimeout))
	if err != nil {
		return nil, fmt.Errorf("jetstream context: %w", err)
	}
	return js, nil
}

// EnsureStreams creates or updates TESSERA_JOBS, TESSERA_RESULTS,
// TESSERA_DEAD and TESSERA_PARKED. It is idempotent; every process calls it at start. A new
// stream gets c.Replicas; an existing one keeps its replica count
// (ReplicaDrift reports a difference, ApplyReplicas changes it).
func EnsureStreams(ctx context.Context, js jetstream.JetStream, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	streams := []jetstream.StreamConfig{{
		Name:        JobsStream,
		Description: "tessera solve jobs: one message per batch range",
		Subjects:    []string{JobsSubjects},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Duplicates:  c.DuplicateWindow,
		Replicas:    c.Replicas,
		MaxBytes:    c.maxBytes(),
		Discard:     jetstream.DiscardNew,
	}, {
		Name:        ResultsStream,
		Description: "tessera results: one message per solved job, consumed by the results writer",
		Subjects:    []string{ResultsSubjects},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Duplicates:  c.DuplicateWindow,
		Replicas:    c.Replicas,
		MaxBytes:    c.maxBytes(),
		Discard:     jetstream.DiscardNew,
	}, {
		Name:        DeadStream,
		Description: "tessera dead letters: exhausted-delivery advisories and undecodable jobs",
		Subjects:    []string{MaxDeliveriesSubject, DeadJobsSubject},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		MaxAge:      c.DeadMaxAge,
		Duplicates:  min(c.DuplicateWindow, c.DeadMaxAge),
		Replicas:    c.Replicas,
		MaxBytes:    c.maxBytes(),
		Discard:     jetstream.DiscardNew,
	}, parkedStreamConfig(c)}
	for _, sc := range streams {
		if err := Place(ctx, js.Conn(), sc.Replicas, func() error { return ensureStream(ctx, js, sc) }); err != nil {
			return bytesError(sc, ReplicasError(js.Conn(), "stream "+sc.Name, sc.Replicas, err))
		}
	}
	return nil
}

// ensureStream creates sc or updates it when it differs, except in its
// replica count, which an existing stream keeps. It does not update a
// stream that already matches: every process calls EnsureStreams at start,
// and an update racing a consumer creation trips a data race inside
// nats-server 2.15 (seen with -race).
func ensureStream(ctx context.Context, js jetstream.JetStream, sc jetstream.StreamConfig) error {
	s, err := js.Stream(ctx, sc.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = js.CreateStream(ctx, sc)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return nil // created meanwhile by another process
		}
		if err != nil {
			return err
		}
		return CheckReplicas(ctx, js, sc.Name, "stream "+sc.Name, sc.Replicas)
	}
	if err != nil {
		return err
	}
	have := s.CachedInfo().Config
	sc.Replicas, sc.MaxBytes, sc.Discard = have.Replicas, have.MaxBytes, have.Discard
	if slices.Equal(have.Subjects, sc.Subjects) && have.Retention == sc.Retention && have.Storage == sc.Storage &&
		have.Duplicates == sc.Duplicates && have.MaxAge == sc.MaxAge &&
		have.Description == sc.Description {
		return nil
	}
	_, err = js.UpdateStream(ctx, sc)
	return err
}

// Filters of the two job consumers of normal priority.
const (
	heavyFilter = "tessera.jobs.*.*"
	quickFilter = "tessera.jobs.quick.*.*"
)

// DeadCopiesConsumer is the results writer's consumer of the job copies in
// TESSERA_DEAD: it records them in PostgreSQL's dead_letters.
const DeadCopiesConsumer = "results-dead"

// JobSubject is the subject of a job for spec in lane at prio:
// tessera.jobs.<kind>.<rows>x<cols> (heavy) or
// tessera.jobs.quick.<kind>.<rows>x<cols> (quick) at normal priority, and
// tessera.jobs.<prio>.<lane>.<kind>.<rows>x<cols> at high or low.
func JobSubject(spec puzzle.Spec, lane job.Lane, prio job.Priority) string {
	tail := spec.Kind.String() + "." + dims(spec)
	switch {
	case prio != job.PriorityNormal && prio != "":
		return "tessera.jobs." + string(prio) + "." + string(lane) + "." + tail
	case lane == job.LaneQuick:
		return "tessera.jobs.quick." + tail
	}
	return "tessera.jobs." + tail
}

// ResultsSubject is the subject of the results of a job for the puzzle
// named puzzleText; a name that does not parse goes to tessera.results.unknown
// (invalid results must still be recorded).
func ResultsSubject(puzzleText string) string {
	spec, err := puzzle.ParseSpec(puzzleText)
	if err != nil {
		return "tessera.results.unknown"
	}
	return "tessera.results." + spec.Kind.String() + "." + dims(spec)
}

func dims(s puzzle.Spec) string {
	return strconv.Itoa(s.Rows) + "x" + strconv.Itoa(s.Cols)
}

// MaxDeliveriesAdvisory is the part of the server's
// io.nats.jetstream.advisory.v1.max_deliver event tessera reads.
type MaxDeliveriesAdvisory struct {
	Type       string `json:"type"`
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}
