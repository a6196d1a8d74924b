package queue

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
	"github.com/tessera-solver/tessera/internal/puzzle"
)

// The split search's side of JetStream (issue 27, docs/ARCHITECTURE.md
// "Split search"): the bucket of coordination records, changed only by
// compare-and-set on the revision, and the subtree jobs, on subjects of
// their own in TESSERA_JOBS with a consumer of their own, so that they
// never queue ahead of the quick lane's jobs nor of whole heavy jobs.

// SplitBucket is the key-value bucket of split searches' records (key:
// job.SplitKey).
const SplitBucket = "tessera-split"

// SplitConsumer is the durable consumer of subtree jobs, shared by every
// solverd; splitFilter its subjects, tessera.jobs.split.<kind>.<RxC>
// (five tokens: neither lane's filter matches them).
const (
	SplitConsumer = "solverd-split"
	splitFilter   = "tessera.jobs.split.*.*"
)

// ErrNoSplit is returned for a key the split bucket does not hold.
var ErrNoSplit = errors.New("no split record")

// SubtreeSubject is the subject of a subtree job of spec.
func SubtreeSubject(spec puzzle.Spec) string {
	return "tessera.jobs.split." + spec.Kind.String() + "." + dims(spec)
}

// Splits is the bucket of split searches' records and the publisher of
// their subtree jobs.
type Splits struct {
	js jetstream.JetStream
	kv jetstream.KeyValue
}

// OpenSplits opens the split bucket, creating it at c's replicas when it
// is missing.
func OpenSplits(ctx context.Context, js jetstream.JetStream, c Config) (*Splits, error) {
	kv, err := openKV(ctx, js, c, jetstream.KeyValueConfig{Bucket: SplitBucket,
		Description: "split searches: one coordination record per state"})
	if err != nil {
		return nil, err
	}
	return &Splits{js: js, kv: kv}, nil
}

// Get reads the record of key and its revision (ErrNoSplit when there
// is none).
func (s *Splits) Get(ctx context.Context, key string) (job.SplitRecord, uint64, error) {
	e, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return job.SplitRecord{}, 0, fmt.Errorf("split %s: %w", key, ErrNoSplit)
	}
	if err != nil {
		return job.SplitRecord{}, 0, fmt.Errorf("split %s: %w", key, err)
	}
	r, err := job.DecodeSplitRecord(e.Value())
	return r, e.Revision(), err
}

// Create stores r under its key unless a record is there already, and
// returns the record that is there (r, or the one another process made
// first: a redelivered parent job continues it).
func (s *Splits) Create(ctx context.Context, r job.SplitRecord) (job.SplitRecord, error) {
	key := job.SplitKey(r.Batch, r.Seq)
	data, err := json.Marshal(r)
	if err != nil {
		return r, fmt.Errorf("split %s: %w", key, err)
	}
	if _, err := s.kv.Create(ctx, key, data); err == nil {
		return r, nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return r, fmt.Errorf("split %s: %w", key, err)
	}
	have, _, err := s.Get(ctx, key)
	return have, err
}

// Update applies change to the record of key by compare-and-set: when
// another process wrote first, it re-reads and applies change again, so
// change must be a pure function of the record (job's rules). It returns
// the record as stored and whether change changed it (false: nothing
// written).
func (s *Splits) Update(ctx context.Context, key string, change func(*job.SplitRecord) bool) (job.SplitRecord, bool, error) {
	for {
		r, rev, err := s.Get(ctx, key)
		if err != nil {
			return r, false, err
		}
		if !change(&r) {
			return r, false, nil
		}
		data, err := json.Marshal(r)
		if err != nil {
			return r, false, fmt.Errorf("split %s: %w", key, err)
		}
		_, err = s.kv.Update(ctx, key, data, rev)
		if err == nil {
			return r, true, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return r, false, fmt.Errorf("split %s: %w", key, err)
		}
	}
}

// Watch reports every change of key's record (the current one first).
func (s *Splits) Watch(ctx context.Context, key string) (jetstream.KeyWatcher, error) {
	w, err := s.kv.Watch(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("watch split %s: %w", key, err)
	}
	return w, nil
}

// PublishSubtree publishes a subtree job; its id makes a republished
// subtree one message while the stream's duplicate window remembers it
// (and the record's bitset counts its answer once when it does not).
func (s *Splits) PublishSubtree(ctx context.Context, spec puzzle.Spec, sj job.SubtreeJob) error {
	data, err := json.Marshal(sj)
	if err != nil {
		return fmt.Errorf("subtree job %s: %w", sj.ID(), err)
	}
	if _, err := s.js.Publish(ctx, SubtreeSubject(spec), data, jetstream.WithMsgID(sj.ID()), jetstream.WithExpectStream(JobsStream)); err != nil {
		return fmt.Errorf("publish subtree job %s: %w", sj.ID(), err)
	}
	return nil
}

// EnsureSplitConsumer returns the consumer of subtree jobs, creating it
// with the jobs consumers' settings under c when it is missing.
func EnsureSplitConsumer(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.Consumer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cc := jobsConsumerConfig(c, job.LaneHeavy, job.PriorityNormal)
	cc.Durable, cc.Description, cc.FilterSubject = SplitConsumer, "solverd workers: subtree jobs of split searches", splitFilter
	cons, err := findOrCreate(ctx, js, JobsStream, cc)
	if err != nil {
		return nil, fmt.Errorf("ensure consumer %s on %s: %w", cc.Durable, JobsStream, err)
	}
	return cons, nil
}

// ListSplits reads the records of batch's split searches (every batch's
// when batch is 0), by batch and sequence; none when no split search has
// run (the bucket is missing: it is not created by a reader).
func ListSplits(ctx context.Context, js jetstream.JetStream, batch int64) ([]job.SplitRecord, error) {
	kv, err := js.KeyValue(ctx, SplitBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", SplitBucket, err)
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", SplitBucket, err)
	}
	s := &Splits{js: js, kv: kv}
	var out []job.SplitRecord
	for _, k := range keys {
		if batch != 0 && !strings.HasPrefix(k, strconv.FormatInt(batch, 10)+".") {
			continue
		}
		r, _, err := s.Get(ctx, k)
		if errors.Is(err, ErrNoSplit) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b job.SplitRecord) int {
		return cmp.Or(cmp.Compare(a.Batch, b.Batch), cmp.Compare(a.Seq, b.Seq))
	})
	return out, nil
}
