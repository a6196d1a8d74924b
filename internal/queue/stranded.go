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

// Stranded messages: after a kill -9 of nats-server a work-queue stream's
// consumer can come back with its ack floor persisted while the removal of
// the acknowledged messages was lost. Such a message is never delivered
// again and stays in the stream forever (measured on 2.9.10 and 2.15, in
// TESSERA_JOBS and TESSERA_RESULTS). The rule that finds them: a message
// at or below the ack floor of a consumer whose filter matches its
// subject. It is acted on only when two sweeps StrandedEvery apart both
// find it, so a message just acked and being removed is never taken for
// one.

// StrandedEvery is how often the sweeps look for stranded messages.
const StrandedEvery = time.Minute

// StrandedReport is what BelowAckFloor read.
type StrandedReport struct {
	// Msgs are the messages at or below a matching consumer's ack floor,
	// in stream order.
	Msgs []*jetstream.RawStreamMsg
	// Read is how many messages were read; Unreadable how many of them
	// the server would not return (skipped, see the error).
	Read, Unreadable int
}

// BelowAckFloor reads stream by plain sequence from its first message up
// to the highest ack floor of its consumers and returns the messages at or
// below the ack floor of a consumer whose filter matches them. It reads
// without a subject filter: on nats-server 2.9.10 a subject-filtered get
// can answer "not found" for a message a plain get returns, where a
// filtered sweep would stop. Deleted sequences (from the stream's deleted
// details) are stepped over without a request, and a message that cannot
// be read is skipped, not the end: the error then says how many, and the
// report still holds every message that was read.
func BelowAckFloor(ctx context.Context, js jetstream.JetStream, stream string) (StrandedReport, error) {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return StrandedReport{}, fmt.Errorf("stranded %s: %w", stream, err)
	}
	var infos []*jetstream.ConsumerInfo
	cl := s.ListConsumers(ctx)
	for ci := range cl.Info() {
		infos = append(infos, ci)
	}
	if err := cl.Err(); err != nil {
		return StrandedReport{}, fmt.Errorf("stranded %s: list consumers: %w", stream, err)
	}
	return belowAckFloor(ctx, s, infos)
}

// belowAckFloor is BelowAckFloor of the stream s with the consumers infos.
func belowAckFloor(ctx context.Context, s jetstream.Stream, infos []*jetstream.ConsumerInfo) (StrandedReport, error) {
	var rep StrandedReport
	stream := s.CachedInfo().Config.Name
	type floor struct {
		filters []string
		seq     uint64
	}
	var floors []floor
	var top uint64
	for _, ci := range infos {
		f := floor{filters: ci.Config.FilterSubjects, seq: ci.AckFloor.Stream}
		if ci.Config.FilterSubject != "" {
			f.filters = append(f.filters, ci.Config.FilterSubject)
		}
		floors = append(floors, f)
		top = max(top, f.seq)
	}
	if st := s.CachedInfo().State; st.Msgs == 0 || top < st.FirstSeq {
		return rep, nil // the healthy case: everything acked is gone
	}
	// Only now the deleted sequences, which can be many.
	info, err := s.Info(ctx, jetstream.WithDeletedDetails(true))
	if err != nil {
		return rep, fmt.Errorf("stranded %s: %w", stream, err)
	}
	deleted := make(map[uint64]bool, len(info.State.Deleted))
	for _, d := range info.State.Deleted {
		deleted[d] = true
	}
	var firstErr error
	for seq := info.State.FirstSeq; seq <= min(top, info.State.LastSeq); seq++ {
		if deleted[seq] {
			continue
		}
		raw, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // removed since the info
		}
		if err != nil {
			if ctx.Err() != nil {
				return rep, fmt.Errorf("stranded %s: %w", stream, ctx.Err())
			}
			rep.Unreadable++
			if firstErr == nil {
				firstErr = fmt.Errorf("get %d: %w", seq, err)
			}
			continue
		}
		rep.Read++
		for _, f := range floors {
			if raw.Sequence <= f.seq && matchesAny(f.filters, raw.Subject) {
				rep.Msgs = append(rep.Msgs, raw)
				break
			}
		}
	}
	if firstErr != nil {
		return rep, fmt.Errorf("stranded %s: %d messages unreadable and skipped, the first: %w", stream, rep.Unreadable, firstErr)
	}
	return rep, nil
}

// Twice keeps the "seen in two sweeps" rule: Again returns the messages
// of this sweep that the previous sweep found too, and remembers this
// sweep's. The zero value is ready.
type Twice struct {
	seen map[uint64]bool
}

// Again filters msgs (one sweep's finds) to those found last time too.
func (t *Twice) Again(msgs []*jetstream.RawStreamMsg) []*jetstream.RawStreamMsg {
	var out []*jetstream.RawStreamMsg
	now := make(map[uint64]bool, len(msgs))
	for _, m := range msgs {
		now[m.Sequence] = true
		if t.seen[m.Sequence] {
			out = append(out, m)
		}
	}
	t.seen = now
	return out
}

// matchesAny reports whether subject matches one of the filters (NATS
// wildcards); no filter matches every subject.
func matchesAny(filters []string, subject string) bool {
	if len(filters) == 0 {
		return true
	}
	for _, f := range filters {
		if matchSubject(f, subject) {
			return true
		}
	}
	return false
}

func matchSubject(filter, subject string) bool {
	ft, st := strings.Split(filter, "."), strings.Split(subject, ".")
	for i, t := range ft {
		if t == ">" {
			return len(st) > i
		}
		if i >= len(st) || (t != "*" && t != st[i]) {
			return false
		}
	}
	return len(ft) == len(st)
}

// strandedMsg is a stranded results message handed to the results writer
// as if delivered: acknowledging it (after its rows are committed, through
// the writer's idempotent path) or terminating it (after it was salvaged
// into dead letters) deletes it from the stream; Nak leaves it for the
// next sweep.
type strandedMsg struct {
	s   jetstream.Stream
	raw *jetstream.RawStreamMsg
}

var _ jetstream.Msg = strandedMsg{}

func (m strandedMsg) del() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.s.DeleteMsg(ctx, m.raw.Sequence); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("delete stranded message %d: %w", m.raw.Sequence, err)
	}
	return nil
}

func (m strandedMsg) Metadata() (*jetstream.MsgMetadata, error) {
	return &jetstream.MsgMetadata{Sequence: jetstream.SequencePair{Stream: m.raw.Sequence},
		NumDelivered: 1, Stream: m.s.CachedInfo().Config.Name, Timestamp: m.raw.Time}, nil
}
func (m strandedMsg) Data() []byte                     { return m.raw.Data }
func (m strandedMsg) Headers() nats.Header             { return m.raw.Header }
func (m strandedMsg) Subject() string                  { return m.raw.Subject }
func (m strandedMsg) Reply() string                    { return "" }
func (m strandedMsg) Ack() error                       { return m.del() }
func (m strandedMsg) DoubleAck(context.Context) error  { return m.del() }
func (m strandedMsg) Nak() error                       { return nil }
func (m strandedMsg) NakWithDelay(time.Duration) error { return nil }
func (m strandedMsg) InProgress() error                { return nil }
func (m strandedMsg) Term() error                      { return m.del() }
func (m strandedMsg) TermWithReason(string) error      { return m.del() }
