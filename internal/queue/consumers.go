package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/tessera-solver/tessera/internal/job"
)

// The durable consumers tessera's processes share: each found or created
// by name, never rewritten by one process's flags (but by `solverd queue
// apply`).

// ConsumerOf is the durable consumer of a lane's jobs at prio: solverd and
// solverd-quick at normal priority (the plain names, which a deployment's
// existing consumers already have), solverd-<prio> and
// solverd-quick-<prio> at the others.
func ConsumerOf(lane job.Lane, prio job.Priority) string {
	name := JobsConsumer
	if lane == job.LaneQuick {
		name = QuickConsumer
	}
	if prio != job.PriorityNormal && prio != "" {
		name += "-" + string(prio)
	}
	return name
}

// JobsConsumers is every consumer of whole jobs, each lane at each
// priority (not the split consumer).
func JobsConsumers() []string {
	var out []string
	for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
		for _, p := range job.Priorities() {
			out = append(out, ConsumerOf(lane, p))
		}
	}
	return out
}

// jobsConsumerConfig is the configuration of the consumer of a lane's jobs
// at prio under c. Normal priority has the plain subjects (4 and 5
// tokens), so jobs a deployment already holds stay readable; high and low
// add two tokens
// (tessera.jobs.<prio>.<lane>.<kind>.<RxC>), so no filter overlaps another.
func jobsConsumerConfig(c Config, lane job.Lane, prio job.Priority) jetstream.ConsumerConfig {
	filter, about := heavyFilter, "solverd workers: heavy lane"
	if lane == job.LaneQuick {
		filter, about = quickFilter, "solverd workers: quick lane"
	}
	if prio != job.PriorityNormal && prio != "" {
		filter = "tessera.jobs." + string(prio) + "." + string(lane) + ".*.*"
		about += ", " + string(prio) + " priority"
	}
	cc := jetstream.ConsumerConfig{
		Durable:       ConsumerOf(lane, prio),
		Description:   about,
		FilterSubject: filter,
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckWait:       c.AckWait,
		MaxDeliver:    c.MaxDeliver,
		BackOff:       c.BackOff,
		MaxAckPending: c.MaxAckPending,
		MemoryStorage: c.MemoryConsumers,
		// Replicas 0: the stream's (replicas.go).
	}
	if len(c.BackOff) > 0 {
		// The server sets AckWait to BackOff[0] anyway; saying so keeps
		// a comparison from seeing a difference.
		cc.AckWait = c.BackOff[0]
	}
	return cc
}

// EnsureJobsConsumerAt returns the durable pull consumer the solverd
// workers share for the jobs of one lane at prio, creating it with c's
// settings when it is missing. An existing consumer keeps its settings:
// they are shared by every solverd, so one solverd's flags must not
// rewrite them for all (ApplyJobsConsumers does that, on purpose;
// JobsConsumerDrift says what differs).
func EnsureJobsConsumerAt(ctx context.Context, js jetstream.JetStream, c Config, lane job.Lane, prio job.Priority) (jetstream.Consumer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := refusePreLanes(ctx, js); err != nil {
		return nil, err
	}
	cc := jobsConsumerConfig(c, lane, prio)
	cons, err := findOrCreate(ctx, js, JobsStream, cc)
	if err != nil {
		return nil, fmt.Errorf("ensure consumer %s on %s: %w", cc.Durable, JobsStream, err)
	}
	return cons, nil
}

// ErrPreLanesConsumer marks a deployment whose solverd consumer reads the
// whole jobs stream, as it did before lanes: the quick consumer would
// overlap it, and the operator removes it once (its unacknowledged jobs
// stay in the work-queue stream, and the heavy lane's consumer created in
// its place delivers them).
var ErrPreLanesConsumer = errors.New("consumer " + JobsConsumer + " on " + JobsStream + " reads the whole stream; " +
	"remove it with `nats consumer rm " + JobsStream + " " + JobsConsumer + "`, then restart solverd (its queued jobs are kept)")

// refusePreLanes reports ErrPreLanesConsumer when the solverd consumer
// has no filter.
func refusePreLanes(ctx context.Context, js jetstream.JetStream) error {
	old, err := js.Consumer(ctx, JobsStream, JobsConsumer)
	switch {
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("read consumer %s on %s: %w", JobsConsumer, JobsStream, err)
	case old.CachedInfo().Config.FilterSubject == "" && len(old.CachedInfo().Config.FilterSubjects) == 0:
		return fmt.Errorf("ensure the lanes' consumers: %w", ErrPreLanesConsumer)
	}
	return nil
}

// ApplyJobsConsumers creates or updates every lane's consumers with c's
// settings: the one deliberate way to change what every solverd shares
// (`solverd queue apply`).
func ApplyJobsConsumers(ctx context.Context, js jetstream.JetStream, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
		for _, prio := range job.Priorities() {
			if _, err := EnsureJobsConsumerAt(ctx, js, c, lane, prio); err != nil { // creates, or refuses a pre-lanes consumer
				return err
			}
			cc := jobsConsumerConfig(c, lane, prio)
			if _, err := ensureConsumer(ctx, js, JobsStream, cc); err != nil {
				return fmt.Errorf("apply settings to consumer %s on %s: %w", cc.Durable, JobsStream, err)
			}
		}
	}
	return nil
}

// JobsConsumerDrift lists, per lane's existing consumer, the settings
// that differ from c's ("solverd max_deliver: 5 on the server, 3 here");
// empty when they agree or the consumers do not exist yet.
func JobsConsumerDrift(ctx context.Context, js jetstream.JetStream, c Config) ([]string, error) {
	var out []string
	for _, lane := range []job.Lane{job.LaneQuick, job.LaneHeavy} {
		for _, prio := range job.Priorities() {
			want := jobsConsumerConfig(c, lane, prio)
			cons, err := js.Consumer(ctx, JobsStream, want.Durable)
			if errors.Is(err, jetstream.ErrConsumerNotFound) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("consumer %s on %s: %w", want.Durable, JobsStream, err)
			}
			have := cons.CachedInfo().Config
			diff := func(name string, h, w any) {
				if fmt.Sprint(h) != fmt.Sprint(w) {
					out = append(out, fmt.Sprintf("%s %s: %v on the server, %v here", want.Durable, name, h, w))
				}
			}
			diff("max_deliver", have.MaxDeliver, want.MaxDeliver)
			diff("ack_wait", have.AckWait, want.AckWait)
			diff("backoff", have.BackOff, want.BackOff)
			diff("max_ack_pending", have.MaxAckPending, want.MaxAckPending)
		}
	}
	return out, nil
}

// EnsureResultsConsumer creates or updates the durable pull consumer of the
// results writer (keeping its replica count).
func EnsureResultsConsumer(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.Consumer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cons, err := ensureConsumer(ctx, js, ResultsStream, jetstream.ConsumerConfig{
		Durable:       ResultsConsumer,
		Description:   "results writer",
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckWait:       c.ResultsAckWait,
		MaxAckPending: c.ResultsMaxAckPending,
		MemoryStorage: c.MemoryConsumers,
	})
	if err != nil {
		return nil, fmt.Errorf("ensure consumer %s on %s: %w", ResultsConsumer, ResultsStream, err)
	}
	return cons, nil
}

// EnsureDeadConsumer creates or updates the durable pull consumer that
// turns exhausted-delivery advisories into failed results.
func EnsureDeadConsumer(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.Consumer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cons, err := ensureConsumer(ctx, js, DeadStream, jetstream.ConsumerConfig{
		Durable:       DeadConsumer,
		Description:   "records jobs that exhausted their deliveries as failed",
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		FilterSubject: MaxDeliveriesSubject,
		AckWait:       30 * time.Second,
		// Retried forever with a delay: giving up here would lose the job.
		MaxDeliver:    -1,
		MemoryStorage: c.MemoryConsumers,
	})
	if err != nil {
		return nil, fmt.Errorf("ensure consumer %s on %s: %w", DeadConsumer, DeadStream, err)
	}
	return cons, nil
}

// EnsureDeadCopiesConsumer creates or updates the durable pull consumer
// through which the results writer records TESSERA_DEAD's job copies as
// dead letters in PostgreSQL. TESSERA_DEAD keeps the copies anyway (limits
// retention, DeadMaxAge).
func EnsureDeadCopiesConsumer(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.Consumer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cons, err := ensureConsumer(ctx, js, DeadStream, jetstream.ConsumerConfig{
		Durable:       DeadCopiesConsumer,
		Description:   "results writer: job copies to PostgreSQL dead_letters",
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		FilterSubject: DeadJobsSubject,
		AckWait:       c.ResultsAckWait,
		MemoryStorage: c.MemoryConsumers,
	})
	if err != nil {
		return nil, fmt.Errorf("ensure consumer %s on %s: %w", DeadCopiesConsumer, DeadStream, err)
	}
	return cons, nil
}

// ensureConsumer creates the durable consumer cc on stream, or updates an
// existing one to cc's settings while keeping its replica count.
func ensureConsumer(ctx context.Context, js jetstream.JetStream, stream string, cc jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	cc.Replicas = 0 // the stream's; see the comment at the top
	cons, err := findOrCreate(ctx, js, stream, cc)
	if err != nil {
		return nil, err
	}
	// Found, or created meanwhile by another process, perhaps
	// differently: update it, keeping its replicas.
	cc.Replicas = cons.CachedInfo().Config.Replicas
	err = Place(ctx, js.Conn(), 0, func() (err error) {
		cons, err = js.UpdateConsumer(ctx, stream, cc)
		return err
	})
	return cons, err
}

// findOrCreate returns the durable consumer cc.Durable of stream, creating
// it with cc when it is missing (one that exists keeps its settings). It
// goes through Place: the consumer of a stream just made with replicas
// has a raft group of its own, which may answer after the client's API
// timeout (seen in the fault suite's cluster on a loaded host).
func findOrCreate(ctx context.Context, js jetstream.JetStream, stream string, cc jetstream.ConsumerConfig) (cons jetstream.Consumer, err error) {
	err = Place(ctx, js.Conn(), 0, func() (err error) {
		cons, err = js.Consumer(ctx, stream, cc.Durable)
		if !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return err
		}
		cons, err = js.CreateConsumer(ctx, stream, cc)
		if errors.Is(err, jetstream.ErrConsumerExists) {
			cons, err = js.Consumer(ctx, stream, cc.Durable) // created meanwhile by another process
		}
		return err
	})
	return cons, err
}
