package queue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// CancelledBucket is the key-value bucket of cancelled batches (key: the
// batch id, value: when), which every solverd watches: running solves of a
// cancelled batch are stopped and its jobs answered as cancelled.
const CancelledBucket = "tessera-cancelled"

// PausedBucket is the key-value bucket of paused batches (key: the batch
// id, value: when); unpausing deletes the key. Every solverd watches it and
// parks the jobs of a paused batch instead of starting them (Park).
const PausedBucket = "tessera-paused"

// ErrBatchCancelled is the cause of a context ended by its batch's cancel
// (BatchSet.Context).
var ErrBatchCancelled = errors.New("batch cancelled")

func cancelledKV(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.KeyValue, error) {
	return openKV(ctx, js, c, jetstream.KeyValueConfig{Bucket: CancelledBucket,
		Description: "batches cancelled by `results cancel`"})
}

func pausedKV(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.KeyValue, error) {
	return openKV(ctx, js, c, jetstream.KeyValueConfig{Bucket: PausedBucket,
		Description: "batches paused by `results pause`"})
}

// EnsureControlBuckets creates the buckets of cancelled and paused batches
// when they are missing (`solverd queue apply`; solverd and the results
// commands create them on first use too).
func EnsureControlBuckets(ctx context.Context, js jetstream.JetStream, c Config) error {
	if _, err := cancelledKV(ctx, js, c); err != nil {
		return err
	}
	_, err := pausedKV(ctx, js, c)
	return err
}

// CancelBatch records in the bucket that batch is cancelled.
func CancelBatch(ctx context.Context, js jetstream.JetStream, c Config, batch int64, at time.Time) error {
	return putBatch(ctx, js, c, cancelledKV, "cancel", batch, at)
}

// UncancelBatch takes batch out of the cancelled set (a requeue of its
// cancelled states that the user asked for).
func UncancelBatch(ctx context.Context, js jetstream.JetStream, c Config, batch int64) error {
	return deleteBatch(ctx, js, c, cancelledKV, "uncancel", batch)
}

// PauseBatch records in the bucket that batch is paused.
func PauseBatch(ctx context.Context, js jetstream.JetStream, c Config, batch int64, at time.Time) error {
	return putBatch(ctx, js, c, pausedKV, "pause", batch, at)
}

// UnpauseBatch takes batch out of the paused set; its parked jobs are then
// returned by Unpark (which `results unpause` and every solverd's sweep run).
func UnpauseBatch(ctx context.Context, js jetstream.JetStream, c Config, batch int64) error {
	return deleteBatch(ctx, js, c, pausedKV, "unpause", batch)
}

type openBucket func(context.Context, jetstream.JetStream, Config) (jetstream.KeyValue, error)

func putBatch(ctx context.Context, js jetstream.JetStream, c Config, open openBucket, what string, batch int64, at time.Time) error {
	kv, err := open(ctx, js, c)
	if err != nil {
		return err
	}
	if _, err := kv.PutString(ctx, strconv.FormatInt(batch, 10), at.UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("%s batch %d: %w", what, batch, err)
	}
	return nil
}

func deleteBatch(ctx context.Context, js jetstream.JetStream, c Config, open openBucket, what string, batch int64) error {
	kv, err := open(ctx, js, c)
	if err != nil {
		return err
	}
	if err := kv.Delete(ctx, strconv.FormatInt(batch, 10)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("%s batch %d: %w", what, batch, err)
	}
	return nil
}

// BatchSet is a live view of a bucket whose keys are batch ids: the
// cancelled batches, or the paused ones. A nil *BatchSet holds nothing.
type BatchSet struct {
	mu sync.RWMutex
	at map[int64]string
	// waiting are the contexts (BatchSet.Context) to end when their batch
	// enters the set.
	waiting map[int64]map[*waiter]struct{}
}

type waiter struct{ cancel context.CancelCauseFunc }

// WatchCancelled follows the bucket of cancelled batches until ctx ends.
// The view starts with every batch cancelled so far.
func WatchCancelled(ctx context.Context, js jetstream.JetStream, c Config) (*BatchSet, error) {
	kv, err := cancelledKV(ctx, js, c)
	if err != nil {
		return nil, err
	}
	return watchBatches(ctx, kv)
}

// WatchPaused follows the bucket of paused batches until ctx ends.
func WatchPaused(ctx context.Context, js jetstream.JetStream, c Config) (*BatchSet, error) {
	kv, err := pausedKV(ctx, js, c)
	if err != nil {
		return nil, err
	}
	return watchBatches(ctx, kv)
}

func watchBatches(ctx context.Context, kv jetstream.KeyValue) (*BatchSet, error) {
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", kv.Bucket(), err)
	}
	v := &BatchSet{at: map[int64]string{}, waiting: map[int64]map[*waiter]struct{}{}}
	ready := make(chan struct{})
	go func() {
		defer w.Stop()
		initial := true
		for e := range w.Updates() {
			if e == nil { // the end of the values present at the start
				if initial {
					initial = false
					close(ready)
				}
				continue
			}
			id, err := strconv.ParseInt(e.Key(), 10, 64)
			if err != nil {
				continue
			}
			if e.Operation() == jetstream.KeyValuePut {
				v.add(id, string(e.Value()))
			} else {
				v.remove(id)
			}
		}
		if initial {
			close(ready)
		}
	}()
	select {
	case <-ready:
	case <-ctx.Done():
	}
	return v, nil
}

func (v *BatchSet) add(batch int64, at string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.at[batch] = at
	for w := range v.waiting[batch] {
		w.cancel(ErrBatchCancelled)
	}
	delete(v.waiting, batch)
}

func (v *BatchSet) remove(batch int64) {
	v.mu.Lock()
	delete(v.at, batch)
	v.mu.Unlock()
}

// At says whether batch is in the set, and since when.
func (v *BatchSet) At(batch int64) (string, bool) {
	if v == nil {
		return "", false
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	at, ok := v.at[batch]
	return at, ok
}

// Context is parent, ended with cause ErrBatchCancelled as soon as batch
// enters the set (at once if it is in it). stop releases it; call it when
// the work it covers is done.
func (v *BatchSet) Context(parent context.Context, batch int64) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	if v == nil {
		return ctx, func() { cancel(nil) }
	}
	w := &waiter{cancel: cancel}
	v.mu.Lock()
	if _, in := v.at[batch]; in {
		v.mu.Unlock()
		cancel(ErrBatchCancelled)
		return ctx, func() {}
	}
	if v.waiting[batch] == nil {
		v.waiting[batch] = map[*waiter]struct{}{}
	}
	v.waiting[batch][w] = struct{}{}
	v.mu.Unlock()
	return ctx, func() {
		v.mu.Lock()
		delete(v.waiting[batch], w)
		if len(v.waiting[batch]) == 0 {
			delete(v.waiting, batch)
		}
		v.mu.Unlock()
		cancel(nil)
	}
}
