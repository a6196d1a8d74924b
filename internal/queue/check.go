package queue

import (
	"fmt"
	"time"
)

// CheckLimits are the thresholds of Status.Problems (`solverd queue
// status --check`).
type CheckLimits struct {
	// MaxLag: a follower more operations behind its leader than this is
	// a problem.
	MaxLag uint64
	// FullAt: a stream holding this share of its byte limit (0 to 1) is
	// near it.
	FullAt float64
	// Unseen: a follower its leader has not heard from for this long
	// (while its server answers clients: cut off from the cluster) is a
	// problem.
	Unseen time.Duration
}

// DefaultCheckLimits: a follower 1,000 operations behind (a healthy one
// under load is a few behind; one catching up after a restart, thousands),
// and a stream at 90 % of its byte limit.
// Unseen at 10 s: the leader hears from a follower every second or two
// (measured idle on 2.15.2 and 2.9.10), and the server itself stops
// calling a follower current after 10 s.
func DefaultCheckLimits() CheckLimits {
	return CheckLimits{MaxLag: 1000, FullAt: 0.9, Unseen: 10 * time.Second}
}

// Problems lists what is wrong in st, one line each naming the stream,
// consumer or server: a tessera stream missing or not answering; a stream
// or consumer without a leader; a replica offline (or whose server no
// known URL answers), lagging past l.MaxLag or not heard from by its
// leader for l.Unseen; messages stranded below an
// ack floor; a stream near its byte limit; a server's copy of a stream
// disagreeing with its leader's; a listed URL or a monitoring endpoint
// that did not answer. Empty when healthy.
func (st Status) Problems(l CheckLimits) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	for _, s := range st.Servers {
		if s.Name == "" && s.Listed {
			add("server at %s did not answer: %s", s.URL, s.Error)
		}
	}
	for _, e := range st.MonitorErrors {
		add("%s", e)
	}
	peers := func(what string, ps []PeerStatus) {
		for _, p := range ps {
			switch {
			case p.NoAnswer:
				add("%s: replica on %s offline (no known URL answers as %s)", what, p.Name, p.Name)
			case p.Offline:
				add("%s: replica on %s offline", what, p.Name)
			case p.Lag > l.MaxLag:
				add("%s: replica on %s lags %d operations behind its leader (more than %d)", what, p.Name, p.Lag, l.MaxLag)
			case !p.Current && time.Duration(p.ActiveMS)*time.Millisecond > l.Unseen:
				add("%s: replica on %s not current, last heard from %v ago", what, p.Name,
					(time.Duration(p.ActiveMS) * time.Millisecond).Round(time.Second))
			}
		}
	}
	for _, s := range st.Streams {
		what := s.Kind + " " + s.Name
		switch {
		case s.Missing:
			add("%s: missing (run `solverd queue apply`)", what)
			continue
		case s.Error != "" && s.Replicas == 0:
			add("%s: %s", what, s.Error)
			continue
		case s.Error != "":
			add("%s: %s", what, s.Error)
		}
		// A single server's assets have no cluster and so no leader.
		if s.Leader == "" && s.Replicas > 1 {
			add("%s: no leader", what)
		}
		peers(what, s.Peers)
		for _, c := range s.Consumer {
			cw := "consumer " + s.Name + "/" + c.Name
			if c.Leader == "" && c.Replicas > 1 {
				add("%s: no leader", cw)
			}
			peers(cw, c.Peers)
		}
		switch {
		case s.Stranded > 0:
			add("%s: %d messages stranded below a consumer's ack floor (the sweeps of solverd run and results run remove them)",
				what, s.Stranded)
		case s.Stranded < 0:
			add("%s: stranded messages not read: %s", what, s.StrandedError)
		}
		if s.MaxBytes > 0 && float64(s.Bytes) >= l.FullAt*float64(s.MaxBytes) {
			add("%s: %s of its %s byte limit used (%.0f %%): near full, publishes will be refused",
				what, Bytes(int64(s.Bytes)), Bytes(s.MaxBytes), 100*float64(s.Bytes)/float64(s.MaxBytes))
		}
		for _, c := range s.Copies {
			if c.Disagrees {
				add("%s: the copy on %s holds %d messages, its leader's %d, at the same last sequence %d",
					what, c.Server, c.Messages, s.Messages, c.LastSeq)
			}
		}
	}
	return out
}

// Bytes is n in binary units ("12.0 MiB").
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
