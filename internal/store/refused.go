package store

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tessera-solver/tessera/internal/backoff"
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
	return backoff.Untrusted(err) || errors.Is(err, fs.ErrNotExist)
}
