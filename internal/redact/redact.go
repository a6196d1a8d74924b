// Package redact removes secrets from text before it is printed: the one
// helper behind every log line, error and help text that shows a NATS or
// PostgreSQL URL or might carry a credential (docs/SECURITY.md lists them).
//
// It never parses to decide whether to redact: an unparsable URL is where a
// password is most likely to be echoed raw (url.Parse's own error quotes
// it), so every function here works on the raw text and over-masks when in
// doubt.
package redact

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Mask replaces every secret.
const Mask = "xxxxx"

// passwordParam matches the value of a password-like key in a URL query
// (password=…&) or a libpq keyword/value string (password=… or
// password='…'), case-insensitively. The value runs to the next '&' or
// space, or to the closing quote.
var passwordParam = regexp.MustCompile(`(?i)\b((?:ssl)?password|pass|token|nkey|seed)(\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s]*)`)

// URL returns s (one URL, a comma-separated list as nats.url takes, or a
// libpq keyword/value string) with every credential masked:
//   - the password of the userinfo (user:password@ → user:xxxxx@);
//   - a userinfo without a password when the scheme is not PostgreSQL's
//     (nats://token@host: nats.go reads a lone user as a token);
//   - password, sslpassword, token, nkey and seed parameters.
//
// Host, port, path and other parameters are kept, so an operator still sees
// where the process connects. It works on unparsable input too.
func URL(s string) string {
	if isKeywordValue(s) {
		return passwordParam.ReplaceAllString(s, "${1}${2}"+Mask)
	}
	var b strings.Builder
	last := 0
	for _, u := range userinfos(s) {
		b.WriteString(s[last:u.start])
		if user, _, ok := strings.Cut(u.info, ":"); ok {
			b.WriteString(user + ":" + Mask)
		} else if u.postgres {
			b.WriteString(u.info) // a user name, not a secret
		} else {
			b.WriteString(Mask)
		}
		last = u.start + len(u.info)
	}
	b.WriteString(s[last:])
	return passwordParam.ReplaceAllString(b.String(), "${1}${2}"+Mask)
}

// isKeywordValue reports a libpq keyword/value string ("host=h
// password=p"): no scheme and an '='. Its password may hold an '@' that is
// not a userinfo's end.
func isKeywordValue(s string) bool {
	return !strings.Contains(s, "://") && strings.Contains(s, "=")
}

// span is the userinfo of one URL in a string: info starts at start and
// ends before an '@'.
type span struct {
	start    int
	info     string
	postgres bool // the scheme is postgres or postgresql
}

// userinfos finds the userinfo of every URL in s. Each URL runs from its
// scheme to the comma before the next scheme (or the end); its userinfo
// runs from after "://" to the last '@' of that stretch — the last rather
// than the first, since a broken URL may hold an unescaped '@' or ',' in
// its password, and over-masking is safe where under-masking is not. A
// string without a scheme is one stretch.
func userinfos(s string) []span {
	var out []span
	type mark struct{ auth, begin int } // after "://", start of the scheme
	var marks []mark
	for off := 0; ; {
		i := strings.Index(s[off:], "://")
		if i < 0 {
			break
		}
		i += off
		begin := strings.LastIndex(s[:i], ",") + 1
		marks = append(marks, mark{auth: i + 3, begin: begin})
		off = i + 3
	}
	if len(marks) == 0 {
		marks = []mark{{auth: 0, begin: 0}}
	}
	for k, m := range marks {
		end := len(s)
		if k+1 < len(marks) {
			end = max(marks[k+1].begin-1, m.auth)
		}
		at := strings.LastIndex(s[m.auth:end], "@")
		if at < 0 {
			continue
		}
		scheme := strings.ToLower(strings.TrimSpace(s[m.begin:max(m.auth-3, m.begin)]))
		out = append(out, span{start: m.auth, info: s[m.auth : m.auth+at],
			postgres: scheme == "postgres" || scheme == "postgresql"})
	}
	return out
}

// Secrets returns the credentials written inside s (as URL reads it): the
// userinfo password or token and the values of password-like parameters,
// both as written and percent-decoded, for Text to mask wherever a library
// echoes them without the URL around them.
func Secrets(s string) []string {
	var out []string
	add := func(v string) {
		v = strings.Trim(v, "'")
		if v == "" {
			return
		}
		out = append(out, v)
		if d, err := url.PathUnescape(v); err == nil && d != v {
			out = append(out, d)
		}
	}
	if isKeywordValue(s) {
		for _, m := range passwordParam.FindAllStringSubmatch(s, -1) {
			add(m[3])
		}
		return out
	}
	for _, u := range userinfos(s) {
		if _, pw, ok := strings.Cut(u.info, ":"); ok {
			add(pw)
		} else if !u.postgres {
			add(u.info)
		}
	}
	for _, m := range passwordParam.FindAllStringSubmatch(s, -1) {
		add(m[3])
	}
	return out
}

// Text masks in s every occurrence of the given secrets (empty ones are
// ignored), longest first so that a secret containing another is masked
// whole. It is the last line of defence for messages a library builds.
func Text(s string, secrets ...string) string {
	var olds []string
	for _, x := range secrets {
		if x != "" && x != Mask {
			olds = append(olds, x)
		}
	}
	if len(olds) == 0 {
		return s
	}
	sort.Slice(olds, func(i, j int) bool { return len(olds[i]) > len(olds[j]) })
	pairs := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		pairs = append(pairs, o, Mask)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// Error returns err with its message passed through Text (nil stays nil).
// The result still unwraps to err, so errors.Is and errors.As see the
// original chain; only its Error text is redacted.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := Text(msg, secrets...)
	if red == msg {
		return err
	}
	return &redacted{msg: red, err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }
