package queue

import (
	"errors"
	"io/fs"
	"net/url"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/tessera-solver/tessera/internal/backoff"
)

// Refused reports whether err, from Connect, is one that waiting cannot
// fix: the server refused the credentials, the client cannot verify the
// server, or a credentials file, CA file or URL is unusable. Anything
// else (connection refused, no servers available, a timeout, a name not
// resolving yet) may be an outage or a server starting, and is not.
func Refused(err error) bool {
	if err == nil {
		return false
	}
	for _, target := range []error{
		nats.ErrAuthorization, nats.ErrAuthExpired, nats.ErrAuthRevoked, nats.ErrAccountAuthExpired,
		nats.ErrNkeysNotSupported, fs.ErrNotExist, fs.ErrPermission,
		nkeys.ErrNoSeedFound, nkeys.ErrInvalidSeed, nkeys.ErrInvalidSeedLen, nkeys.ErrInvalidEncoding,
		nkeys.ErrInvalidPrefixByte, nkeys.ErrInvalidNkeySeed, nkeys.ErrInvalidUserSeed, nkeys.ErrInvalidChecksum,
		nkeys.ErrInvalidKey, nkeys.ErrInvalidPrivateKey,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	var parse *url.Error
	if backoff.Untrusted(err) || errors.As(err, &parse) {
		return true
	}
	// nats.go reports unreadable certificate files in text only.
	msg := err.Error()
	return strings.Contains(msg, "nats: failed to parse root certificate") ||
		strings.Contains(msg, "nats: error loading or parsing rootCA") ||
		strings.Contains(msg, "nats: error loading client certificate")
}

// Refusals counts the Connect errors of a retry loop that Refused
// reports (backoff.Refusals), so the loop can end the process instead of
// warning forever.
func Refusals() *backoff.Refusals {
	return &backoff.Refusals{Refused: Refused, Hint: "check the NATS URL, credentials and TLS settings"}
}

// BadRequest reports whether err is JetStream refusing a request as
// malformed (an API error of code 400): sending it again cannot succeed,
// unlike a full stream, a lost quorum or a dead connection.
func BadRequest(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.Code == 400
}
