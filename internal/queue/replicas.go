package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Replica counts have one owner. A process creates what is missing with
// Config.Replicas, but never changes the replicas of a stream, consumer or
// bucket that exists: an operator's R3 streams must not be scaled back by
// the first `solverd run` started with the default of 1. ReplicaDrift says
// what differs (the daemons log it once), ApplyReplicas changes it
// (`solverd queue apply`).
//
// Consumers are created with Replicas 0, which the server reads as "the
// stream's": work-queue streams require their consumers to have exactly
// the stream's replicas, and on 2.10+ scaling such a stream scales them.

// ErrReplicas marks a request for more replicas than the NATS deployment
// can place: a single server, or a cluster with fewer servers.
var ErrReplicas = errors.New("replicas cannot be placed")

// placementCodes are the server's answers to an unplaceable replica count:
// no suitable peers (10005), insufficient resources (10023), peer remap
// failed (10075), replicas > 1 not supported in non-clustered mode (10074).
var placementCodes = []jetstream.ErrorCode{10005, 10023, 10074, 10075}

// ReplicasError rewords a placement failure of what (a stream or bucket)
// created or scaled to asked replicas in plain words, wrapping
// ErrReplicas; other errors pass unchanged.
func ReplicasError(nc *nats.Conn, what string, asked int, err error) error {
	var apiErr *jetstream.APIError
	if err == nil || asked <= 1 || !errors.As(err, &apiErr) {
		return err
	}
	placement := false
	for _, c := range placementCodes {
		placement = placement || apiErr.ErrorCode == c
	}
	if !placement {
		return err
	}
	return notPlaceable(nc, what, asked, err.Error())
}

// CheckReplicas fails, as ReplicasError does, when stream (what: the
// stream or bucket behind it) runs at fewer than asked replicas right after
// it was created or scaled, or the server is not clustered at all:
// nats-server 2.9.10 on a single server refuses to create an R3 stream but
// accepts an update to R3, reporting 3 while it keeps one copy.
func CheckReplicas(ctx context.Context, js jetstream.JetStream, stream, what string, asked int) error {
	if asked <= 1 {
		return nil
	}
	if !clustered(js.Conn()) {
		return notPlaceable(js.Conn(), what, asked, "the server runs one copy")
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if got := s.CachedInfo().Config.Replicas; got < asked {
		return notPlaceable(js.Conn(), what, asked, fmt.Sprintf("the server runs it at %d", got))
	}
	return nil
}

func notPlaceable(nc *nats.Conn, what string, asked int, detail string) error {
	n := 1
	if clustered(nc) {
		n = serverCount(nc)
	}
	return fmt.Errorf("%s: %d replicas asked but %s cannot place them: set nats.replicas to at most %s (%w: %s)",
		what, asked, describe(nc, n), maxReplicas(nc, n), ErrReplicas, detail)
}

// clustered says whether nc's server is part of a cluster.
func clustered(nc *nats.Conn) bool { return nc != nil && nc.ConnectedClusterName() != "" }

// describe is the server side as the client sees it, with n servers
// answering (counted by name: a cluster advertises each server under
// several URLs).
func describe(nc *nats.Conn, n int) string {
	if !clustered(nc) {
		return "a single NATS server (not a cluster)"
	}
	return fmt.Sprintf("NATS cluster %s (%d servers)", nc.ConnectedClusterName(), n)
}

func maxReplicas(nc *nats.Conn, n int) string {
	if !clustered(nc) {
		return "1"
	}
	// Answering servers may include ones without JetStream.
	return fmt.Sprintf("the number of servers with JetStream (%d answering)", n)
}

// BucketStream is the stream behind a key-value bucket (KV_<bucket>).
func BucketStream(bucket string) string { return "KV_" + bucket }

// ObjectStoreStream is the stream behind an object-store bucket
// (OBJ_<bucket>).
func ObjectStoreStream(bucket string) string { return "OBJ_" + bucket }

// replicaStreams are the streams whose replicas tessera owns: its three
// streams, the control buckets', the workers bucket's, and the given
// object-store buckets'.
func replicaStreams(objectBuckets []string) []string {
	// The split bucket exists once a split search ran (producer --split),
	// the workers bucket once a process registered.
	names := []string{JobsStream, ResultsStream, DeadStream, ParkedStream,
		BucketStream(CancelledBucket), BucketStream(PausedBucket), BucketStream(SplitBucket),
		BucketStream(SplitAnswersBucket), BucketStream(WorkersBucket)}
	for _, b := range objectBuckets {
		if b != "" {
			names = append(names, ObjectStoreStream(b))
		}
	}
	return names
}

// ReplicaDriftWarning is what a process logs, once, with ReplicaDrift's
// list.
const ReplicaDriftWarning = "existing streams keep their replica count and byte limit (nats.replicas and " +
	"nats.max_bytes apply to new ones); run `solverd queue apply` to change them"

// ReplicaDrift lists the existing tessera streams and buckets (the given
// object-store buckets included) whose replica count differs from c's,
// e.g. "TESSERA_JOBS: 3 replicas on the server, nats.replicas 1", and the
// streams whose byte limit differs from nats.max_bytes. They are left as
// they are; callers log the list once.
func ReplicaDrift(ctx context.Context, js jetstream.JetStream, c Config, objectBuckets ...string) ([]string, error) {
	var out []string
	for _, name := range replicaStreams(objectBuckets) {
		s, err := js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", name, err)
		}
		if have := s.CachedInfo().Config.Replicas; have != c.Replicas {
			out = append(out, fmt.Sprintf("%s: %d replicas on the server, nats.replicas %d", name, have, c.Replicas))
		}
	}
	limits, err := maxBytesDrift(ctx, js, c)
	return append(out, limits...), err
}

// ApplyReplicas sets the replica count of every existing tessera stream and
// bucket (the given object-store buckets included) and of the durable
// consumers on them that name their own to c.Replicas, and returns what it
// changed, one line each ("TESSERA_JOBS: replicas 1 -> 3"). It is the one
// deliberate way to change them (`solverd queue apply`). Raising waits for
// nothing: the new replicas catch up in the background.
func ApplyReplicas(ctx context.Context, js jetstream.JetStream, c Config, objectBuckets ...string) ([]string, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Replicas > 1 && !clustered(js.Conn()) {
		// Checked first: nats-server 2.9.10 on a single server accepts
		// the update and keeps running one copy.
		return nil, notPlaceable(js.Conn(), "the streams", c.Replicas, "")
	}
	var done []string
	var streams []jetstream.Stream
	for _, name := range replicaStreams(objectBuckets) {
		s, err := js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			continue
		}
		if err != nil {
			return done, fmt.Errorf("stream %s: %w", name, err)
		}
		streams = append(streams, s)
		sc := s.CachedInfo().Config
		if was := sc.Replicas; was != c.Replicas {
			sc.Replicas = c.Replicas
			if err := Place(ctx, js.Conn(), c.Replicas, func() error { _, err := js.UpdateStream(ctx, sc); return err }); err != nil {
				return done, ReplicasError(js.Conn(), "stream "+name, c.Replicas, fmt.Errorf("set replicas: %w", err))
			}
			done = append(done, fmt.Sprintf("stream %s: replicas %d -> %d", name, was, c.Replicas))
		}
	}
	// A consumer may only grow once its stream's new peers have joined
	// (2.10+ then grows a work-queue stream's consumers by itself); the
	// streams catch up together.
	for _, s := range streams {
		if err := waitPeers(ctx, s, c.Replicas); err != nil {
			return done, fmt.Errorf("stream %s: %w", s.CachedInfo().Config.Name, err)
		}
	}
	for _, s := range streams {
		lines, err := applyConsumerReplicas(ctx, js, s, c.Replicas)
		done = append(done, lines...)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// peersWait bounds how long ApplyReplicas waits for a stream's new peers.
const peersWait = 2 * time.Minute

// waitPeers waits until s runs on replicas peers, all current.
func waitPeers(ctx context.Context, s jetstream.Stream, replicas int) error {
	deadline := time.Now().Add(peersWait)
	for {
		info, err := s.Info(ctx)
		if err == nil && info.Cluster != nil && len(info.Cluster.Replicas) == replicas-1 {
			current := true
			for _, r := range info.Cluster.Replicas {
				current = current && r.Current
			}
			if current {
				return nil
			}
		} else if err == nil && info.Cluster == nil && replicas == 1 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("its %d replicas not all current after %v (err %v)", replicas, peersWait, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// applyConsumerReplicas sets the replicas of the durable consumers of s
// that name a count of their own (0 follows the stream).
func applyConsumerReplicas(ctx context.Context, js jetstream.JetStream, s jetstream.Stream, replicas int) ([]string, error) {
	var done []string
	name := s.CachedInfo().Config.Name
	lister := s.ListConsumers(ctx)
	var infos []*jetstream.ConsumerInfo
	for info := range lister.Info() {
		infos = append(infos, info)
	}
	if err := lister.Err(); err != nil {
		return nil, fmt.Errorf("consumers of %s: %w", name, err)
	}
	for _, info := range infos {
		cc := info.Config
		if cc.Durable == "" || cc.Replicas == 0 || cc.Replicas == replicas {
			continue
		}
		was := cc.Replicas
		cc.Replicas = replicas
		// The stream's new count reaches the consumer's checks a moment
		// after UpdateStream returns (and 2.10+ remaps work-queue
		// consumers by itself meanwhile): retry "exceeds parent stream".
		var err error
		for try := 0; ; try++ {
			_, err = js.UpdateConsumer(ctx, name, cc)
			var apiErr *jetstream.APIError
			if err == nil || try == 50 || !errors.As(err, &apiErr) || apiErr.ErrorCode != errCodeReplicasExceedStream {
				break
			}
			select {
			case <-ctx.Done():
				return done, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
		if err != nil {
			return done, fmt.Errorf("consumer %s on %s: set replicas %d: %w", cc.Durable, name, replicas, err)
		}
		done = append(done, fmt.Sprintf("consumer %s on %s: replicas %d -> %d", cc.Durable, name, was, replicas))
	}
	return done, waitConsumers(ctx, js, name, infos, replicas)
}

// consumerFollowWait is how long a consumer that follows its stream
// (Replicas 0) is given to be regrown by the server before it is set
// explicitly (servers before 2.10 may not regrow it).
const consumerFollowWait = 15 * time.Second

// waitConsumers waits until every durable consumer in infos runs on
// replicas peers.
func waitConsumers(ctx context.Context, js jetstream.JetStream, stream string, infos []*jetstream.ConsumerInfo, replicas int) error {
	start := time.Now()
	for _, info := range infos {
		if info.Config.Durable == "" {
			continue
		}
		pushed := false
		for {
			cons, err := js.Consumer(ctx, stream, info.Config.Durable)
			if err != nil {
				return fmt.Errorf("consumer %s on %s: %w", info.Config.Durable, stream, err)
			}
			ci := cons.CachedInfo()
			if peers(ci.Cluster) == replicas {
				break
			}
			if !pushed && ci.Config.Replicas == 0 && time.Since(start) > consumerFollowWait {
				cc := ci.Config
				cc.Replicas = replicas
				if _, err := js.UpdateConsumer(ctx, stream, cc); err != nil {
					return fmt.Errorf("consumer %s on %s: set replicas %d: %w", cc.Durable, stream, replicas, err)
				}
				pushed = true
			}
			if time.Since(start) > peersWait {
				return fmt.Errorf("consumer %s on %s: %d of %d replicas after %v", info.Config.Durable, stream, peers(ci.Cluster), replicas, peersWait)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

// peers is how many servers run an asset with cluster info ci.
func peers(ci *jetstream.ClusterInfo) int {
	if ci == nil {
		return 1
	}
	return 1 + len(ci.Replicas)
}

// errCodeReplicasExceedStream is the server's "consumer config replica
// count exceeds parent stream" (nats.go names no constant for it).
const errCodeReplicasExceedStream jetstream.ErrorCode = 10126

// placeWait bounds how long Place waits out offline peers.
const placeWait = 20 * time.Second

// Place runs f, which creates or scales something to asked replicas, and
// runs it again while the server answers that it cannot place them
// because a peer is offline although the cluster knows enough servers (a
// node restarting, or one whose heartbeats lag on a loaded host: seen in
// the cluster tests under a full parallel test run), or while the request
// times out (a cluster still forming the new raft group answers after the
// client's API timeout: f must be safe to repeat, as ensuring is). Any
// other answer, and the same one after placeWait, is returned as it is.
// Consumers pass asked 0: they take their stream's replicas.
func Place(ctx context.Context, nc *nats.Conn, asked int, f func() error) error {
	deadline := time.Now().Add(placeWait)
	for {
		err := f()
		offline := peerOffline(err) && clustered(nc) && len(nc.Servers()) >= asked
		timedOut := ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout))
		if !offline && !timedOut || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// peerOffline: "no suitable peers for placement, peer offline" (10005).
func peerOffline(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == 10005 && strings.Contains(apiErr.Description, "offline")
}
