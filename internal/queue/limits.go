package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Byte limits. Without one, a stream grows until the server's JetStream
// store is full, and then every write of the server fails, raft's and the
// consumers' included: streams and consumers of all three nodes went "NO
// quorum, stalled" and stayed so after the writers came back. With a
// limit and discard-new, the full stream alone refuses publishes (the
// producer waits, the solvers hold their results) while the store keeps
// room for what has no limit of its own.

// DefaultMaxBytes is nats.max_bytes's default: 1 GiB for each of the
// three streams (a 10-state job of 15-puzzles is about 1 KB, so about a
// million jobs queued or solved and not yet written). The server reserves
// each limit in its store when the stream is created, so each node's
// max_file_store must exceed 3 × nats.max_bytes; docs/DEPLOY.md gives the
// rule with the headroom.
const DefaultMaxBytes int64 = 1 << 30

// maxBytes is the StreamConfig.MaxBytes of c.MaxBytes (-1: no limit).
func (c Config) maxBytes() int64 {
	if c.MaxBytes <= 0 {
		return -1
	}
	return c.MaxBytes
}

// limitedStreams are the streams nats.max_bytes applies to.
var limitedStreams = []string{JobsStream, ResultsStream, DeadStream}

// ErrStoreFull marks a publish the server refused because the stream is at
// its byte limit or the server's store is full; IsStoreFull recognises
// the server's answer itself.
var ErrStoreFull = errors.New("stream full")

// Server answers to a publish that cannot be stored for lack of room, the
// same on nats-server 2.9.10 and 2.15.2 (measured):
//   - the stream at its MaxBytes with discard-new: 503, err_code 10077,
//     "maximum bytes exceeded" (the code is "store failed"; its
//     description says why);
//   - the server's store (max_file_store) or the account's limit reached:
//     503, err_code 10023, "insufficient resources".
const (
	errCodeStoreFailed    jetstream.ErrorCode = 10077
	errCodeNoResources    jetstream.ErrorCode = 10023
	descMaxBytesExceeded                      = "maximum bytes exceeded"
	errCodeStorageReserve jetstream.ErrorCode = 10047 // stream creation: "insufficient storage resources available"
)

// IsStoreFull reports whether err (from a publish, synchronous or not,
// however wrapped) is the server refusing to store a message for lack of
// room: its stream at the byte limit, or its store full. Waiting and
// publishing again is the answer: the message was not stored, and will be
// once consumers have removed enough.
func IsStoreFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrStoreFull) {
		return true
	}
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.ErrorCode {
	case errCodeNoResources:
		return true
	case errCodeStoreFailed:
		return strings.Contains(apiErr.Description, descMaxBytesExceeded)
	}
	return false
}

// bytesError rewords the server's refusal to reserve sc's byte limit in
// its store, naming the key that sets it; other errors pass unchanged.
func bytesError(sc jetstream.StreamConfig, err error) error {
	var apiErr *jetstream.APIError
	if err == nil || sc.MaxBytes <= 0 || !errors.As(err, &apiErr) {
		return err
	}
	if apiErr.ErrorCode != errCodeStorageReserve && !strings.Contains(apiErr.Description, "insufficient storage") {
		return err
	}
	return fmt.Errorf("stream %s: its byte limit of %s (nats.max_bytes) cannot be reserved in the servers' JetStream store: "+
		"lower nats.max_bytes or raise max_file_store (each node holds %d such streams): %w",
		sc.Name, Bytes(sc.MaxBytes), len(limitedStreams), err)
}

// ApplyMaxBytes sets the byte limit (with discard-new) of each existing
// stream nats.max_bytes governs to c.MaxBytes, and returns what it
// changed, one line each. It never sets a limit below what a stream
// holds: a server enforcing it could delete queued messages; such a
// stream is named in the error, to be applied again once drained.
func ApplyMaxBytes(ctx context.Context, js jetstream.JetStream, c Config) ([]string, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var done []string
	var errs []error
	for _, name := range limitedStreams {
		s, err := js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			continue
		}
		if err != nil {
			return done, fmt.Errorf("stream %s: %w", name, err)
		}
		info := s.CachedInfo()
		sc, want := info.Config, c.maxBytes()
		if sc.MaxBytes == want && (want < 0 || sc.Discard == jetstream.DiscardNew) {
			continue
		}
		if want > 0 && info.State.Bytes > uint64(want) {
			errs = append(errs, fmt.Errorf("stream %s holds %s, more than nats.max_bytes %s: its limit is left at %s until it holds less",
				name, Bytes(int64(info.State.Bytes)), Bytes(want), limitText(sc.MaxBytes)))
			continue
		}
		was := limitText(sc.MaxBytes)
		// Discard-new first: a limit on a discard-old stream drops its
		// oldest messages.
		if sc.Discard != jetstream.DiscardNew {
			sc.Discard = jetstream.DiscardNew
			if _, err := js.UpdateStream(ctx, sc); err != nil {
				return done, fmt.Errorf("stream %s: set discard new: %w", name, err)
			}
		}
		sc.MaxBytes = want
		if _, err := js.UpdateStream(ctx, sc); err != nil {
			return done, bytesError(sc, fmt.Errorf("stream %s: set max bytes: %w", name, err))
		}
		done = append(done, fmt.Sprintf("stream %s: max bytes %s -> %s", name, was, limitText(want)))
	}
	return done, errors.Join(errs...)
}

// maxBytesDrift lists the streams whose byte limit differs from c's.
func maxBytesDrift(ctx context.Context, js jetstream.JetStream, c Config) ([]string, error) {
	var out []string
	for _, name := range limitedStreams {
		s, err := js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", name, err)
		}
		if have := max(s.CachedInfo().Config.MaxBytes, -1); have != c.maxBytes() {
			out = append(out, fmt.Sprintf("%s: max bytes %s on the server, nats.max_bytes %s", name, limitText(have), limitText(c.maxBytes())))
		}
	}
	return out, nil
}

func limitText(n int64) string {
	if n <= 0 {
		return "none"
	}
	return Bytes(n)
}
