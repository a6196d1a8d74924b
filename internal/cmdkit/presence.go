package cmdkit

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/queue"
	"github.com/tessera-solver/tessera/internal/redact"
	"github.com/tessera-solver/tessera/internal/version"
)

// Presence is a process's entry in the registry of workers
// (queue.WorkersBucket): what it is, what it is working on now, how fast
// it searches and the last thing that went wrong. Start keeps the entry
// in the bucket, refreshed every queue.WorkerBeat, until it is stopped.
// A nil *Presence records nothing.
type Presence struct {
	static queue.WorkerEntry

	mu     sync.Mutex
	jobs   map[*inFlight]struct{}
	sets   map[string]string
	errMsg string
	errAt  time.Time
	// done is the nodes of the jobs that ended and of the searches
	// counted by AddNodes; rate's previous total and when.
	done     atomic.Int64
	lastSum  int64
	lastAt   time.Time
	lastRate float64
}

type inFlight struct {
	job      queue.JobInFlight
	progress *atomic.Int64
}

// NewPresence is the entry of this process in role ("solverd",
// "results", "producer") taking work from lanes with workers workers
// (and quick quick-only ones).
func NewPresence(role string, lanes []string, workers, quick int) *Presence {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	now := time.Now()
	return &Presence{
		static: queue.WorkerEntry{Role: role, Host: host, PID: os.Getpid(), Version: version.Short(), Started: now,
			Lanes: lanes, Workers: workers, QuickWorkers: quick},
		jobs:   map[*inFlight]struct{}{},
		lastAt: now,
	}
}

// Key is the entry's key in the registry.
func (p *Presence) Key() string {
	return queue.WorkerKey(p.static.Role, p.static.Host, p.static.PID, p.static.Started)
}

// Begin records a job taken up; progress, when not nil, is its nodes so
// far. The func it returns records the job's end.
func (p *Presence) Begin(j queue.JobInFlight, progress *atomic.Int64) (end func()) {
	if p == nil {
		return func() {}
	}
	f := &inFlight{job: j, progress: progress}
	p.mu.Lock()
	p.jobs[f] = struct{}{}
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.jobs, f)
		if progress != nil {
			p.done.Add(progress.Load())
		}
		p.mu.Unlock()
	}
}

// AddNodes counts nodes expanded outside any job's progress (a split
// search's walks and subtrees).
func (p *Presence) AddNodes(n int64) {
	if p != nil && n > 0 {
		p.done.Add(n)
	}
}

// SetTableSets records the table set serving each role now.
func (p *Presence) SetTableSets(roles map[string]string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.sets = maps.Clone(roles)
	p.mu.Unlock()
}

// Failed records msg as the last error.
func (p *Presence) Failed(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	// Logs carry no secret by rule; a library's message may still hold
	// a URL with its credentials, and the entry is readable by every
	// client of the bucket.
	p.errMsg, p.errAt = redact.Text(msg, redact.Secrets(msg)...), time.Now()
	p.mu.Unlock()
}

// Entry is the entry as of now: the jobs in flight oldest first, and the
// nodes per second since the previous call.
func (p *Presence) Entry(now time.Time) queue.WorkerEntry {
	e := p.static
	e.Updated = now
	p.mu.Lock()
	defer p.mu.Unlock()
	sum := p.done.Load()
	for f := range p.jobs {
		j := f.job
		if f.progress != nil {
			j.Nodes = f.progress.Load()
			sum += j.Nodes
		}
		e.Jobs = append(e.Jobs, j)
	}
	sort.Slice(e.Jobs, func(i, k int) bool { return e.Jobs[i].Started.Before(e.Jobs[k].Started) })
	if dt := now.Sub(p.lastAt).Seconds(); dt >= 1 {
		p.lastRate = max(float64(sum-p.lastSum)/dt, 0)
		p.lastSum, p.lastAt = sum, now
	}
	e.Nodes, e.NodesPerSecond = sum, p.lastRate
	e.TableSets = maps.Clone(p.sets)
	e.LastError, e.LastErrorAt = p.errMsg, p.errAt
	return e
}

// Start keeps the entry in the registry over js (the bucket created at
// qc's replicas when missing) until stop is called, which deletes it and
// returns once it has. A registry that cannot be written is logged once
// per failure streak and retried at every beat: the work goes on.
func (p *Presence) Start(js jetstream.JetStream, qc queue.Config, log *slog.Logger) (stop func()) {
	if p == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var reg *queue.Registration
		failing := false
		beat := func() {
			bctx, bcancel := context.WithTimeout(ctx, queue.WorkerBeat)
			defer bcancel()
			var err error
			if reg == nil {
				reg, err = queue.Register(bctx, js, qc, p.Key())
			}
			if err == nil {
				err = reg.Put(bctx, p.Entry(time.Now()))
			}
			switch {
			case err != nil && !failing && ctx.Err() == nil:
				failing = true
				log.Warn("cannot register in the workers bucket; retrying", "bucket", queue.WorkersBucket, "err", err)
			case err == nil && failing:
				failing = false
				log.Info("registered in the workers bucket", "bucket", queue.WorkersBucket, "key", p.Key())
			}
		}
		beat()
		t := time.NewTicker(queue.WorkerBeat)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				if reg != nil {
					rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
					if err := reg.Remove(rctx); err != nil {
						log.Warn("cannot remove this process from the workers bucket; it expires", "err", err, "within", queue.WorkerTTL)
					}
					rcancel()
				}
				return
			case <-t.C:
				beat()
			}
		}
	}()
	return func() { cancel(); <-done }
}

// LogHandler wraps h so that every warning or error logged through it is
// recorded as the entry's last error (its message and "err" attribute).
func (p *Presence) LogHandler(h slog.Handler) slog.Handler {
	if p == nil {
		return h
	}
	return lastErrorHandler{Handler: h, p: p}
}

type lastErrorHandler struct {
	slog.Handler
	p     *Presence
	attrs []slog.Attr
}

func (h lastErrorHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		msg := r.Message
		add := func(a slog.Attr) bool {
			if a.Key == "err" {
				msg += ": " + a.Value.String()
			}
			return true
		}
		for _, a := range h.attrs {
			add(a)
		}
		r.Attrs(add)
		h.p.Failed(msg)
	}
	return h.Handler.Handle(ctx, r)
}

func (h lastErrorHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return lastErrorHandler{Handler: h.Handler.WithAttrs(as), p: h.p, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h lastErrorHandler) WithGroup(name string) slog.Handler {
	return lastErrorHandler{Handler: h.Handler.WithGroup(name), p: h.p, attrs: h.attrs}
}
