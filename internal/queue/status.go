package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Status is what `solverd queue status` shows: every tessera stream (the
// buckets' included) with its consumers. Field names are the JSON
// contract of `--json` (docs/ARCHITECTURE.md lists them).
type Status struct {
	// Server is how the client sees the deployment ("a single NATS
	// server (not a cluster)" or "NATS cluster C (3 servers known …)").
	Server  string         `json:"server"`
	Streams []StreamStatus `json:"streams"`
}

// StreamStatus is one stream.
type StreamStatus struct {
	Name string `json:"name"`
	// Kind is "stream", "kv" (the cancel bucket) or "object store" (the
	// tables bucket).
	Kind string `json:"kind"`
	// Missing: the stream does not exist (yet); nothing else is set.
	Missing bool `json:"missing,omitempty"`
	// Error: the stream did not answer (e.g. no leader while a cluster
	// elects one after losing a node); what follows it may be unset.
	Error    string `json:"error,omitempty"`
	Replicas int    `json:"replicas,omitempty"`
	Leader   string `json:"leader,omitempty"`
	// Peers are the leader's followers (none for one replica).
	Peers    []PeerStatus     `json:"peers,omitempty"`
	Messages uint64           `json:"messages"`
	Bytes    uint64           `json:"bytes"`
	FirstSeq uint64           `json:"first_seq"`
	LastSeq  uint64           `json:"last_seq"`
	Deleted  int              `json:"deleted"`
	Consumer []ConsumerStatus `json:"consumers,omitempty"`
	// Stranded is how many messages sit at or below the ack floor of a
	// consumer whose filter matches them (the sweeps' rule, one look:
	// the sweeps act on those found twice, StrandedEvery apart). Only for
	// the work-queue streams TESSERA_JOBS and TESSERA_RESULTS; -1 when
	// the look failed (StrandedError says why).
	Stranded      int    `json:"stranded"`
	StrandedError string `json:"stranded_error,omitempty"`
}

// PeerStatus is a follower of a stream or consumer.
type PeerStatus struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	Offline bool   `json:"offline,omitempty"`
	// Lag is how many operations the follower is behind.
	Lag uint64 `json:"lag,omitempty"`
	// ActiveMS is how long ago the leader last heard from it.
	ActiveMS int64 `json:"active_ms"`
}

// ConsumerStatus is one durable consumer.
type ConsumerStatus struct {
	Name     string       `json:"name"`
	Filter   string       `json:"filter,omitempty"`
	Replicas int          `json:"replicas"`
	Leader   string       `json:"leader,omitempty"`
	Peers    []PeerStatus `json:"peers,omitempty"`
	// Pending is how many matching messages have not been delivered yet.
	Pending uint64 `json:"pending"`
	// AckPending is how many were delivered and not acknowledged yet.
	AckPending int `json:"ack_pending"`
	// Redelivered is how many of those were delivered more than once.
	Redelivered int `json:"redelivered"`
	// Waiting is how many pull requests wait for messages.
	Waiting int `json:"waiting"`
	// AckFloor is the stream sequence up to which everything is
	// acknowledged; Delivered the last delivered one.
	AckFloor  uint64 `json:"ack_floor"`
	Delivered uint64 `json:"delivered"`
}

// CollectStatus reads the status of every tessera stream and bucket (the
// given object-store buckets included, when present). It only reads: the
// stranded counts come from BelowAckFloor, never from a sweep. A stream
// that does not answer is reported with its Error, not as the command's.
func CollectStatus(ctx context.Context, js jetstream.JetStream, objectBuckets ...string) (Status, error) {
	st := Status{Server: deployment(js.Conn())}
	for _, name := range replicaStreams(objectBuckets) {
		ss := StreamStatus{Name: name, Kind: "stream"}
		switch {
		case name == BucketStream(CancelledBucket) || name == BucketStream(SplitBucket) || name == BucketStream(WorkersBucket):
			ss.Kind = "kv"
		case name != JobsStream && name != ResultsStream && name != DeadStream:
			ss.Kind = "object store"
		}
		s, err := js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			if ss.Kind == "object store" || name == BucketStream(SplitBucket) || name == BucketStream(WorkersBucket) {
				continue // the tables bucket is optional; the split and workers buckets come with their first user
			}
			ss.Missing = true
			st.Streams = append(st.Streams, ss)
			continue
		}
		if err != nil {
			// One stream without a leader must not hide the others.
			ss.Error = err.Error()
			st.Streams = append(st.Streams, ss)
			continue
		}
		info := s.CachedInfo()
		ss.Replicas = info.Config.Replicas
		ss.Leader, ss.Peers = cluster(info.Cluster)
		ss.Messages, ss.Bytes = info.State.Msgs, info.State.Bytes
		ss.FirstSeq, ss.LastSeq, ss.Deleted = info.State.FirstSeq, info.State.LastSeq, info.State.NumDeleted
		l := s.ListConsumers(ctx)
		for ci := range l.Info() {
			if ci.Config.Durable == "" {
				continue // a bucket watcher's ephemeral consumer
			}
			cs := ConsumerStatus{Name: ci.Name, Filter: ci.Config.FilterSubject, Replicas: peers(ci.Cluster),
				Pending: ci.NumPending, AckPending: ci.NumAckPending, Redelivered: ci.NumRedelivered,
				Waiting: ci.NumWaiting, AckFloor: ci.AckFloor.Stream, Delivered: ci.Delivered.Stream}
			cs.Leader, cs.Peers = cluster(ci.Cluster)
			ss.Consumer = append(ss.Consumer, cs)
		}
		if err := l.Err(); err != nil {
			ss.Error = fmt.Sprintf("consumers: %v", err)
		}
		if name == JobsStream || name == ResultsStream {
			rep, err := BelowAckFloor(ctx, js, name)
			ss.Stranded = len(rep.Msgs)
			if err != nil {
				ss.StrandedError = err.Error()
				if rep.Read == 0 {
					ss.Stranded = -1
				}
			}
		}
		st.Streams = append(st.Streams, ss)
	}
	return st, nil
}

func cluster(ci *jetstream.ClusterInfo) (leader string, ps []PeerStatus) {
	if ci == nil {
		return "", nil
	}
	for _, r := range ci.Replicas {
		ps = append(ps, PeerStatus{Name: r.Name, Current: r.Current, Offline: r.Offline, Lag: r.Lag,
			ActiveMS: r.Active.Round(time.Millisecond).Milliseconds()})
	}
	return ci.Leader, ps
}
