package queue

import (
	"slices"
	"strings"
	"testing"
)

// Problems names each kind of trouble once per stream or consumer, and
// nothing on a healthy status.
func TestProblems(t *testing.T) {
	healthy := Status{
		Servers: []ServerStatus{{Name: "n0", URL: "nats://a:4222", Listed: true}, {Name: "n1", URL: "nats://b:4222"},
			{URL: "nats://10.0.0.9:4222", Error: "i/o timeout"}}, // advertised only: not a problem
		Streams: []StreamStatus{{Name: JobsStream, Kind: "stream", Replicas: 2, Leader: "n0", Bytes: 10, MaxBytes: 100,
			Peers:    []PeerStatus{{Name: "n1", Current: true, Lag: 3}},
			Consumer: []ConsumerStatus{{Name: "solverd", Replicas: 2, Leader: "n1", Peers: []PeerStatus{{Name: "n0", Current: true}}}, {Name: "single", Replicas: 1}},
			Copies:   []StreamCopy{{Server: "n0", Leader: true}, {Server: "n1"}}}},
	}
	if p := healthy.Problems(DefaultCheckLimits()); len(p) != 0 {
		t.Fatalf("healthy: %q", p)
	}
	sick := Status{
		Servers:       []ServerStatus{{Name: "n0", URL: "nats://a:4222", Listed: true}, {URL: "nats://c:4222", Listed: true, Error: "connection refused"}},
		MonitorErrors: []string{"monitoring endpoint http://c:8222: connection refused"},
		Streams: []StreamStatus{
			{Name: JobsStream, Kind: "stream", Replicas: 3, Leader: "n0", Bytes: 95, MaxBytes: 100, Stranded: 2, Messages: 0, LastSeq: 40,
				Peers:    []PeerStatus{{Name: "n1", Lag: 5000}, {Name: "n2", Offline: true, NoAnswer: true}},
				Consumer: []ConsumerStatus{{Name: "solverd", Replicas: 3}},
				Copies:   []StreamCopy{{Server: "n1", Messages: 1565, LastSeq: 40, Disagrees: true}}},
			{Name: ResultsStream, Kind: "stream", Error: "no answer within 3s (no leader, or its server is down)"},
			{Name: DeadStream, Kind: "stream", Missing: true},
			{Name: BucketStream(CancelledBucket), Kind: "kv", Replicas: 3, Stranded: -1, StrandedError: "boom",
				Peers: []PeerStatus{{Name: "n2", Offline: true}, {Name: "n3", ActiveMS: 12000}, {Name: "n4", ActiveMS: 3000}}},
		},
	}
	got := sick.Problems(DefaultCheckLimits())
	for _, want := range []string{
		"server at nats://c:4222 did not answer: connection refused",
		"monitoring endpoint http://c:8222: connection refused",
		"stream TESSERA_JOBS: replica on n1 lags 5000 operations behind its leader (more than 1000)",
		"stream TESSERA_JOBS: replica on n2 offline (no known URL answers as n2)",
		"consumer TESSERA_JOBS/solverd: no leader",
		"stream TESSERA_JOBS: 2 messages stranded below a consumer's ack floor",
		"stream TESSERA_JOBS: 95 B of its 100 B byte limit used (95 %)",
		"stream TESSERA_JOBS: the copy on n1 holds 1565 messages, its leader's 0, at the same last sequence 40",
		"stream TESSERA_RESULTS: no answer within 3s",
		"stream TESSERA_DEAD: missing",
		"kv KV_tessera-cancelled: no leader",
		"kv KV_tessera-cancelled: replica on n2 offline",
		"kv KV_tessera-cancelled: stranded messages not read: boom",
		"kv KV_tessera-cancelled: replica on n3 not current, last heard from 12s ago",
	} {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("no problem %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 14 {
		t.Errorf("%d problems, want 14:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// Confirm keeps only what both looks found.
func TestConfirm(t *testing.T) {
	first := Status{Streams: []StreamStatus{{Name: JobsStream, Stranded: 2, stranded: []uint64{4, 5},
		Copies: []StreamCopy{{Server: "n1", Disagrees: true}, {Server: "n2"}}}}}
	second := Status{Streams: []StreamStatus{{Name: JobsStream, Stranded: 2, stranded: []uint64{5, 6},
		Copies: []StreamCopy{{Server: "n1", Disagrees: true}, {Server: "n2", Disagrees: true}}}}}
	if !first.Unsettled() {
		t.Fatal("stranded messages and a disagreeing copy are unsettled")
	}
	got := Confirm(first, second).Streams[0]
	if got.Stranded != 1 || !got.Copies[0].Disagrees || got.Copies[1].Disagrees {
		t.Errorf("confirmed %+v: want 1 stranded (seq 5), n1 disagreeing, n2 not", got)
	}
}

// A follower's copy at its leader's last sequence with other messages
// disagrees; one behind is lag; the leader's own copy agrees by definition.
func TestCompareCopies(t *testing.T) {
	ss := StreamStatus{Name: JobsStream, Leader: "n0", Messages: 0, LastSeq: 9000}
	got := compareCopies([]StreamCopy{
		{Server: "n0", Messages: 0, LastSeq: 9000},
		{Server: "n1", Messages: 1565, LastSeq: 9000},
		{Server: "n2", Messages: 40, LastSeq: 8960},
	}, ss)
	if !got[0].Leader || got[0].Disagrees || !got[1].Disagrees || got[1].Leader || got[2].Disagrees {
		t.Errorf("copies %+v: want n0 the leader, n1 disagreeing, n2 behind only", got)
	}
	if got := compareCopies([]StreamCopy{{Server: "n1", Messages: 5, LastSeq: 0}}, StreamStatus{Error: "no answer"}); got[0].Disagrees {
		t.Errorf("a stream that did not answer has nothing to compare with: %+v", got)
	}
}
