package store

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io/fs"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Refused reports whether err, from connecting to PostgreSQL, is one that
// waiting cannot fix: the server refused the user or password (SQLSTATE
// class 28), the database does not exist (3D000), the client cannot
// verify the server's certificate, or a file the URL names (sslrootcert,
// sslcert) is missing. A server that is down or starting (connection
// refused, 57P03 "the database system is starting up") is not.
func Refused(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && (strings.HasPrefix(pg.Code, "28") || pg.Code == "3D000") {
		return true
	}
	var (
		unknownCA x509.UnknownAuthorityError
		invalid   x509.CertificateInvalidError
		host      x509.HostnameError
		verify    *tls.CertificateVerificationError
	)
	return errors.As(err, &unknownCA) || errors.As(err, &invalid) || errors.As(err, &host) || errors.As(err, &verify) ||
		errors.Is(err, fs.ErrNotExist)
}
