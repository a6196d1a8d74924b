package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/job"
)

// WorkersBucket is the registry of live processes: every `solverd run`,
// `results run` and `producer --local` keeps one entry there (key:
// WorkerKey), refreshed every WorkerBeat and deleted when it stops
// cleanly. The bucket's TTL removes the entry of a process that stopped
// refreshing it (killed, frozen, cut off), so what it lists is alive.
const WorkersBucket = "tessera-workers"

// WorkerTTL is how long an entry outlives its last refresh: the bucket's
// TTL (the stream's MaxAge, which nats-server 2.9.10 honours as 2.15
// does; per-key TTLs need 2.11). A killed process disappears within it.
const WorkerTTL = 20 * time.Second

// WorkerBeat is how often a process refreshes its entry: four refreshes
// per TTL, so that a late one or two do not drop a live process.
const WorkerBeat = 5 * time.Second

// WorkerEntry is one process's entry. It holds no URL, credential, state
// text or configuration value beyond the counts shown here.
type WorkerEntry struct {
	Key     string    `json:"key"`
	Role    string    `json:"role"` // "solverd", "results" or "producer"
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Version string    `json:"version"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	// Lanes are the lanes this process takes work from ("quick", "heavy",
	// "split"; a writer: "results").
	Lanes []string `json:"lanes,omitempty"`
	// Workers take every lane; QuickWorkers the quick lane only.
	Workers      int `json:"workers"`
	QuickWorkers int `json:"quick_workers,omitempty"`
	// TableSets is the table set serving each role ("sliding:4x4
	// optimal" → "15-pdb-78"; "none": the built-in search).
	TableSets map[string]string `json:"table_sets,omitempty"`
	Jobs      []JobInFlight     `json:"jobs,omitempty"`
	// NodesPerSecond is the search nodes expanded per second since the
	// entry's previous refresh.
	NodesPerSecond float64 `json:"nodes_per_second"`
	// Nodes is every node this process has expanded since it started.
	Nodes       int64     `json:"nodes"`
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
}

// JobInFlight is a job message a process is working on.
type JobInFlight struct {
	Batch    int64     `json:"batch"`
	FirstSeq int64     `json:"first_seq"`
	States   int       `json:"states"`
	Puzzle   string    `json:"puzzle"`
	Lane     string    `json:"lane"` // "quick", "heavy" or "split" (a subtree job)
	Delivery int       `json:"delivery"`
	Started  time.Time `json:"started"`
	Nodes    int64     `json:"nodes"` // expanded so far, at the searches' last checkpoint
}

// Up is how long the process has run, as of its last refresh.
func (e WorkerEntry) Up() time.Duration { return e.Updated.Sub(e.Started) }

// LaneOfSubject is the lane a job message's subject is on: "quick",
// "split" (a subtree job), else "heavy".
func LaneOfSubject(subject string) string {
	rest := strings.TrimPrefix(subject, "tessera.jobs.")
	// High and low priority jobs name their lane after the level (JobSubject).
	for _, p := range []job.Priority{job.PriorityHigh, job.PriorityLow} {
		rest = strings.TrimPrefix(rest, string(p)+".")
	}
	switch {
	case strings.HasPrefix(rest, "quick."):
		return "quick"
	case strings.HasPrefix(rest, "split."):
		return "split"
	}
	return "heavy"
}

// WorkerKey is the registry key of a process: role, host, pid and start
// time, so that a restarted process with the same pid (pid 1 in a
// container) has an entry of its own. Characters a key may not hold are
// replaced by '_'.
func WorkerKey(role, host string, pid int, started time.Time) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
				return r
			}
			return '_'
		}, s)
	}
	return clean(role) + "." + clean(host) + "." + strconv.Itoa(pid) + "." + strconv.FormatInt(started.UnixMilli(), 36)
}

// workersKV opens the registry bucket, creating it at c's replicas when
// it is missing (the first process to register does; `solverd queue
// apply` scales it like the other buckets).
func workersKV(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.KeyValue, error) {
	return openKV(ctx, js, c, jetstream.KeyValueConfig{Bucket: WorkersBucket,
		Description: "live tessera processes (solverd workers)", TTL: WorkerTTL})
}

// Registration is a process's entry in the registry.
type Registration struct {
	kv  jetstream.KeyValue
	key string
}

// Register opens the registry (creating it at c's replicas when missing)
// for the entry key.
func Register(ctx context.Context, js jetstream.JetStream, c Config, key string) (*Registration, error) {
	kv, err := workersKV(ctx, js, c)
	if err != nil {
		return nil, err
	}
	return &Registration{kv: kv, key: key}, nil
}

// Put writes (refreshes) the entry.
func (r *Registration) Put(ctx context.Context, e WorkerEntry) error {
	e.Key = r.key
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("worker entry: %w", err)
	}
	if _, err := r.kv.Put(ctx, r.key, b); err != nil {
		return fmt.Errorf("register %s: %w", r.key, err)
	}
	return nil
}

// Remove deletes the entry (a clean stop).
func (r *Registration) Remove(ctx context.Context) error {
	if err := r.kv.Delete(ctx, r.key); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("unregister %s: %w", r.key, err)
	}
	return nil
}

// Workers lists the registered processes, ordered by role, host and pid;
// none when the registry does not exist yet. It only reads.
func Workers(ctx context.Context, js jetstream.JetStream) ([]WorkerEntry, error) {
	kv, err := js.KeyValue(ctx, WorkersBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", WorkersBucket, err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := kv.WatchAll(wctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", WorkersBucket, err)
	}
	defer func() { _ = w.Stop() }()
	var out []WorkerEntry
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("list %s: %w", WorkersBucket, ctx.Err())
		case e, ok := <-w.Updates():
			if !ok || e == nil { // nil: every entry present at the start was sent
				sort.Slice(out, func(i, j int) bool {
					a, b := out[i], out[j]
					if a.Role != b.Role {
						return a.Role < b.Role
					}
					if a.Host != b.Host {
						return a.Host < b.Host
					}
					return a.PID < b.PID
				})
				return out, nil
			}
			var we WorkerEntry
			if err := json.Unmarshal(e.Value(), &we); err != nil {
				// Another version's entry, or junk: shown by its key.
				we = WorkerEntry{Key: e.Key(), LastError: fmt.Sprintf("unreadable entry: %v", err)}
			}
			out = append(out, we)
		}
	}
}
