package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		done, total int64
		el          time.Duration
		want        string
	}{
		{1200, 20000, 3 * time.Second, "enqueue: 1200 of 20000 states (6%), 400 states/s, about 47s left"},
		{20000, 20000, 50 * time.Second, "enqueue: 20000 of 20000 states (100%), 400 states/s, done in 50s"},
		{0, 100, 10 * time.Second, "enqueue: 0 of 100 states (0%), 0 states/s, 10s so far"},
		{500, -1, 10 * time.Second, "enqueue: 500 states, 50 states/s, 10s so far"},
		{0, -1, 12 * time.Second, "enqueue: working, 12s so far"},
	} {
		if got := Line("enqueue", "states", tc.done, tc.total, tc.el); got != tc.want {
			t.Errorf("Line(%d, %d, %v) = %q, want %q", tc.done, tc.total, tc.el, got, tc.want)
		}
	}
}

// Off a terminal (a log) the meter writes a plain line every interval:
// no carriage returns, no bar.
func TestLinesOffTerminal(t *testing.T) {
	var b syncBuf
	no := false
	m := New(&b, "solved", "states", 100, Options{Every: 20 * time.Millisecond, Terminal: &no})
	m.Set(40)
	time.Sleep(70 * time.Millisecond)
	m.Add(10)
	m.Finish()
	m.Finish()
	out := b.String()
	if strings.Count(out, "\n") < 2 || !strings.Contains(out, "solved: 40 of 100 states (40%)") || strings.Contains(out, "\r") {
		t.Errorf("output %q", out)
	}
	n := strings.Count(out, "\n")
	time.Sleep(50 * time.Millisecond)
	if strings.Count(b.String(), "\n") != n {
		t.Error("lines after Finish")
	}
	var q syncBuf
	m = New(&q, "x", "y", 1, Options{Quiet: true, Every: time.Millisecond})
	time.Sleep(10 * time.Millisecond)
	m.Finish()
	if q.String() != "" {
		t.Errorf("quiet meter wrote %q", q.String())
	}
}
