package worker

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tessera-solver/tessera/internal/queue"
)

// tracked is a claimed job message. Exactly one of ack, nak or term is sent
// for it by this process: whoever settles it first (its worker, or Run
// handing it back at the drain deadline) wins.
type tracked struct {
	msg jetstream.Msg

	mu        sync.Mutex
	settled   bool
	every     time.Duration // heartbeat period: a third of this delivery's ack deadline
	next      time.Time     // next heartbeat due
	beatUntil time.Time     // no heartbeats after this; zero: no limit
}

// settle runs f (Ack, Nak, Term…) unless the message is already settled.
func (t *tracked) settle(f func() error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.settled {
		return nil
	}
	t.settled = true
	return f()
}

// beatFor limits heartbeats to d from now (d 0: no limit).
func (t *tracked) beatFor(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if d > 0 {
		t.beatUntil = time.Now().Add(d)
	} else {
		t.beatUntil = time.Time{}
	}
}

// heartbeats sends InProgress for every claimed, unsettled message a third
// of its ack deadline after the last one, so long solves are not
// redelivered while their worker is alive.
type heartbeats struct {
	cc   jetstream.ConsumerConfig
	tick time.Duration

	mu   sync.Mutex
	msgs map[*tracked]struct{}
}

func newHeartbeats(cc jetstream.ConsumerConfig) *heartbeats {
	shortest := cc.AckWait
	for _, d := range cc.BackOff {
		if shortest <= 0 || d < shortest {
			shortest = d
		}
	}
	if shortest <= 0 {
		shortest = 30 * time.Second
	}
	// Tick at a sixth of the shortest deadline so that a message's
	// heartbeat is late by at most half its period.
	tick := min(max(shortest/6, 10*time.Millisecond), 5*time.Second)
	return &heartbeats{cc: cc, tick: tick, msgs: map[*tracked]struct{}{}}
}

func (h *heartbeats) add(m jetstream.Msg) *tracked {
	var n uint64 = 1
	if meta, err := m.Metadata(); err == nil {
		n = meta.NumDelivered
	}
	every := queue.AckDeadline(h.cc, n) / 3
	if every <= 0 {
		every = h.tick
	}
	t := &tracked{msg: m, every: every, next: time.Now().Add(every)}
	h.mu.Lock()
	h.msgs[t] = struct{}{}
	h.mu.Unlock()
	return t
}

func (h *heartbeats) remove(t *tracked) {
	h.mu.Lock()
	delete(h.msgs, t)
	h.mu.Unlock()
}

func (h *heartbeats) snapshot() []*tracked {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*tracked, 0, len(h.msgs))
	for t := range h.msgs {
		out = append(out, t)
	}
	return out
}

// run sends heartbeats until ctx is done.
func (h *heartbeats) run(ctx context.Context) {
	tk := time.NewTicker(h.tick)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tk.C:
			for _, t := range h.snapshot() {
				t.mu.Lock()
				if !t.settled && !now.Before(t.next) && (t.beatUntil.IsZero() || now.Before(t.beatUntil)) {
					t.next = now.Add(t.every)
					// An error means the connection is down; the next
					// tick tries again, and a redelivery is safe anyway.
					_ = t.msg.InProgress()
				}
				t.mu.Unlock()
			}
		}
	}
}

// handBack naks every unsettled message (at the drain deadline) and
// returns how many there were.
func (h *heartbeats) handBack() int {
	n := 0
	for _, t := range h.snapshot() {
		t.mu.Lock()
		if !t.settled {
			t.settled = true
			_ = t.msg.Nak()
			n++
		}
		t.mu.Unlock()
	}
	return n
}
