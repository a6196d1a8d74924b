package store

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/tessera-solver/tessera/internal/redact"
)

// ResolveURLSaying is ResolveURL that tells say which server it picked
// when nobody named one (no configured URL, no $DATABASE_URL): a user
// who runs a PostgreSQL for something else should learn that tessera
// writes to it, and how to point it elsewhere.
func ResolveURLSaying(ctx context.Context, configured string, say func(string)) (string, error) {
	u, err := ResolveURL(ctx, configured)
	if err != nil || configured != "" || os.Getenv("DATABASE_URL") != "" || say == nil {
		return u, err
	}
	say(ProbedNotice(u))
	return u, nil
}

// ProbedNotice says that u, one of LocalURLs, is used because it
// answered, and how to choose another.
func ProbedNotice(u string) string {
	where, db := redact.URL(u), "tessera" // the probed URL names no password, but a parse failure must not show one
	if p, err := url.Parse(u); err == nil {
		where, db = p.Host, strings.TrimPrefix(p.Path, "/")
	}
	return fmt.Sprintf("no database.url is set: using database %s on the PostgreSQL at %s, the first local server that answered; "+
		"to choose another, set TESSERA_DATABASE_URL (or --database-url, database.url)", db, where)
}
