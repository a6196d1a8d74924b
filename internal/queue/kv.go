package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// EnsureBucket opens a key-value or object-store bucket with open,
// creating it with create when it is missing: the one way tessera makes
// its buckets. Creating waits out a cluster still electing the bucket's
// leader (Place) and checks that the replicas asked for were placed on
// stream, the bucket's backing stream; two processes creating it at once
// both end with the bucket. An existing bucket is left as it is: its
// replicas are the operator's (`solverd queue apply`).
func EnsureBucket[B any](ctx context.Context, js jetstream.JetStream, replicas int, bucket, stream string,
	open, create func(context.Context) (B, error)) (B, error) {
	b, err := open(ctx)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		err = Place(ctx, js.Conn(), replicas, func() (err error) {
			b, err = create(ctx)
			return err
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			b, err = open(ctx)
		} else if err == nil {
			err = CheckReplicas(ctx, js, stream, "bucket "+bucket, replicas)
		}
		err = ReplicasError(js.Conn(), "bucket "+bucket, replicas, err)
	}
	if err != nil {
		var none B
		return none, fmt.Errorf("bucket %s: %w", bucket, err)
	}
	return b, nil
}

// openKV opens the key-value bucket cfg names, creating it at c's replicas
// when it is missing (EnsureBucket).
func openKV(ctx context.Context, js jetstream.JetStream, c Config, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	cfg.Replicas = max(c.Replicas, 1)
	return EnsureBucket(ctx, js, c.Replicas, cfg.Bucket, BucketStream(cfg.Bucket),
		func(ctx context.Context) (jetstream.KeyValue, error) { return js.KeyValue(ctx, cfg.Bucket) },
		func(ctx context.Context) (jetstream.KeyValue, error) { return js.CreateKeyValue(ctx, cfg) })
}
