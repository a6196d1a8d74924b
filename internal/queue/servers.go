package queue

import (
	"context"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tessera-solver/tessera/internal/redact"
)

// ServerStatus is one NATS server, or one URL that did not answer, as a
// client sees them: without the system account the client cannot list a
// cluster's servers, so it asks every URL it knows (its own and those the
// servers advertise) which server answers there. A cluster advertises
// each server under several URLs (one per interface), so URLs are counted
// by the server behind them.
type ServerStatus struct {
	// Name is the server's name; empty when the URL did not answer.
	Name string `json:"name,omitempty"`
	// URL is where it answered (the first such URL), credentials
	// redacted; or the URL that did not answer.
	URL string `json:"url"`
	// Listed: the URL is one the client was given (nats.url), not only
	// advertised by the cluster.
	Listed bool `json:"listed,omitempty"`
	// Error is why the URL did not answer within the bound.
	Error string `json:"error,omitempty"`
}

// maxProbes bounds how many URLs ProbeServers asks.
const maxProbes = 64

// ProbeServers asks every URL nc knows, and those the answering servers
// advertise, which server answers there, each connection attempt bounded
// by timeout and all of them at once: answering servers one entry each
// (by name, sorted), then the URLs that did not answer.
func ProbeServers(ctx context.Context, nc *nats.Conn, timeout time.Duration) []ServerStatus {
	listed := map[string]bool{}
	for _, u := range nc.Opts.Servers {
		listed[hostPort(u)] = true
	}
	if nc.Opts.Url != "" {
		listed[hostPort(nc.Opts.Url)] = true
	}
	var userinfo *url.Userinfo
	for _, u := range append([]string{nc.Opts.Url}, nc.Opts.Servers...) {
		if p, err := url.Parse(u); err == nil && p.User != nil {
			userinfo = p.User
			break
		}
	}
	seen := map[string]bool{}
	byName := map[string]ServerStatus{}
	var silent []ServerStatus
	next := nc.Servers()
	for len(next) > 0 && len(seen) < maxProbes && ctx.Err() == nil {
		var round []string
		for _, u := range next {
			if hp := hostPort(u); hp != "" && !seen[hp] && len(seen) < maxProbes {
				seen[hp] = true
				round = append(round, u)
			}
		}
		next = nil
		type answer struct {
			url, name, err string
			found          []string
		}
		answers := make([]answer, len(round))
		var wg sync.WaitGroup
		for i, u := range round {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := answer{url: u}
				full := withUserinfo(u, userinfo)
				pc, err := probe(nc.Opts, full, timeout)
				if err != nil {
					a.err = redact.Error(err, append(secretsOf(nc.Opts), redact.Secrets(full)...)...).Error()
				} else {
					a.name, a.found = pc.ConnectedServerName(), pc.DiscoveredServers()
					pc.Close()
				}
				answers[i] = a
			}()
		}
		wg.Wait()
		for _, a := range answers {
			shown := ServerStatus{URL: redact.URL(a.url), Listed: listed[hostPort(a.url)]}
			if a.err != "" {
				shown.Error = a.err
				silent = append(silent, shown)
				continue
			}
			next = append(next, a.found...)
			have, ok := byName[a.name]
			shown.Name = a.name
			if !ok || shown.Listed && !have.Listed {
				byName[a.name] = shown
			}
		}
	}
	out := make([]ServerStatus, 0, len(byName)+len(silent))
	for _, s := range byName {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b ServerStatus) int { return strings.Compare(a.Name, b.Name) })
	return append(out, silent...)
}

// probe connects once to u with o's credentials and TLS settings, no
// reconnects and none of o's handlers.
func probe(o nats.Options, u string, timeout time.Duration) (*nats.Conn, error) {
	// nats.go reports any failure to dial as "no servers available":
	// the dial's own error says more (refused, timed out, no such host).
	c, err := net.DialTimeout("tcp", hostPort(u), timeout)
	if err != nil {
		return nil, err
	}
	c.Close()
	o.Url, o.Servers = u, nil
	o.NoRandomize, o.AllowReconnect, o.MaxReconnect, o.RetryOnFailedConnect = true, false, 0, false
	o.Timeout = timeout
	o.Name += " (probe)"
	o.ClosedCB, o.DisconnectedCB, o.DisconnectedErrCB, o.ReconnectedCB = nil, nil, nil, nil
	o.ConnectedCB, o.DiscoveredServersCB, o.AsyncErrorCB, o.LameDuckModeHandler = nil, nil, nil, nil
	o.ReconnectErrCB = nil
	return o.Connect()
}

// secretsOf are o's secrets, for redacting a probe's error.
func secretsOf(o nats.Options) []string {
	var s []string
	for _, v := range []string{o.Password, o.Token} {
		if v != "" {
			s = append(s, v)
		}
	}
	return s
}

// withUserinfo gives an advertised URL (which never carries credentials)
// the user and password of the listed ones, as nats.go does when it
// reconnects to an advertised server.
func withUserinfo(u string, ui *url.Userinfo) string {
	p, err := url.Parse(u)
	if err != nil || ui == nil || p.User != nil {
		return u
	}
	p.User = ui
	return p.String()
}

// hostPort is the host:port of a server URL ("" when it does not parse).
func hostPort(u string) string {
	if !strings.Contains(u, "://") {
		u = "nats://" + u
	}
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Host
}

// Answering is the names of the servers in ss that answered.
func Answering(ss []ServerStatus) []string {
	var names []string
	for _, s := range ss {
		if s.Name != "" {
			names = append(names, s.Name)
		}
	}
	return names
}

// serversWait bounds each connection attempt of the servers count in an
// error message.
const serversWait = 2 * time.Second

// serverCount is how many distinct servers answer nc's known URLs (at
// least one: nc's own).
func serverCount(nc *nats.Conn) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*serversWait)
	defer cancel()
	return max(1, len(Answering(ProbeServers(ctx, nc, serversWait))))
}
