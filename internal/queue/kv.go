package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// openKV opens the key-value bucket cfg names, creating it at c's replicas
// when it is missing. Creating waits out a cluster still electing the
// bucket's leader (Place) and checks that the replicas asked for were
// placed; two processes creating it at once both end with the bucket.
func openKV(ctx context.Context, js jetstream.JetStream, c Config, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, cfg.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		cfg.Replicas = max(c.Replicas, 1)
		err = Place(ctx, js.Conn(), c.Replicas, func() (err error) {
			kv, err = js.CreateKeyValue(ctx, cfg)
			return err
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = js.KeyValue(ctx, cfg.Bucket)
		} else if err == nil {
			err = CheckReplicas(ctx, js, BucketStream(cfg.Bucket), "bucket "+cfg.Bucket, c.Replicas)
		}
		err = ReplicasError(js.Conn(), "bucket "+cfg.Bucket, c.Replicas, err)
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", cfg.Bucket, err)
	}
	return kv, nil
}
