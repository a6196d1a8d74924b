package queue

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ParkedStream holds the jobs of paused batches: a solverd that claims a
// job of a paused batch copies it here and acknowledges it, so the job
// waits without spending its deliveries however long the pause lasts, and
// Unpark puts it back on its subject in TESSERA_JOBS as a new message.
const (
	ParkedStream   = "TESSERA_PARKED"
	ParkedSubjects = "tessera.parked.>"
	parkedPrefix   = "tessera.parked."
)

// parkedStreamConfig is TESSERA_PARKED: limits retention, so that Unpark
// reads by sequence and deletes what it put back without a consumer.
func parkedStreamConfig(c Config) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        ParkedStream,
		Description: "tessera jobs of paused batches, waiting for `results unpause`",
		Subjects:    []string{ParkedSubjects},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Duplicates:  c.DuplicateWindow,
		Replicas:    c.Replicas,
	}
}

func parkedSubject(batch int64) string { return parkedPrefix + strconv.FormatInt(batch, 10) }

// Park copies m, a claimed job of batch, to TESSERA_PARKED with its
// subject and message id; the caller acknowledges m once Park returns nil.
// A copy made twice (the ack lost, the job delivered and parked again) is
// one message: its id is the job message's stream sequence.
func Park(ctx context.Context, js jetstream.JetStream, m jetstream.Msg, batch int64) error {
	meta, err := m.Metadata()
	if err != nil {
		return fmt.Errorf("park: %w", err)
	}
	pm := nats.NewMsg(parkedSubject(batch))
	pm.Data = m.Data()
	copyOwnHeaders(pm.Header, m.Headers())
	pm.Header.Set(HeaderSubject, m.Subject())
	pm.Header.Set(jetstream.ExpectedStreamHeader, ParkedStream)
	pm.Header.Set(nats.MsgIdHdr, "park-"+strconv.FormatUint(meta.Sequence.Stream, 10))
	if orig := m.Headers().Get(nats.MsgIdHdr); orig != "" {
		pm.Header.Set(headerOrigID, orig)
	}
	if _, err := js.PublishMsg(ctx, pm); err != nil {
		return fmt.Errorf("park job %d of batch %d: %w", meta.Sequence.Stream, batch, err)
	}
	return nil
}

// copyOwnHeaders copies the headers of from that are not the server's
// (Nats-Msg-Id, Nats-Expected-Stream…: the move sets its own).
func copyOwnHeaders(to, from nats.Header) {
	for k, v := range from {
		if !strings.HasPrefix(k, "Nats-") {
			to[k] = v
		}
	}
}

// headerOrigID keeps a parked job's own Nats-Msg-Id.
const headerOrigID = "Tessera-Orig-Msg-Id"

// Unpark puts every parked job of batch back on its subject in
// TESSERA_JOBS, oldest first, and deletes each copy once the server has
// stored it; it returns how many it put back. A job put back twice (a
// crash between the publish and the delete, or two processes unparking at
// once) is stored once: its new message id is fixed by its parked copy's
// sequence. Any process may run it, at any time: a batch that is paused
// again meanwhile is parked again by the solvers.
func Unpark(ctx context.Context, js jetstream.JetStream, batch int64) (int, error) {
	st, err := js.Stream(ctx, ParkedStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("unpark batch %d: %w", batch, err)
	}
	subject := parkedSubject(batch)
	n := 0
	for seq := uint64(1); ; seq++ {
		raw, err := st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("unpark batch %d: %w", batch, err)
		}
		seq = raw.Sequence
		to := raw.Header.Get(HeaderSubject)
		if !strings.HasPrefix(to, "tessera.jobs.") {
			return n, fmt.Errorf("unpark batch %d: parked message %d names no job subject (%q)", batch, seq, to)
		}
		jm := nats.NewMsg(to)
		jm.Data = raw.Data
		copyOwnHeaders(jm.Header, raw.Header)
		jm.Header.Del(HeaderSubject)
		jm.Header.Del(headerOrigID)
		jm.Header.Set(jetstream.ExpectedStreamHeader, JobsStream)
		jm.Header.Set(nats.MsgIdHdr, cmp.Or(raw.Header.Get(headerOrigID), "job")+".unparked-"+strconv.FormatUint(seq, 10))
		if _, err := js.PublishMsg(ctx, jm); err != nil {
			return n, fmt.Errorf("unpark batch %d: %w", batch, err)
		}
		if err := st.DeleteMsg(ctx, seq); err != nil && !gone(ctx, st, seq) {
			return n, fmt.Errorf("unpark batch %d: delete parked message %d: %w", batch, seq, err)
		}
		n++
	}
}

// gone reports whether message seq of st is no longer there: deleted by
// another process unparking the same batch (the server answers the second
// delete with an error of its own, "no message found", not ErrMsgNotFound).
func gone(ctx context.Context, st jetstream.Stream, seq uint64) bool {
	_, err := st.GetMsg(ctx, seq)
	return errors.Is(err, jetstream.ErrMsgNotFound)
}

// ParkedBatches returns each batch with parked jobs and how many it has.
func ParkedBatches(ctx context.Context, js jetstream.JetStream) (map[int64]uint64, error) {
	st, err := js.Stream(ctx, ParkedStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("parked batches: %w", err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(ParkedSubjects))
	if err != nil {
		return nil, fmt.Errorf("parked batches: %w", err)
	}
	out := map[int64]uint64{}
	for subj, count := range info.State.Subjects {
		if id, err := strconv.ParseInt(strings.TrimPrefix(subj, parkedPrefix), 10, 64); err == nil && count > 0 {
			out[id] = count
		}
	}
	return out, nil
}
