package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Status is what `solverd queue status` shows: the servers, and every
// tessera stream (the buckets' included) with its consumers. Field names
// are the JSON contract of `--json` (docs/ARCHITECTURE.md lists them).
type Status struct {
	// Server is how the client sees the deployment ("a single NATS
	// server (not a cluster)" or "NATS cluster C (3 servers, 1 not
	// answering: n1)"): servers are counted by name, not by URL.
	Server string `json:"server"`
	// Servers are the servers that answered, then the URLs that did not
	// (ProbeServers).
	Servers []ServerStatus `json:"servers"`
	// Missing are the servers the streams name as their peers that no
	// known URL answered as.
	Missing []string `json:"missing_servers,omitempty"`
	// MonitorErrors say which monitoring endpoints did not answer.
	MonitorErrors []string       `json:"monitor_errors,omitempty"`
	Streams       []StreamStatus `json:"streams"`
}

// StreamStatus is one stream.
type StreamStatus struct {
	Name string `json:"name"`
	// Kind is "stream", "kv" (the control, split and workers buckets)
	// or "object store" (the tables bucket).
	Kind string `json:"kind"`
	// Missing: the stream does not exist (yet); nothing else is set.
	Missing bool `json:"missing,omitempty"`
	// Error: the stream did not answer within the bound (e.g. no leader
	// while a cluster elects one after losing a node); what follows it
	// may be unset.
	Error    string `json:"error,omitempty"`
	Replicas int    `json:"replicas,omitempty"`
	Leader   string `json:"leader,omitempty"`
	// Peers are the leader's followers (none for one replica).
	Peers    []PeerStatus `json:"peers,omitempty"`
	Messages uint64       `json:"messages"`
	Bytes    uint64       `json:"bytes"`
	// MaxBytes is the stream's byte limit (0: none).
	MaxBytes int64            `json:"max_bytes"`
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
	// Copies are each server's own copy of the stream, read from the
	// monitoring endpoints given (the JetStream API answers from the
	// leader only); empty without them.
	Copies []StreamCopy `json:"copies,omitempty"`

	stranded []uint64 // the sequences counted in Stranded
}

// StreamCopy is one server's copy of a stream, as its monitoring
// endpoint (/jsz) reports it.
type StreamCopy struct {
	Server   string `json:"server"`
	Leader   bool   `json:"leader,omitempty"`
	Messages uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
	// Disagrees: the copy is at the leader's last sequence but holds a
	// different number of messages (a follower that kept messages its
	// leader deleted, seen on nats-server 2.9.10).
	Disagrees bool `json:"disagrees,omitempty"`
}

// PeerStatus is a follower of a stream or consumer.
type PeerStatus struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	// Offline: the leader says so, or no URL the client knows answered
	// as this server (NoAnswer). The leader alone takes minutes to call
	// a killed server offline, and may even report it current.
	Offline  bool `json:"offline,omitempty"`
	NoAnswer bool `json:"no_answer,omitempty"`
	// Lag is how many operations the follower is behind.
	Lag uint64 `json:"lag,omitempty"`
	// ActiveMS is how long ago the leader last heard from it (0 when
	// never, e.g. a leader killed before this one was elected).
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

// StatusOptions says what CollectStatus reads beyond tessera's streams
// and how long it waits.
type StatusOptions struct {
	// ObjectBuckets are object-store buckets to include when present
	// (the tables bucket).
	ObjectBuckets []string
	// Timeout bounds each request: a server or stream that does not
	// answer within it is reported, not waited for (DefaultStatusTimeout
	// when 0).
	Timeout time.Duration
	// MonitorURLs are the servers' monitoring endpoints
	// (http://host:8222), read for each server's own copy of the streams.
	MonitorURLs []string
}

// DefaultStatusTimeout bounds each request of CollectStatus.
const DefaultStatusTimeout = 3 * time.Second

// CollectStatus reads the status of the servers and of every tessera
// stream and bucket. It only reads: the stranded counts come from
// BelowAckFloor, never from a sweep. Streams are read at once, each
// request bounded by o.Timeout, so one server or stream that does not
// answer costs one bound, not one per request; it is reported with its
// Error, not as the command's.
func CollectStatus(ctx context.Context, js jetstream.JetStream, o StatusOptions) (Status, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultStatusTimeout
	}
	nc := js.Conn()
	var (
		st     Status
		copies map[string][]StreamCopy
		wg     sync.WaitGroup
	)
	wg.Add(2)
	go func() { defer wg.Done(); st.Servers = ProbeServers(ctx, nc, o.Timeout) }()
	go func() { defer wg.Done(); copies, st.MonitorErrors = readCopies(ctx, o.MonitorURLs, o.Timeout) }()
	names := replicaStreams(o.ObjectBuckets)
	streams := make([]*StreamStatus, len(names))
	for i, name := range names {
		wg.Add(1)
		go func() { defer wg.Done(); streams[i] = streamStatus(ctx, js, name, o.Timeout) }()
	}
	wg.Wait()
	answering := map[string]bool{}
	for _, n := range Answering(st.Servers) {
		answering[n] = true
	}
	missing := map[string]bool{}
	mark := func(ps []PeerStatus) {
		for i := range ps {
			if len(answering) > 0 && !answering[ps[i].Name] {
				ps[i].NoAnswer, ps[i].Offline = true, true
				missing[ps[i].Name] = true
			}
		}
	}
	for _, ss := range streams {
		if ss == nil {
			continue
		}
		mark(ss.Peers)
		if ss.Leader != "" && len(answering) > 0 && !answering[ss.Leader] {
			missing[ss.Leader] = true // a leader the cluster has not replaced yet
		}
		for i := range ss.Consumer {
			mark(ss.Consumer[i].Peers)
		}
		ss.Copies = compareCopies(copies[ss.Name], *ss)
		st.Streams = append(st.Streams, *ss)
	}
	for n := range missing {
		st.Missing = append(st.Missing, n)
	}
	slices.Sort(st.Missing)
	// At least the server of nc itself, should no probe have answered.
	st.Server = describe(nc, max(1, len(answering)+len(st.Missing)))
	if clustered(nc) && len(st.Missing) > 0 {
		st.Server = fmt.Sprintf("NATS cluster %s (%d servers, %d not answering: %s)", nc.ConnectedClusterName(),
			len(answering)+len(st.Missing), len(st.Missing), strings.Join(st.Missing, ", "))
	}
	return st, nil
}

// streamStatus reads one stream and its durable consumers; nil when an
// optional one (the tables and split buckets) does not exist.
func streamStatus(ctx context.Context, js jetstream.JetStream, name string, timeout time.Duration) *StreamStatus {
	ss := &StreamStatus{Name: name, Kind: "stream"}
	switch {
	case strings.HasPrefix(name, BucketStream("")):
		ss.Kind = "kv"
	case strings.HasPrefix(name, ObjectStoreStream("")):
		ss.Kind = "object store"
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s, err := js.Stream(rctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if ss.Kind == "object store" || name == BucketStream(SplitBucket) || name == BucketStream(SplitAnswersBucket) || name == BucketStream(WorkersBucket) {
			return nil // the tables bucket is optional; the split and workers buckets come with their first user
		}
		ss.Missing = true
		return ss
	}
	if err != nil {
		ss.Error = noAnswer(err, timeout)
		return ss
	}
	info := s.CachedInfo()
	ss.Replicas = info.Config.Replicas
	ss.Leader, ss.Peers = cluster(info.Cluster)
	ss.Messages, ss.Bytes, ss.MaxBytes = info.State.Msgs, info.State.Bytes, max(info.Config.MaxBytes, 0)
	ss.FirstSeq, ss.LastSeq, ss.Deleted = info.State.FirstSeq, info.State.LastSeq, info.State.NumDeleted
	var infos []*jetstream.ConsumerInfo
	l := s.ListConsumers(rctx)
	for ci := range l.Info() {
		infos = append(infos, ci)
		if ci.Config.Durable == "" {
			continue // a bucket watcher's ephemeral consumer
		}
		cs := ConsumerStatus{Name: ci.Name, Filter: ci.Config.FilterSubject, Replicas: peers(ci.Cluster),
			Pending: ci.NumPending, AckPending: ci.NumAckPending, Redelivered: ci.NumRedelivered,
			Waiting: ci.NumWaiting, AckFloor: ci.AckFloor.Stream, Delivered: ci.Delivered.Stream}
		cs.Leader, cs.Peers = cluster(ci.Cluster)
		ss.Consumer = append(ss.Consumer, cs)
	}
	listErr := l.Err()
	if listErr != nil {
		ss.Error = "consumers: " + noAnswer(listErr, timeout)
	}
	if name == JobsStream || name == ResultsStream {
		if listErr != nil {
			// Without every consumer's ack floor nothing can be called
			// stranded.
			ss.Stranded, ss.StrandedError = -1, "consumers not listed"
			return ss
		}
		// Reading below the ack floor is one request per message there
		// (none when healthy): a bound of its own.
		sctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		rep, err := belowAckFloor(sctx, s, infos)
		ss.Stranded = len(rep.Msgs)
		for _, m := range rep.Msgs {
			ss.stranded = append(ss.stranded, m.Sequence)
		}
		if err != nil {
			ss.StrandedError = err.Error()
			if rep.Read == 0 {
				ss.Stranded = -1
			}
		}
	}
	return ss
}

// noAnswer says why a request got no answer: a timeout is named as such.
func noAnswer(err error, timeout time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
		return fmt.Sprintf("no answer within %v (no leader, or its server is down)", timeout)
	}
	return err.Error()
}

// Confirm keeps, of later's findings that can be passing states (messages
// stranded below an ack floor, copies that disagree), those that earlier
// found too: an ack in flight or a follower applying it look the same for
// a moment.
func Confirm(earlier, later Status) Status {
	before := map[string]StreamStatus{}
	for _, s := range earlier.Streams {
		before[s.Name] = s
	}
	for i := range later.Streams {
		s, b := &later.Streams[i], before[later.Streams[i].Name]
		if s.Stranded > 0 {
			var again []uint64
			for _, q := range s.stranded {
				if slices.Contains(b.stranded, q) {
					again = append(again, q)
				}
			}
			s.stranded, s.Stranded = again, len(again)
		}
		for j := range s.Copies {
			c := &s.Copies[j]
			c.Disagrees = c.Disagrees && slices.ContainsFunc(b.Copies, func(o StreamCopy) bool {
				return o.Server == c.Server && o.Disagrees
			})
		}
	}
	return later
}

// Unsettled reports whether st holds findings Confirm would check with a
// second look.
func (st Status) Unsettled() bool {
	for _, s := range st.Streams {
		if s.Stranded > 0 || slices.ContainsFunc(s.Copies, func(c StreamCopy) bool { return c.Disagrees }) {
			return true
		}
	}
	return false
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
