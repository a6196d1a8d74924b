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
// batch id, value: when), which every solverd watches: the jobs of a
// cancelled batch are answered as failed instead of solved.
const CancelledBucket = "tessera-cancelled"

// EnsureCancelledBucket creates the bucket of cancelled batches when it is
// missing (`solverd queue apply`; solverd and `results cancel` create it
// on first use too).
func EnsureCancelledBucket(ctx context.Context, js jetstream.JetStream, c Config) error {
	_, err := cancelledKV(ctx, js, c)
	return err
}

func cancelledKV(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, CancelledBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		err = Place(ctx, js.Conn(), c.Replicas, func() (err error) {
			kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: CancelledBucket,
				Description: "batches cancelled by `results cancel`", Replicas: c.Replicas})
			return err
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = js.KeyValue(ctx, CancelledBucket)
		} else if err == nil {
			err = CheckReplicas(ctx, js, BucketStream(CancelledBucket), "bucket "+CancelledBucket, c.Replicas)
		}
		err = ReplicasError(js.Conn(), "bucket "+CancelledBucket, c.Replicas, err)
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", CancelledBucket, err)
	}
	return kv, nil
}

// CancelBatch records in the bucket that batch is cancelled.
func CancelBatch(ctx context.Context, js jetstream.JetStream, c Config, batch int64, at time.Time) error {
	kv, err := cancelledKV(ctx, js, c)
	if err != nil {
		return err
	}
	if _, err := kv.PutString(ctx, strconv.FormatInt(batch, 10), at.UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("cancel batch %d: %w", batch, err)
	}
	return nil
}

// Cancelled is a live view of the cancelled batches.
type Cancelled struct {
	mu sync.RWMutex
	at map[int64]string
}

// WatchCancelled follows the bucket until ctx ends. The view starts with
// every batch cancelled so far.
func WatchCancelled(ctx context.Context, js jetstream.JetStream, c Config) (*Cancelled, error) {
	kv, err := cancelledKV(ctx, js, c)
	if err != nil {
		return nil, err
	}
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", CancelledBucket, err)
	}
	v := &Cancelled{at: map[int64]string{}}
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
			if id, err := strconv.ParseInt(e.Key(), 10, 64); err == nil {
				v.mu.Lock()
				v.at[id] = string(e.Value())
				v.mu.Unlock()
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

// At says whether batch is cancelled, and when.
func (v *Cancelled) At(batch int64) (string, bool) {
	if v == nil {
		return "", false
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	at, ok := v.at[batch]
	return at, ok
}
