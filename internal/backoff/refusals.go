package backoff

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// RefusedTries is how many errors in a row that a Refusals' Refused
// reports it tolerates: more than one, since a server reloading its
// accounts may refuse a client for a moment.
const RefusedTries = 3

// Refusals counts, in a Retry loop, the errors in a row that waiting
// cannot fix (a server refusing the credentials, say), so that the loop
// ends the process instead of warning for ever while an outage is still
// waited out.
type Refusals struct {
	Refused func(error) bool // the errors waiting cannot fix
	Hint    string           // what to check, appended when giving up
	n       int
}

// Check passes err through, marked Permanent with the hint once it is the
// RefusedTries-th refusal in a row; any other outcome resets the count.
func (r *Refusals) Check(err error) error {
	if err == nil || r.Refused == nil || !r.Refused(err) {
		r.n = 0
		return err
	}
	if r.n++; !r.Exhausted() {
		return err
	}
	return Permanent(fmt.Errorf("%w (refused %d times in a row: %s)", err, r.n, r.Hint))
}

// Exhausted reports whether the last Check gave up.
func (r *Refusals) Exhausted() bool { return r.n >= RefusedTries }

// Untrusted reports whether err says the client cannot verify the
// server's certificate (unknown authority, invalid, wrong host name): a
// refusal for every client's Refused, since waiting does not fix it.
func Untrusted(err error) bool {
	var (
		unknownCA x509.UnknownAuthorityError
		invalid   x509.CertificateInvalidError
		host      x509.HostnameError
		verify    *tls.CertificateVerificationError
	)
	return errors.As(err, &unknownCA) || errors.As(err, &invalid) || errors.As(err, &host) || errors.As(err, &verify)
}
